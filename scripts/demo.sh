#!/usr/bin/env bash
# Sets up, builds and plays the bundled demo clip. With no display or sound device (and until
# the window and speaker outputs land) it plays to the null outputs with the status line.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
swift build -c release
exec .build/release/hplayer demo/demo.mp4 "$@"
