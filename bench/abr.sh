#!/usr/bin/env bash
# The HLS bitrate policies over the real throughput traces in ../shared/traces (Norway 3G and FCC
# broadband), by `hplayer abr-sim`, the trace-driven simulator running the real policy code:
#   1. Pensieve's ladder (300 to 4300 kb/s, 4 s segments, 48 segments, each of its rung's size)
#   2. a ladder made here by ffmpeg at the same bit rates (4 s segments, 192 s of noisy picture,
#      capped VBR), whose real segment sizes are downloaded
# Per trace set and policy, the means per session: QoE_lin, bit rate, rebuffer ratio, switches per
# minute and startup delay. Usage: bench/abr.sh [TRACES_FOLDER]   (default ../shared/traces)
set -euo pipefail
cd "$(dirname "$0")/.."
traces=${1:-../shared/traces}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source bench/common.sh
command -v ffmpeg >/dev/null || { echo "bench: needs ffmpeg" >&2; exit 1; }
[ -d "$traces/norway" ] && [ -d "$traces/fcc" ] || { echo "bench: no traces in $traces (norway/, fcc/)" >&2; exit 1; }
build_release

echo "== Pensieve's ladder =="
"$hplayer" abr-sim "$traces/norway" "$traces/fcc"

echo "making the ffmpeg ladder..." >&2
rates=(300 750 1200 1850 2850 4300)
split="[0:v]split=${#rates[@]}$(printf '[s%d]' "${!rates[@]}")"
args=()
for index in "${!rates[@]}"; do
  rate=${rates[$index]}
  mkdir -p "$work/ffmpeg/v$index"
  args+=(-map "[s$index]" -c:v libx264 -preset veryfast -b:v "${rate}k" -maxrate "$((rate * 3 / 2))k" -bufsize "$((rate * 2))k"
         -g 100 -keyint_min 100 -sc_threshold 0 -f hls -hls_time 4 -hls_playlist_type vod
         -hls_segment_filename "$work/ffmpeg/v$index/%03d.ts" "$work/ffmpeg/v$index/index.m3u8")
done
ffmpeg -v error -f lavfi -i "testsrc2=size=640x360:rate=25:duration=192,noise=alls=14:allf=t" -filter_complex "$split" "${args[@]}"
{
  echo "#EXTM3U"
  for index in "${!rates[@]}"; do
    echo "#EXT-X-STREAM-INF:BANDWIDTH=$((rates[index] * 1000)),RESOLUTION=640x360"
    echo "v$index/index.m3u8"
  done
} > "$work/ffmpeg/master.m3u8"

echo "== the ffmpeg ladder, real segment sizes =="
"$hplayer" abr-sim "$traces/norway" "$traces/fcc" --ladder "$work/ffmpeg/master.m3u8"
