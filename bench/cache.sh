#!/usr/bin/env bash
# The disk cache against a local file and the network, the same run, alternating; medians.
#   1. CPU (user+sys) and peak RSS playing a 20 s 720p H.264 MP4 at 1x, null outputs: from the
#      local file, and from its URL entirely cached (the server stopped: not one request)
#   2. time to first frame (process start to the "playback restart" log line): the local file,
#      and the URL from the cache
#   3. peak RSS while caching a large progressive download (a 100 s 1080p MP4 at ~20 Mb/s):
#      `hplayer cache prefetch` and playing it untimed through the cache, against the same play
#      with --cache=no: the cache streams to disk, so memory stays flat
# Usage: bench/cache.sh [RUNS]      (default 5; release build, Swift runtime linked in)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
work=$(mktemp -d)
source bench/common.sh
trap 'stop_server; rm -rf "$work"' EXIT
for tool in ffmpeg python3; do command -v "$tool" >/dev/null || { echo "bench: needs $tool" >&2; exit 1; }; done
build_release

echo "making the media..." >&2
mkdir -p "$work/www"
ffmpeg -v error -f lavfi -i "testsrc2=size=1280x720:rate=30:duration=20" -f lavfi -i "sine=d=20" \
  -c:v libx264 -preset veryfast -b:v 3M -g 60 -c:a aac -movflags +faststart "$work/www/clip.mp4"
ffmpeg -v error -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=100,noise=alls=12:allf=t" -f lavfi -i "sine=d=100" \
  -c:v libx264 -preset ultrafast -b:v 20M -maxrate 20M -bufsize 20M -g 60 -c:a aac -movflags +faststart "$work/www/large.mp4"

serve() { serve_faults "$work/requests.jsonl"; }
row() { printf "  %-44s %9s %9s %7s\n" "$1" "$2" "$3" "$(ratio "$2" "$3")"; }

serve
url="$base/clip.mp4"
"$hplayer" cache prefetch "$url" --cache-dir "$work/cache" --quiet >/dev/null
stop_server

echo "1. Playing clip.mp4 (20 s 720p) at 1x, null outputs (from the cache, the local file, ratio)"
: >"$work/cached"; : >"$work/local"
for _ in $(seq "$runs"); do
  measure "$hplayer" "$url" --cache-dir "$work/cache" --vo null --ao null --no-status >>"$work/cached"
  measure "$hplayer" "$work/www/clip.mp4" --vo null --ao null --no-status >>"$work/local"
done
row "user+sys CPU, s" "$(column 2 "$work/cached")" "$(column 2 "$work/local")"
row "peak RSS, MiB" "$(mib "$(column 3 "$work/cached")")" "$(mib "$(column 3 "$work/local")")"
echo

echo "2. Time to first frame, null outputs, s (from the cache, the local file, difference)"
: >"$work/cached"; : >"$work/local"
for _ in $(seq "$runs"); do
  bench/measure_ipc.py first-frame "playback restart complete" -- "$hplayer" -v "$url" --cache-dir "$work/cache" \
    --vo null --ao null --no-status >>"$work/cached"
  bench/measure_ipc.py first-frame "playback restart complete" -- "$hplayer" -v "$work/www/clip.mp4" \
    --vo null --ao null --no-status >>"$work/local"
done
cached=$(median <"$work/cached"); local_first=$(median <"$work/local")
printf "  %-44s %9s %9s %7s\n" "first frame" "$cached" "$local_first" "$(awk -v a="$cached" -v b="$local_first" 'BEGIN {printf "%+.3f", a - b}')"
echo

size=$(wc -c <"$work/www/large.mp4")
echo "3. Peak RSS caching large.mp4 ($(awk -v s="$size" 'BEGIN {printf "%.0f MiB", s / 1048576}'), $(describe_clip "$work/www/large.mp4")), MiB"
serve
rm -rf "$work/cache-large"
measure "$hplayer" cache prefetch "$base/large.mp4" --cache-dir "$work/cache-large" --quiet >"$work/prefetch"
rm -rf "$work/cache-large"
measure "$hplayer" "$base/large.mp4" --cache-dir "$work/cache-large" --vo null --ao null --untimed --no-status >"$work/cached"
measure "$hplayer" "$base/large.mp4" --cache=no --vo null --ao null --untimed --no-status >"$work/uncached"
printf "  %-44s %9s\n" "hplayer cache prefetch" "$(mib "$(column 3 "$work/prefetch")")"
row "playing untimed (cached as it plays, --cache=no)" "$(mib "$(column 3 "$work/cached")")" "$(mib "$(column 3 "$work/uncached")")"
printf "  %-44s %9s\n" "cached afterwards, MiB" "$(du -sm "$work/cache-large/data" | awk '{print $1}')"
