#!/usr/bin/env bash
# hplayer against mpv over the network, the same server for both (scripts/fault-server.py on a
# free port, which logs every request), the players alternating; medians.
#   1. time to first frame (process start to each player's "playback restart" log line), over
#      HTTP (a 20 s 720p H.264 MP4) and HLS (a 3-variant ladder of 2 s MPEG-TS segments), at full
#      speed and with 50 ms before the first byte of every answer
#   2. bytes fetched per byte played, playing the whole HLS stream untimed: the server's log
#      against the segments of the variant played
#   3. stalls under a bandwidth dip: a 100 s MP4 played at 1x to 80 s, served at 3x its bit rate,
#      a quarter of it from 20 s to 60 s, 3x again after; paused-for-cache through the JSON IPC
#   4. CPU (user+sys) and peak RSS playing the 20 s 720p MP4 at 1x at full speed
# Usage: bench/network.sh [RUNS]      (default 5; release build, Swift runtime linked in)
#        DIP_RUNS=N for section 3's runs (default 1: each takes 80 s or more a player)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
dip_runs=${DIP_RUNS:-1}
work=$(mktemp -d)
source bench/common.sh
trap 'stop_server; rm -rf "$work"' EXIT
for tool in mpv ffmpeg python3; do command -v "$tool" >/dev/null || { echo "bench: needs $tool" >&2; exit 1; }; done
build_release
use_uncached_hplayer

echo "making the media..." >&2
mkdir -p "$work/www"
ffmpeg -v error -f lavfi -i "testsrc2=size=1280x720:rate=30:duration=20" -f lavfi -i "sine=d=20" \
  -c:v libx264 -preset veryfast -b:v 3M -g 60 -c:a aac -movflags +faststart "$work/www/clip.mp4"
master="#EXTM3U"
for variant in "0 640x360 800k 1000000" "1 1280x720 2500k 3000000" "2 1920x1080 5000k 6000000"; do
  set -- $variant
  mkdir -p "$work/www/v$1"
  ffmpeg -v error -f lavfi -i "testsrc2=size=$2:rate=30:duration=20" -f lavfi -i "sine=d=20" \
    -c:v libx264 -preset veryfast -b:v "$3" -g 60 -c:a aac -f hls -hls_time 2 -hls_playlist_type vod "$work/www/v$1/index.m3u8"
  master+=$'\n'"#EXT-X-STREAM-INF:BANDWIDTH=$4,RESOLUTION=$2"$'\n'"v$1/index.m3u8"
done
echo "$master" >"$work/www/master.m3u8"
# For the dip: a steady ~8 Mb/s (noise, so x264 needs the rate; capped, so no stretch needs much
# more than the rest), so that the kernel's socket buffers hold only seconds of it.
ffmpeg -v error -f lavfi -i "testsrc2=size=1280x720:rate=30:duration=100,noise=alls=12:allf=t" -f lavfi -i "sine=d=100" \
  -c:v libx264 -preset veryfast -b:v 8M -maxrate 8M -bufsize 8M -g 60 -c:a aac -movflags +faststart "$work/www/dip.mp4"

# Starts the server with extra options ($@); sets $base and $log.
serve() {
  log="$work/requests-$RANDOM.jsonl"
  serve_faults "$log" "$@"
}

row() { printf "  %-44s %9s %9s %7s\n" "$1" "$2" "$3" "$(ratio "$2" "$3")"; }

echo "1. Time to first frame, null outputs, s (hplayer, mpv, ratio)"
for delay in 0 0.05; do
  serve --first-byte-delay "$delay"
  for input in clip.mp4 master.m3u8; do
    : >"$work/hp"; : >"$work/mpv"
    for _ in $(seq "$runs"); do
      # The same variant as mpv's default for HLS (ours starts from the lowest by default).
      bench/measure_ipc.py first-frame "playback restart complete" -- "$hplayer" -v "$base/$input" --hls-bitrate max \
        --vo null --ao null --no-status >>"$work/hp"
      bench/measure_ipc.py first-frame "playback restart complete" -- mpv --no-config --vo=null --ao=null \
        --msg-level=all=no,cplayer=v "$base/$input" >>"$work/mpv"
    done
    row "$input, first byte +${delay}s" "$(median <"$work/hp")" "$(median <"$work/mpv")"
  done
