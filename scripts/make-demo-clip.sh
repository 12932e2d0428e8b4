#!/usr/bin/env bash
# Makes demo/demo.mp4, the clip `hplayer` plays out of the box: 6 s of a moving test pattern with
# a clock, and a tone that beeps each second (H.264 + AAC, 480x270, a few hundred KB).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p demo
ffmpeg -v error -y \
  -f lavfi -i "testsrc2=size=480x270:rate=30:duration=6" \
  -f lavfi -i "sine=frequency=440:beep_factor=4:sample_rate=48000:duration=6" \
  -c:v libx264 -preset slow -crf 30 -pix_fmt yuv420p -g 60 \
  -c:a aac -b:a 64k -ac 2 -movflags +faststart \
  -metadata title="HPlayer demo" demo/demo.mp4
ls -l demo/demo.mp4
