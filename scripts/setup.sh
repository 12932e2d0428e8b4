#!/usr/bin/env bash
# Installs what HPlayer needs on Debian 12 that is not there yet: FFmpeg 5.1's and SDL2's
# development libraries, libcurl (every network byte), SQLite (the disk cache's index), libxml2 (DASH manifests), libass (subtitles), libpulse
# (to ask the sound server its latency), libdbus (MPRIS: media keys and the desktop's media
# controls), a font for the on-screen display, and the ffmpeg tool.
# With --for-tests, also what the tests drive and measure with: an X server, a sound server, X
# tools, mpv to compare with, nginx and openssl (the tests' own web server and certificate), nginx's RTMP module, and
# what the benchmark harness and the fault-injecting server run on (GNU time, Python), a D-Bus
# daemon and playerctl (the MPRIS tests), and what the package test checks with.
set -euo pipefail

packages=(
  pkg-config
  libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev libavfilter-dev
  libsdl2-dev libsdl2-ttf-dev libpulse-dev fonts-dejavu-core libcurl4-openssl-dev ca-certificates
  libsqlite3-dev libdbus-1-dev libxml2-dev libass-dev
  ffmpeg
)
if [ "${1:-}" = "--for-tests" ]; then
  packages+=(xvfb x11-utils xdotool imagemagick pulseaudio pulseaudio-utils mpv time python3 nginx-light openssl
    dbus-daemon playerctl desktop-file-utils man-db dpkg-dev libnginx-mod-rtmp binutils)
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
  # No service is started by the install (nginx): the tests start their own, on free ports.
  blocker=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee /usr/sbin/policy-rc.d >/dev/null
    $sudo chmod +x /usr/sbin/policy-rc.d
    blocker=yes
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  [ -n "$blocker" ] && $sudo rm -f /usr/sbin/policy-rc.d
fi

command -v swift >/dev/null || { echo "setup: the Swift toolchain is not on PATH" >&2; exit 1; }