done
echo

echo "2. Bytes fetched per byte played, the HLS stream played whole (hplayer, mpv)"
fetched() { python3 -c "import json,sys; print(sum(json.loads(l)['bytes'] for l in open(sys.argv[1])))" "$1"; }
played() { cat "$work/www/v$1"/*.ts | wc -c; }
serve
"$hplayer" "$base/master.m3u8" --hls-bitrate max --vo null --ao null --untimed --no-status >/dev/null 2>&1
hp_bytes=$(fetched "$log")
serve
mpv --no-config --vo=null --ao=null --untimed --ao-null-untimed --really-quiet "$base/master.m3u8" >/dev/null 2>&1
mpv_bytes=$(fetched "$log")
# Both play the highest variant: mpv's default, ours asked (ours starts from the lowest by default).
variant_bytes=$(played 2)
printf "  %-44s %9s %9s\n" "bytes fetched" "$hp_bytes" "$mpv_bytes"
printf "  %-44s %9s %9s\n" "per byte of the variant played ($variant_bytes)" "$(ratio "$hp_bytes" "$variant_bytes")" "$(ratio "$mpv_bytes" "$variant_bytes")"
echo

echo "3. Stalls under a bandwidth dip, $(describe_clip "$work/www/dip.mp4") MP4 played at 1x to 80 s, null outputs"
echo "   (stalls after the first frame, seconds stalled, peak RSS MiB; medians of $dip_runs)"
rate=$(ffprobe -v error -show_entries format=bit_rate -of csv=p=0 "$work/www/dip.mp4" | awk '{print $1 / 8}')
# Per connection, as a link paces it (capacity a reader leaves idle is lost): 3x the clip's rate
# for 20 s, a quarter of it for 40 s, then 3x again.
serve --rate-schedule "20:$(awk -v r="$rate" 'BEGIN {printf "%d,40:%d,0:%d", 3 * r, r / 4, 3 * r}')"
: >"$work/hp"; : >"$work/hp-short"; : >"$work/mpv"
# Stopped through the IPC at 80 s into the file, the same for all (hplayer has no --end); quiet,
# as their output goes to a pipe that nothing reads. hplayer also with a 10 s read-ahead: the
# dip needs 30 s more than arrives, so that one must stall (the bench can see a stall).
dip() { rm -f "$work/ipc"; bench/measure_ipc.py stalls "$work/ipc" 80 -- "$@" --input-ipc-server="$work/ipc"; }
for _ in $(seq "$dip_runs"); do
  dip "$hplayer" "$base/dip.mp4" --vo null --ao null --no-status --quiet >>"$work/hp"
  dip "$hplayer" "$base/dip.mp4" --vo null --ao null --no-status --quiet --cache-secs 10 >>"$work/hp-short"
  dip mpv --no-config --vo=null --ao=null --really-quiet "$base/dip.mp4" >>"$work/mpv"
done
stall_row() { printf "  %-44s %9s %9s %9s\n" "$1" "$(column 1 "$2")" "$(column 2 "$2")" "$(mib "$(column 3 "$2")")"; }
stall_row "hplayer (read-ahead 120 s / 64 MiB)" "$work/hp"
stall_row "hplayer --cache-secs 10" "$work/hp-short"
stall_row mpv "$work/mpv"
echo

echo "4. CPU at 1x over HTTP, clip.mp4 (20 s 720p) at full speed, null outputs (hplayer, mpv, ratio)"
serve
: >"$work/hp"; : >"$work/mpv"
for _ in $(seq "$runs"); do
  measure "$hplayer" "$base/clip.mp4" --vo null --ao null --no-status >>"$work/hp"
  measure mpv --no-config --vo=null --ao=null --really-quiet "$base/clip.mp4" >>"$work/mpv"
done
row "user+sys CPU, s" "$(column 2 "$work/hp")" "$(column 2 "$work/mpv")"
row "peak RSS, MiB" "$(mib "$(column 3 "$work/hp")")" "$(mib "$(column 3 "$work/mpv")")"
