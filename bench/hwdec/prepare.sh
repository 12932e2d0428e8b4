#!/bin/bash
# Makes .hw/ for bench/hwdec/measure.py on the device machine: a release hplayer with the libraries
# it loads (pack.py), two 4K HEVC clips (8-bit and 10-bit, 30 fps, noise as bench/compare.sh's)
# and FFmpeg's framemd5 of each, decoded in software here, in the CPU's and in the GPU's formats.
# Then, on the device: python3 bench/hwdec/measure.py .hw "$OUT"  (carry .hw).
# Arguments go to pack.py (--before OTHER_BUILD to compare two builds).
set -euo pipefail
cd "$(dirname "$0")/../.."
grep -qx '/.hw/' .git/info/exclude || echo /.hw/ >>.git/info/exclude
mkdir -p .hw
swift build -c release --static-swift-stdlib --build-path .build/bench --product hplayer
python3 bench/hwdec/pack.py .build/bench/release/hplayer .hw/hplayer.tar.xz "$@"  # measure.py unpacks it there
# 13 and 7.5 MiB: with the 34 MiB pack (39 with --before) and the repository, within the 64 MiB a
# device call takes.
seconds=${HWDEC_SECONDS:-4}
clip() {  # name, seconds, pixel format
  [ -s ".hw/$1" ] || ffmpeg -v error -y -f lavfi -i "testsrc2=size=3840x2160:rate=30:duration=$2,noise=alls=8:allf=t" \
    -c:v libx265 -preset ultrafast -x265-params log-level=error -b:v 20M -pix_fmt "$3" ".hw/$1"
}
clip hevc-2160p-8bit.mp4 "$seconds" yuv420p
clip hevc-2160p-10bit.mp4 3 yuv420p10le
# NVDEC's pictures come down as NV12 and P010: the software pictures converted to those (a lossless
# reordering and shift; checked by converting back) are what they must equal.
for depth in 8bit:nv12:yuv420p 10bit:p010le:yuv420p10le; do
  IFS=: read -r name gpu cpu <<<"$depth"
  ffmpeg -v error -y -i ".hw/hevc-2160p-$name.mp4" -an -f framemd5 ".hw/ref-$name-sw.md5"
  ffmpeg -v error -y -i ".hw/hevc-2160p-$name.mp4" -an -pix_fmt "$gpu" -f framemd5 ".hw/ref-$name-hw.md5"
  ffmpeg -v error -y -i ".hw/hevc-2160p-$name.mp4" -an -vf "format=$gpu,format=$cpu" -f framemd5 ".hw/round-trip.md5"
  cmp -s <(grep -v '^#' ".hw/ref-$name-sw.md5") <(grep -v '^#' .hw/round-trip.md5) \
    || { echo "prepare.sh: $cpu -> $gpu -> $cpu is not lossless" >&2; exit 1; }
  rm .hw/round-trip.md5
done
# H.264 4:2:2, which NVDEC does not decode: alone, and after a 4:2:0 part it does. The references
# are the 4:2:0 part as NVDEC gives it (NV12) and the 4:2:2 part as software does.
part() {  # file, pixel format, hue
  ffmpeg -v error -y -f lavfi -i "testsrc2=size=640x360:rate=30:duration=1,hue=h=$3" -c:v libx264 -g 15 -bf 2 \
    -pix_fmt "$2" -f h264 "$1"
}
part .hw/part-420.h264 yuv420p 0
part .hw/fallback-422.h264 yuv422p 90
cat .hw/part-420.h264 .hw/fallback-422.h264 >.hw/fallback-420-then-422.h264
ffmpeg -v error -y -i .hw/fallback-422.h264 -f framemd5 .hw/fallback-422.md5
{ ffmpeg -v error -i .hw/part-420.h264 -pix_fmt nv12 -f framemd5 - | grep -v '^#'; grep -v '^#' .hw/fallback-422.md5; } \
  >.hw/fallback-420-then-422.md5
# The same in software: the pictures after the last key frame before the change are decoded again.
{ ffmpeg -v error -i .hw/part-420.h264 -f framemd5 - | grep -v '^#'; grep -v '^#' .hw/fallback-422.md5; } \
  >.hw/fallback-420-then-422.sw.md5
rm .hw/part-420.h264
du -sh .hw
