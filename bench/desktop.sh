#!/usr/bin/env bash
# The desktop player's cost against mpv and ffplay, measured in one run on one clip: a 1080p30
# H.264 + AAC clip played to its end in a 1280x720 window on an X server, with sound to PulseAudio
# (Xvfb and a PulseAudio null sink are started when none is running, as the tests do).
#   hplayer FILE  vs  mpv --no-config --vo=sdl --ao=pulse FILE  vs  ffplay -autoexit FILE
# CPU seconds (user + system) and peak resident memory of the player process; the X server's own
# drawing is not counted, for any of them. Runs alternate between the players; figures are medians.
# Usage: bench/desktop.sh [RUNS] [SECONDS]    (defaults: 3 runs, a 30 s clip)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
seconds=${2:-30}
work=$(mktemp -d)
source bench/common.sh
source scripts/test-servers.sh
start_test_servers
trap 'stop_test_servers; rm -rf "$work"' EXIT

build_release
clip="$work/1080p30.mp4"
make_1080p_clip "$clip" "$seconds"

echo "clip: 1080p30 H.264 ($(describe_clip "$clip")) + AAC, $seconds s, in a 1280x720 window on $DISPLAY (Xvfb), sound to PulseAudio; $runs runs each, alternating; $(nproc) cores"
: >"$work/hplayer"; : >"$work/mpv"; : >"$work/ffplay"
for _ in $(seq "$runs"); do
  measure "$hplayer" "$clip" --no-status --geometry 1280x720+0+0 >>"$work/hplayer"
  measure mpv --no-config --really-quiet --vo=sdl --ao=pulse --geometry=1280x720+0+0 "$clip" >>"$work/mpv"
  measure ffplay -v error -autoexit -left 0 -top 0 -x 1280 -y 720 "$clip" >>"$work/ffplay"
done
mpv_cpu=$(column 2 "$work/mpv"); mpv_rss=$(column 3 "$work/mpv")
echo
echo "                                  wall s   cpu s   peak RSS MiB   cpu / mpv   memory / mpv"
for player in hplayer mpv ffplay; do
  wall=$(column 1 "$work/$player"); cpu=$(column 2 "$work/$player"); rss=$(column 3 "$work/$player")
  printf "  %-30s %7.2f %7.2f %10s %11s %13s\n" "$player" "$wall" "$cpu" "$(mib "$rss")" "$(ratio "$cpu" "$mpv_cpu")" "$(ratio "$rss" "$mpv_rss")"
done
