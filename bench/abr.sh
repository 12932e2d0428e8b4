#!/usr/bin/env bash
# The HLS bitrate policies over the real throughput traces in ../shared/traces (Norway 3G and FCC
# broadband), by `hplayer abr-sim`, the trace-driven simulator running the real policy code:
#   1. Pensieve's ladder (300 to 4300 kb/s, 4 s segments, 48 segments, each of its rung's size)
#   2. a ladder made here by ffmpeg at the same bit rates (4 s segments, 192 s of noisy picture,
#      capped VBR), whose real segment sizes are downloaded
# Per trace set and policy, the means per session: QoE_lin, bit rate, rebuffer ratio, switches per
# minute and startup delay; and, as a reference, what a player that knew the trace could play
# (--offline). Usage: bench/abr.sh [TRACES_FOLDER]   (default ../shared/traces)
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
"$hplayer" abr-sim "$traces/norway" "$traces/fcc" --offline

echo "making the ffmpeg ladder..." >&2
rates=(300 750 1200 1850 2850 4300)
make_abr_ladder "$work/ffmpeg" 192 "${rates[@]}"

echo "== the ffmpeg ladder, real segment sizes =="
"$hplayer" abr-sim "$traces/norway" "$traces/fcc" --ladder "$work/ffmpeg/master.m3u8" --offline
