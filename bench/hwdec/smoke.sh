#!/bin/bash
# The device harness run here, so that it does not rot where no GPU is: packs the debug build
# (pack.py's stubs then stand in for the real libraries), makes two small HEVC clips and their
# references as prepare.sh does, and runs measure.py once over them; --hwdec=nvdec falls back.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
swift build --product hplayer >/dev/null
HWDEC_XZ_PRESET=0 python3 bench/hwdec/pack.py .build/debug/hplayer "$work/hplayer.tar.xz" 2>&1 | cut -c1-100
for depth in 8bit:yuv420p:nv12 10bit:yuv420p10le:p010le; do
  IFS=: read -r name cpu gpu <<<"$depth"
  ffmpeg -v error -f lavfi -i testsrc2=size=320x180:rate=30:duration=1 -c:v libx265 -x265-params log-level=error \
    -pix_fmt "$cpu" "$work/hevc-2160p-$name.mp4"
  ffmpeg -v error -i "$work/hevc-2160p-$name.mp4" -f framemd5 "$work/ref-$name-sw.md5"
  ffmpeg -v error -i "$work/hevc-2160p-$name.mp4" -pix_fmt "$gpu" -f framemd5 "$work/ref-$name-hw.md5"
done
mkdir "$work/out"
HWDEC_SMOKE=1 timeout 300 python3 bench/hwdec/measure.py "$work" "$work/out"
