#!/usr/bin/env bash
# Builds hplayer as it ships (optimized, the Swift runtime linked in) and installs it under a
# prefix (default /usr/local): the binary, its man page (made from the command-line definitions
# by swift-argument-parser's generate-manual), bash, zsh and fish completions, the .desktop file
# and the icon.
#
#   scripts/install.sh [--prefix DIR]
#
# DESTDIR (from the environment, as with make install) is put before every installed path, for
# staging: scripts/package-deb.sh installs with --prefix /usr into its package tree this way.
# Where the destination is not writable (and not root), the copying is done with sudo; the
# build never is, so that .build stays the user's.
set -euo pipefail
cd "$(dirname "$0")/.."
# The folders made are readable by all, whatever the installer's umask.
umask 022

prefix=/usr/local
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) [ $# -ge 2 ] || { echo "install: --prefix needs a folder" >&2; exit 2; }; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    -h|--help) sed -n '2,12s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "install: unknown option '$1' (usage: scripts/install.sh [--prefix DIR])" >&2; exit 2 ;;
  esac
done
case "$prefix" in /*) ;; *) echo "install: --prefix must be an absolute path, got '$prefix'" >&2; exit 2 ;; esac
prefix=${prefix%/}
destdir=${DESTDIR:-}
root="$destdir$prefix"

work=$(mktemp -d)
# A build that fails says so here: build_release keeps swift build's output (and so its errors) off.
step=""
trap 'code=$?; rm -rf "$work"; [ "$code" -eq 0 ] || [ -z "$step" ] || echo "install: $step failed" >&2' EXIT

# The same build as the benchmark's (bench/common.sh), so that one made for it is used as it is.
source bench/common.sh
echo "install: building hplayer (release, Swift runtime linked in)..." >&2
step="the release build (for its errors: swift build -c release --static-swift-stdlib --build-path .build/bench --product hplayer)"
build_release
# generate-manual built from the checked-out swift-argument-parser, in the same build folder and
# with the same flags, so that only the tool itself compiles. (Its command plugin,
# `swift package generate-manual`, builds every product again first: in .build/release, without
# the runtime linked in; and the page it makes is the same.)
step="building generate-manual"
swift build -c release --static-swift-stdlib --build-path .build/bench --product generate-manual >/dev/null
step=""
generate_manual=.build/bench/release/generate-manual

# hplayer reads $XDG_CONFIG_HOME/hplayer/hplayer.conf for play's options: an empty one here, so
# that the user's settings cannot change the help and completions that are generated.
mkdir "$work/config" "$work/man"
export XDG_CONFIG_HOME="$work/config"
# The page is dated by the last commit, so that building the same source again gives the same page.
date=$(git log -1 --format=%cs 2>/dev/null || date -u +%F)
"$generate_manual" "$hplayer" --date "$date" --output-directory "$work/man" >/dev/null
[ -s "$work/man/hplayer.1" ] || { echo "install: generate-manual made no hplayer.1" >&2; exit 1; }
# gzip -n: no name or time stamp in the .gz, again so that a rebuild is the same byte for byte.
gzip -9n "$work/man/hplayer.1"
for shell in bash zsh fish; do
  "$hplayer" --generate-completion-script "$shell" >"$work/completion.$shell"
  [ -s "$work/completion.$shell" ] || { echo "install: no $shell completion script" >&2; exit 1; }
done

# Debian's zsh looks in vendor-completions under /usr, and in site-functions under /usr/local
# (as a zsh built from source does under its own prefix).
zsh_folder=share/zsh/site-functions
[ "$prefix" = /usr ] && zsh_folder=share/zsh/vendor-completions

sudo=""
probe=$root
while [ ! -e "$probe" ]; do probe=$(dirname "$probe"); done
[ -w "$probe" ] || [ "$(id -u)" -eq 0 ] || sudo=sudo

# -s: without the symbol table and debug sections (22 MiB of 83), as a distribution ships it.
$sudo install -D -s -m 755 "$hplayer" "$root/bin/hplayer"
$sudo install -D -m 644 "$work/man/hplayer.1.gz" "$root/share/man/man1/hplayer.1.gz"
$sudo install -D -m 644 "$work/completion.bash" "$root/share/bash-completion/completions/hplayer"
$sudo install -D -m 644 "$work/completion.zsh" "$root/$zsh_folder/_hplayer"
$sudo install -D -m 644 "$work/completion.fish" "$root/share/fish/vendor_completions.d/hplayer.fish"
$sudo install -D -m 644 packaging/hplayer.desktop "$root/share/applications/hplayer.desktop"
$sudo install -D -m 644 packaging/hplayer.svg "$root/share/icons/hicolor/scalable/apps/hplayer.svg"

# Installed for real (not staged): the desktop's MIME cache, so that file managers offer HPlayer
# for the types it plays (a package has dpkg's trigger do this).
if [ -z "$destdir" ] && command -v update-desktop-database >/dev/null; then
  $sudo update-desktop-database -q "$root/share/applications" || true
fi
echo "install: installed hplayer $("$hplayer" --version | awk '{print $2}') under $root" >&2
