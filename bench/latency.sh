#!/usr/bin/env bash
# Live latency on localhost: a clip streamed in real time over TCP and UDP by the project's own
# sender (scripts/live-sender.py, which logs when each picture leaves), played by hplayer in live
# mode and with a file's buffering (--no-live); latency = presented - sent (bench/latency.py).
#
#   bench/latency.sh [RUNS]      1280x720 at 30 fps, 10 s, video only and with sound
#   bench/latency.sh --smoke     one run of a 3 s clip, so the harness does not rot
#
# Not measured here yet: ffplay and mpv (neither logs when it presents a picture; a capture of
# the screen would), and RTMP (the sender would have to log through nginx-rtmp).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source bench/common.sh

runs=${1:-3}
seconds=10
size=1280x720
if [ "$runs" = --smoke ]; then runs=1; seconds=3; size=320x180; fi
build_release

# Key frames each second, no B-frames, x264's zerolatency; the TS muxer neither delays nor
# groups the sound (each AAC frame its own PES), so the sender's pacing is the stream's.
encode() {
  local out=$1
  shift
  ffmpeg -v error -y -f lavfi -i "testsrc2=size=$size:rate=30:duration=$seconds" "$@" \
    -c:v libx264 -preset veryfast -tune zerolatency -g 30 -bf 0 -pix_fmt yuv420p \
    -muxdelay 0 -muxpreload 0 -pes_payload_size 0 -f mpegts "$out"
}
encode "$work/video.ts"
encode "$work/sound.ts" -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=$seconds" -c:a aac

echo "== $size at 30 fps, video only =="
python3 bench/latency.py "$hplayer" "$work/video.ts" --runs "$runs"
echo "== $size at 30 fps, with sound (the audio clock leads) =="
python3 bench/latency.py "$hplayer" "$work/sound.ts" --runs "$runs"
