#!/usr/bin/env bash
# The engine's speed and weight against FFmpeg and mpv, measured in one run on one clip:
#   1. throughput with no clock: `hplayer bench` vs `ffmpeg -threads 0 -i X -f null -` (wall, CPU)
#   2. playback at 1x to null outputs: `hplayer play` vs `mpv --no-config --vo=null --ao=null`
#      (CPU seconds, peak resident memory)
# Runs alternate between the players; figures are medians. Needs mpv for part 2 (skipped without).
# Usage: bench/engine.sh [RUNS] [SECONDS]    (defaults: 5 runs, a 30 s 1080p30 H.264 + AAC clip)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
seconds=${2:-30}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source bench/common.sh

swift build -c release >/dev/null
hplayer=.build/release/hplayer
clip="$work/1080p30.mp4"
make_1080p_clip "$clip" "$seconds"

echo "clip: 1080p30 H.264 ($(describe_clip "$clip")) + AAC, $seconds s; $runs runs each, alternating; $(nproc) cores"
echo
: >"$work/hp-bench"; : >"$work/ff-null"
for _ in $(seq "$runs"); do
  measure "$hplayer" bench "$clip" >>"$work/hp-bench"
  measure ffmpeg -v error -threads 0 -i "$clip" -f null - >>"$work/ff-null"
done
hp_wall=$(column 1 "$work/hp-bench"); ff_wall=$(column 1 "$work/ff-null")
hp_cpu=$(column 2 "$work/hp-bench"); ff_cpu=$(column 2 "$work/ff-null")
echo "throughput, no clock           wall s   cpu s"
printf "  hplayer bench              %7.2f %7.2f\n" "$hp_wall" "$hp_cpu"
printf "  ffmpeg -threads 0 -f null  %7.2f %7.2f\n" "$ff_wall" "$ff_cpu"
echo "  hplayer / ffmpeg: wall $(ratio "$hp_wall" "$ff_wall"), cpu $(ratio "$hp_cpu" "$ff_cpu")   (target: wall within 1.10)"
echo

if command -v mpv >/dev/null; then
  play_runs=$(( runs < 3 ? runs : 3 ))
  : >"$work/hp-play"; : >"$work/mpv-play"
  for _ in $(seq "$play_runs"); do
    measure "$hplayer" play "$clip" --vo null --ao null --no-status >>"$work/hp-play"
    measure mpv --no-config --really-quiet --vo=null --ao=null "$clip" >>"$work/mpv-play"
  done
  hp_cpu=$(column 2 "$work/hp-play"); mpv_cpu=$(column 2 "$work/mpv-play")
  hp_rss=$(column 3 "$work/hp-play"); mpv_rss=$(column 3 "$work/mpv-play")
  echo "playback at 1x, null outputs   cpu s   peak RSS MiB   ($play_runs runs each)"
  printf "  hplayer play               %7.2f %9.1f\n" "$hp_cpu" "$(mib "$hp_rss")"
  printf "  mpv --vo=null --ao=null    %7.2f %9.1f\n" "$mpv_cpu" "$(mib "$mpv_rss")"
  echo "  hplayer / mpv: cpu $(ratio "$hp_cpu" "$mpv_cpu"), memory $(ratio "$hp_rss" "$mpv_rss")   (target: cpu at most 1.00)"
else
  echo "playback at 1x: mpv is not installed, skipped"
fi
