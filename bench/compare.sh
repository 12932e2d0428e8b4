#!/usr/bin/env bash
# hplayer side by side with mpv, ffmpeg and ffplay, in one run, alternating the players; medians.
#   1. throughput, no clock: `hplayer bench` vs `mpv --untimed --vo=null --ao=null --ao-null-untimed`
#      vs `ffmpeg -threads 0 -i X -f null -` (wall and CPU seconds), on each clip
#   2. real time at 1x, null outputs (1080p H.264 30 s, 4K HEVC 10 s): CPU seconds and peak resident
#      memory, hplayer vs mpv and vs the decode floor (ffmpeg -f null's CPU)
#   3. time to first frame: process start to the first frame presented (each player's log line)
#   4. seek latency through the JSON IPC: 20 seeks, exact and keyframe, command to playback-restart
#   5. sync over 60 s of playback: mean and largest |A-V| by each player's own avsync, dropped frames;
#      and the dropped frames of the 4K (with sound) and VP9 clips, each played through at 1x
# Clips (made here with ffmpeg): 1080p30 H.264 60 s + AAC; 4K HEVC 10 s; 720p VP9 + Opus 20 s;
# 10 min AAC audio only.
# Usage: bench/compare.sh [RUNS]      (default 5; release build, Swift runtime linked in)
#        bench/compare.sh --smoke     (one small clip, one run, the debug build: CI's check that it runs)
set -euo pipefail
cd "$(dirname "$0")/.."
smoke=""
runs=5
if [ "${1:-}" = "--smoke" ]; then smoke=yes; runs=1; elif [ -n "${1:-}" ]; then runs=$1; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source bench/common.sh
for tool in mpv ffmpeg python3; do command -v "$tool" >/dev/null || { echo "bench: needs $tool" >&2; exit 1; }; done

if [ -n "$smoke" ]; then
  swift build >/dev/null
  hplayer=.build/debug/hplayer
  ffmpeg -v error -f lavfi -i testsrc2=size=320x240:rate=25:duration=4 -f lavfi -i sine=frequency=440:duration=4 \
    -c:v libx264 -preset ultrafast -g 25 -c:a aac "$work/small.mp4"
  clips=("small.mp4"); realtime_clips=(small.mp4); realtime_clip=small.mp4; sync_clip=small.mp4; drop_clips=(); seek_count=2
else
  build_release
  echo "making the clips..." >&2
  make_1080p_clip "$work/h264-1080p30-60s.mp4" 60
  ffmpeg -v error -i "$work/h264-1080p30-60s.mp4" -t 30 -c copy "$work/h264-1080p30-30s.mp4"
  ffmpeg -v error -f lavfi -i "testsrc2=size=3840x2160:rate=30:duration=10,noise=alls=8:allf=t" \
    -c:v libx265 -preset ultrafast -x265-params log-level=error -b:v 20M -pix_fmt yuv420p "$work/hevc-2160p-10s.mp4"
  # The same pictures with sound, for the dropped-frame count (without sound a player paces the
  # pictures itself and drops none; mpv gives no avsync).
  ffmpeg -v error -i "$work/hevc-2160p-10s.mp4" -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=10" \
    -c:v copy -c:a aac -b:a 128k -shortest "$work/hevc-2160p-aac-10s.mp4"
  ffmpeg -v error -f lavfi -i "testsrc2=size=1280x720:rate=30:duration=20,noise=alls=8:allf=t" \
    -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=20" \
    -c:v libvpx-vp9 -deadline realtime -cpu-used 8 -b:v 3M -c:a libopus -b:a 96k -shortest "$work/vp9-720p-opus-20s.webm"
  ffmpeg -v error -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=600" -c:a aac -b:a 128k "$work/aac-10min.m4a"
  clips=("h264-1080p30-60s.mp4" "hevc-2160p-10s.mp4" "vp9-720p-opus-20s.webm" "aac-10min.m4a")
  realtime_clips=(h264-1080p30-30s.mp4 hevc-2160p-10s.mp4); realtime_clip=h264-1080p30-30s.mp4
  sync_clip=h264-1080p30-60s.mp4; drop_clips=(hevc-2160p-aac-10s.mp4 vp9-720p-opus-20s.webm); seek_count=20
