#!/usr/bin/env bash
# hplayer against mpv over the network, the same server for both (scripts/fault-server.py on a
# free port, which logs every request), the players alternating; medians.
#   1. time to first frame (process start to each player's "playback restart" log line), over
#      HTTP (a 20 s 720p H.264 MP4) and HLS (a 3-variant ladder of 2 s MPEG-TS segments), at full
#      speed and with 50 ms before the first byte of every answer
#   2. bytes fetched per byte played, playing the whole HLS stream untimed: the server's log
#      against the segments of the variant played
# Usage: bench/network.sh [RUNS]      (default 5; release build, Swift runtime linked in)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
work=$(mktemp -d)
server=""
stop_server() { [ -z "$server" ] || { kill -9 "$server"; wait "$server"; } 2>/dev/null || true; }
trap 'stop_server; rm -rf "$work"' EXIT
source bench/common.sh
for tool in mpv ffmpeg python3; do command -v "$tool" >/dev/null || { echo "bench: needs $tool" >&2; exit 1; }; done
build_release

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

# Starts the server with extra options ($@); sets $base and $log.
serve() {
  stop_server
  log="$work/requests-$RANDOM.jsonl"
  python3 scripts/fault-server.py --root "$work/www" --log "$log" "$@" >"$work/port" 2>/dev/null &
  server=$!
  for _ in $(seq 100); do grep -q PORT "$work/port" 2>/dev/null && break; sleep 0.05; done
  base="http://127.0.0.1:$(awk '/PORT/ {print $2}' "$work/port")"
}

row() { printf "  %-44s %9s %9s %7s\n" "$1" "$2" "$3" "$(ratio "$2" "$3")"; }

echo "1. Time to first frame, null outputs, s (hplayer, mpv, ratio)"
for delay in 0 0.05; do
  serve --first-byte-delay "$delay"
  for input in clip.mp4 master.m3u8; do
    : >"$work/hp"; : >"$work/mpv"
    for _ in $(seq "$runs"); do
      bench/measure_ipc.py first-frame "playback restart complete" -- "$hplayer" -v "$base/$input" --vo null --ao null --no-status >>"$work/hp"
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
"$hplayer" "$base/master.m3u8" --vo null --ao null --untimed --no-status >/dev/null 2>&1
hp_bytes=$(fetched "$log")
serve
mpv --no-config --vo=null --ao=null --untimed --ao-null-untimed --really-quiet "$base/master.m3u8" >/dev/null 2>&1
mpv_bytes=$(fetched "$log")
# Both play the highest variant by default (mpv's --hls-bitrate=max, as ours).
variant_bytes=$(played 2)
printf "  %-44s %9s %9s\n" "bytes fetched" "$hp_bytes" "$mpv_bytes"
printf "  %-44s %9s %9s\n" "per byte of the variant played ($variant_bytes)" "$(ratio "$hp_bytes" "$variant_bytes")" "$(ratio "$mpv_bytes" "$variant_bytes")"
