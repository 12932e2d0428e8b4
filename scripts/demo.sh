#!/usr/bin/env bash
# Sets up, builds and plays the bundled demo clip in a window with sound. With no display or no
# sound device it says so in a line and plays without them (headless: the status line only).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
swift build -c release
exec .build/release/hplayer demo/demo.mp4 "$@"