fi
mpv_base=(mpv --no-config --really-quiet)
null_out=(--vo null --ao null --no-status)

echo "HPlayer benchmarks, $(date -u +%Y-%m-%d), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)),"
echo "$(mpv --version | head -1 | cut -d' ' -f1-2), $(ffmpeg -version | head -1 | cut -d' ' -f1-3); $runs runs each, alternating; medians"
echo

# A row: label, hplayer's figure, the peer's figure, and which way is better (lower|higher).
row() {
  local verdict
  verdict=$(awk -v a="$2" -v b="$3" -v t="${5:-1.00}" 'BEGIN {r = (b > 0 ? a / b : 0); print (r <= t ? "met" : "MISSED")}')
  printf "  %-44s %10s %10s %7s  %s\n" "$1" "$2" "$3" "$(ratio "$2" "$3")" "${4:-}${4:+ }$verdict"
}

echo "1. Throughput, no clock (wall s / CPU s)"
printf "  %-24s %16s %16s %16s %12s %12s\n" clip hplayer mpv "ffmpeg -f null" "wall / ffm" "wall / mpv"
for clip in "${clips[@]}"; do
  : >"$work/hp"; : >"$work/mpv"; : >"$work/ff"
  for _ in $(seq "$runs"); do
    measure "$hplayer" bench "$work/$clip" >>"$work/hp"
    measure "${mpv_base[@]}" --untimed --vo=null --ao=null --ao-null-untimed "$work/$clip" >>"$work/mpv"
    measure ffmpeg -v error -threads 0 -i "$work/$clip" -f null - >>"$work/ff"
  done
  hw=$(column 1 "$work/hp"); mw=$(column 1 "$work/mpv"); fw=$(column 1 "$work/ff")
  printf "  %-24s %7.2f / %6.2f %7.2f / %6.2f %7.2f / %6.2f %12s %12s\n" "$clip" \
    "$hw" "$(column 2 "$work/hp")" "$mw" "$(column 2 "$work/mpv")" "$fw" "$(column 2 "$work/ff")" \
    "$(ratio "$hw" "$fw")" "$(ratio "$hw" "$mw")"
  echo "$clip $hw $mw $fw" >>"$work/throughput"
done
echo "  targets: hplayer's wall at most 1/0.95 = 1.05 of ffmpeg's, and below mpv's"
awk '{ f = ($2 / $4 <= 1.0526 ? "met" : "MISSED"); m = ($2 < $3 ? "met" : "MISSED");
       printf "    %-24s vs ffmpeg %s, vs mpv %s\n", $1, f, m }' "$work/throughput"
echo

# Issue 17's targets at 1x: CPU at most 1.03x the decode floor (ffmpeg -f null's CPU on the same
# clip) and peak RSS at most 0.75x mpv's, at 1080p H.264 and at 4K HEVC.
echo "2. Real time at 1x, null outputs: CPU s and peak RSS, against mpv and the decode floor (ffmpeg -f null)"
printf "  %-44s %10s %10s %7s\n" "" hplayer peer ratio
for clip in "${realtime_clips[@]}"; do
  : >"$work/hp"; : >"$work/mpv"; : >"$work/ff"
  for _ in $(seq "$runs"); do
    measure "$hplayer" "$work/$clip" "${null_out[@]}" >>"$work/hp"
    measure "${mpv_base[@]}" --vo=null --ao=null "$work/$clip" >>"$work/mpv"
    measure ffmpeg -v error -threads 0 -i "$work/$clip" -f null - >>"$work/ff"
  done
  echo "  $clip"
  row "CPU s, vs mpv" "$(column 2 "$work/hp")" "$(column 2 "$work/mpv")"
  row "CPU s, vs the decode floor (target 1.03)" "$(column 2 "$work/hp")" "$(column 2 "$work/ff")" "" 1.03
  row "peak RSS MiB, vs mpv (target 0.75)" "$(mib "$(column 3 "$work/hp")")" "$(mib "$(column 3 "$work/mpv")")" "" 0.75
done
echo

