#!/usr/bin/env bash
# hplayer's DASH client against mpv's (libavformat's dash demuxer), the same server for both
# (scripts/fault-server.py, which logs every request), the players alternating; medians. The
# ladder: 20 s, three video Representations (640x360 800 kb/s, 1280x720 2.5 Mb/s, 1920x1080
# 5 Mb/s) and one AAC, 2 s segments, SegmentTemplate with a SegmentTimeline, made by ffmpeg.
#   1. time to first frame (process start to the "playback restart" log line)
#   2. bytes fetched per byte played, the whole presentation played untimed: the server's log
#      against the files of the Representations played (the highest video, the audio)
#   3. seek time, exact and to key frames, over the JSON IPC (10 seeks each)
# The QoE over the ABR traces is bench/abr-e2e.sh's, with ABR_FORMAT=dash.
# Usage: bench/dash.sh [RUNS]      (default 5; release build, Swift runtime linked in)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
work=$(mktemp -d)
source bench/common.sh
trap 'stop_server; rm -rf "$work"' EXIT
for tool in mpv ffmpeg python3; do command -v "$tool" >/dev/null || { echo "bench: needs $tool" >&2; exit 1; }; done
build_release
use_uncached_hplayer

echo "making the ladder..." >&2
mkdir -p "$work/www"
ffmpeg -v error -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=20" -f lavfi -i "sine=d=20" \
  -filter_complex "[0:v]split=3[a][b][c];[a]scale=640:360[v0];[b]scale=1280:720[v1];[c]null[v2]" \
  -map "[v0]" -map "[v1]" -map "[v2]" -map 1:a -c:v libx264 -preset veryfast -g 60 -keyint_min 60 -sc_threshold 0 \
  -b:v:0 800k -b:v:1 2500k -b:v:2 5000k -c:a aac -b:a 128k \
  -f dash -seg_duration 2 -use_template 1 -use_timeline 1 -adaptation_sets "id=0,streams=v id=1,streams=a" "$work/www/manifest.mpd"


echo "1. Time to first frame, null outputs, s (hplayer, mpv, ratio)"
serve_logged
: >"$work/hp"; : >"$work/mpv"
for _ in $(seq "$runs"); do
  # The highest Representation, as mpv's default.
  bench/measure_ipc.py first-frame "playback restart complete" -- "$hplayer" -v "$base/manifest.mpd" --hls-bitrate max \
    --vo null --ao null --no-status >>"$work/hp"
  bench/measure_ipc.py first-frame "playback restart complete" -- mpv --no-config --vo=null --ao=null \
    --msg-level=all=no,cplayer=v "$base/manifest.mpd" >>"$work/mpv"
done
ratio_row "manifest.mpd" "$(median <"$work/hp")" "$(median <"$work/mpv")"
echo

echo "2. Bytes fetched per byte played, the presentation played whole (hplayer, mpv)"
serve_logged
"$hplayer" "$base/manifest.mpd" --hls-bitrate max --vo null --ao null --untimed --no-status >/dev/null 2>&1
hp_bytes=$(fetched_bytes "$log")
serve_logged
mpv --no-config --vo=null --ao=null --untimed --ao-null-untimed --really-quiet "$base/manifest.mpd" >/dev/null 2>&1
mpv_bytes=$(fetched_bytes "$log")
played=$(cat "$work/www/manifest.mpd" "$work/www"/init-stream2.m4s "$work/www"/chunk-stream2-*.m4s \
  "$work/www"/init-stream3.m4s "$work/www"/chunk-stream3-*.m4s | wc -c)
printf "  %-44s %9s %9s\n" "bytes fetched" "$hp_bytes" "$mpv_bytes"
printf "  %-44s %9s %9s\n" "per byte played ($played)" "$(ratio "$hp_bytes" "$played")" "$(ratio "$mpv_bytes" "$played")"
echo

echo "3. Seek time over the JSON IPC, 10 seeks each, s (hplayer, mpv, ratio)"
serve_logged
: >"$work/hp"; : >"$work/mpv"
seeks() { rm -f "$work/ipc"; bench/measure_ipc.py seeks "$work/ipc" 10 7 -- "$@" --input-ipc-server="$work/ipc"; }
seeks "$hplayer" "$base/manifest.mpd" --hls-bitrate max --vo null --ao null --no-status --quiet >>"$work/hp"
seeks mpv --no-config --vo=null --ao=null --really-quiet "$base/manifest.mpd" >>"$work/mpv"
for mode in exact keyframes; do
  ratio_row "$mode, median" "$(awk -v m="$mode" '$1 == m {print $2}' "$work/hp" | median)" "$(awk -v m="$mode" '$1 == m {print $2}' "$work/mpv" | median)"
done
