#!/usr/bin/env bash
# Installs what HPlayer needs on Debian 12 that is not there yet: FFmpeg 5.1's and SDL2's
# development libraries, libpulse (to ask the sound server its latency), a font for the
# on-screen display, and the ffmpeg tool. With --for-tests, also what the tests drive and
# measure with: an X server, a sound server, X tools, mpv to compare with, and what the
# benchmark harness runs on (GNU time, Python).
set -euo pipefail

packages=(
  pkg-config
  libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev libavfilter-dev
  libsdl2-dev libsdl2-ttf-dev libpulse-dev fonts-dejavu-core
  ffmpeg
)
if [ "${1:-}" = "--for-tests" ]; then
  packages+=(xvfb x11-utils xdotool imagemagick pulseaudio pulseaudio-utils mpv time python3)
fi

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

command -v swift >/dev/null || { echo "setup: the Swift toolchain is not on PATH" >&2; exit 1; }