echo "3. Time to first frame, null outputs ($realtime_clip), s"
: >"$work/hp"; : >"$work/mpv"
for _ in $(seq "$runs"); do
  bench/measure_ipc.py first-frame "playback restart complete" -- "$hplayer" -v "$work/$realtime_clip" "${null_out[@]}" >>"$work/hp"
  bench/measure_ipc.py first-frame "playback restart complete" -- mpv --no-config --vo=null --ao=null \
    --msg-level=all=no,cplayer=v "$work/$realtime_clip" >>"$work/mpv"
done
row "process start to first frame" "$(median <"$work/hp")" "$(median <"$work/mpv")"
echo

echo "4. Seek latency through the IPC, $seek_count random positions ($sync_clip), s"
: >"$work/hp"; : >"$work/mpv"
for run in $(seq "$runs"); do
  bench/measure_ipc.py seeks "$work/hp.sock" "$seek_count" "$run" -- \
    "$hplayer" "$work/$sync_clip" "${null_out[@]}" --input-ipc-server "$work/hp.sock" >>"$work/hp"
  bench/measure_ipc.py seeks "$work/mpv.sock" "$seek_count" "$run" -- \
    "${mpv_base[@]}" --vo=null --ao=null --input-ipc-server="$work/mpv.sock" "$work/$sync_clip" >>"$work/mpv"
done
p95() { sort -n | awk '{a[NR]=$1} END {i = int(NR * 0.95 + 0.999); if (i < 1) i = 1; print a[i]}'; }
for mode in exact keyframes; do
  row "$mode: median" "$(awk -v m=$mode '$1 == m {print $2}' "$work/hp" | median)" "$(awk -v m=$mode '$1 == m {print $2}' "$work/mpv" | median)"
  row "$mode: p95" "$(awk -v m=$mode '$1 == m {print $2}' "$work/hp" | p95)" "$(awk -v m=$mode '$1 == m {print $2}' "$work/mpv" | p95)"
done
echo

echo "5. A/V sync over the whole of $sync_clip at 1x, each player's own avsync, ms"
# Plays CLIP through at 1x, RUNS times in each player, alternating: sync lines into $work/hp and $work/mpv.
play_through() {
  : >"$work/hp"; : >"$work/mpv"
  for _ in $(seq "$runs"); do
    bench/measure_ipc.py sync "$work/hp.sock" -- "$hplayer" "$work/$1" "${null_out[@]}" --input-ipc-server "$work/hp.sock" >>"$work/hp"
    bench/measure_ipc.py sync "$work/mpv.sock" -- "${mpv_base[@]}" --vo=null --ao=null \
      --input-ipc-server="$work/mpv.sock" "$work/$1" >>"$work/mpv"
  done
}
play_through "$sync_clip"
field() { awk -v k="$1" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}' "$2" | median; }
ms() { awk -v s="$1" 'BEGIN {printf "%.3f", s * 1000}'; }
printf "  %-44s %10s %10s\n" "" hplayer mpv
printf "  %-44s %10s %10s\n" "mean |A-V|" "$(ms "$(field mean_abs "$work/hp")")" "$(ms "$(field mean_abs "$work/mpv")")"
printf "  %-44s %10s %10s\n" "largest |A-V|" "$(ms "$(field max_abs "$work/hp")")" "$(ms "$(field max_abs "$work/mpv")")"
printf "  %-44s %10s %10s\n" "dropped frames" "$(field drops "$work/hp")" "$(field drops "$work/mpv")"
# The other clips with pictures (the 4K one with sound added), played through at 1x for their
# dropped frames: a smaller decoder (fewer threads) must drop none that mpv does not.
largest() { awk -v k="$1" '{for (i = 1; i < NF; i++) if ($i == k && $(i + 1) > m) m = $(i + 1)} END {print m + 0}' "$2"; }
for clip in "${drop_clips[@]}"; do
  play_through "$clip"
  printf "  %-44s %10s %10s\n" "dropped frames, $clip (median / most)" \
    "$(field drops "$work/hp") / $(largest drops "$work/hp")" "$(field drops "$work/mpv") / $(largest drops "$work/mpv")"
done
