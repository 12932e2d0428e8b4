#!/usr/bin/env bash
# The installation test. First scripts/install.sh into a scratch prefix: every file in place,
# the completions load, the installed binary runs, man finds the page. Then the Debian package
# (scripts/package-deb.sh) installed on this machine with dpkg -i: /usr/bin/hplayer --version
# runs, `man -w hplayer` finds the page, desktop-file-validate passes the .desktop file; then
# dpkg -r, and every file it had installed is gone. As root, or as a user with sudo. Whatever
# fails, the package is taken off again, so the machine is left as it was.
#
# Skipped for the package (said so, and not a failure) where hplayer is already installed here,
# by dpkg or otherwise: the test would replace it, then remove it.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 0 ] || { echo "package-test: unknown argument '$1' (it takes none)" >&2; exit 2; }
sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
fail() { echo "package-test: FAILED: $*" >&2; exit 1; }

# dpkg-shlibdeps (the package's Depends), man and desktop-file-validate: setup.sh --for-tests installs them.
for tool in dpkg-shlibdeps man desktop-file-validate; do
  command -v "$tool" >/dev/null || fail "$tool is missing: ./scripts/setup.sh --for-tests installs it"
done

work=$(mktemp -d)
installed=""
cleanup() {
  if [ -n "$installed" ]; then
    $sudo dpkg --purge hplayer >/dev/null 2>&1 || echo "package-test: could not remove the package: dpkg --purge hplayer" >&2
  fi
  rm -rf "$work"
}
trap cleanup EXIT
# Interrupted: exit, so that the EXIT trap takes the package off.
trap 'exit 130' INT TERM

echo "-- scripts/install.sh --prefix (a scratch folder)"
prefix="$work/prefix"
scripts/install.sh --prefix "$prefix"
for file in bin/hplayer share/man/man1/hplayer.1.gz share/bash-completion/completions/hplayer \
  share/zsh/site-functions/_hplayer share/fish/vendor_completions.d/hplayer.fish \
  share/applications/hplayer.desktop share/icons/hicolor/scalable/apps/hplayer.svg; do
  [ -s "$prefix/$file" ] || fail "install.sh --prefix left no $file"
done
"$prefix/bin/hplayer" --version | grep -q '^hplayer [0-9]' || fail "the installed binary did not run"
# Each completion script knows play's options (read from the command-line definitions).
for file in share/bash-completion/completions/hplayer share/zsh/site-functions/_hplayer share/fish/vendor_completions.d/hplayer.fish; do
  grep -q 'loop-playlist' "$prefix/$file" || fail "$file does not complete --loop-playlist"
done
bash -c 'source "$1" && complete -p hplayer' _ "$prefix/share/bash-completion/completions/hplayer" >/dev/null \
  || fail "the bash completion does not load"
[ "$(MANPATH="$prefix/share/man" man -w hplayer)" = "$prefix/share/man/man1/hplayer.1.gz" ] || fail "man does not find the page under the prefix"
man -l "$prefix/share/man/man1/hplayer.1.gz" 2>&1 | grep -q 'SYNOPSIS' || fail "the man page does not render"
echo "install.sh: every file in place, the binary runs, the completions and the man page work"

owner=$(dpkg-query -W -f='${db:Status-Status}' hplayer 2>/dev/null || true)
if [ -n "$owner" ] && [ "$owner" != not-installed ]; then
  echo "package-test: the package is skipped: hplayer is installed here already (dpkg: $owner), and the test would remove it"
  exit 0
elif [ -e /usr/bin/hplayer ]; then
  echo "package-test: the package is skipped: /usr/bin/hplayer is there already, from no package"
  exit 0
fi

echo "-- scripts/package-deb.sh"
deb=$(scripts/package-deb.sh)
echo "package: $deb, $(du -k "$deb" | cut -f1) KiB"
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {sub(/^\./, "", $6); print $6}' >"$work/files"

echo "-- dpkg -i"
installed=yes
$sudo dpkg -i "$deb" >/dev/null || fail "dpkg -i"
[ "$(dpkg-query -W -f='${db:Status-Status}' hplayer)" = installed ] || fail "dpkg does not have hplayer installed"
/usr/bin/hplayer --version | grep -q '^hplayer [0-9]' || fail "/usr/bin/hplayer --version"
# A container's dpkg may be set to leave man pages out (path-exclude in dpkg.cfg.d).
if grep -rqs '^path-exclude=/usr/share/man' /etc/dpkg/dpkg.cfg.d/; then
  echo "package-test: man -w not checked: dpkg here is set to leave /usr/share/man out"
else
  man -w -a hplayer | grep -qx /usr/share/man/man1/hplayer.1.gz || fail "man -w hplayer does not find /usr/share/man/man1/hplayer.1.gz"
fi
validation=$(desktop-file-validate /usr/share/applications/hplayer.desktop 2>&1) && [ -z "$validation" ] \
  || fail "desktop-file-validate: $validation"
while read -r file; do [ -e "$file" ] || fail "dpkg -i did not install $file"; done <"$work/files"
echo "installed: /usr/bin/hplayer runs, man finds its page, the desktop file validates"

echo "-- dpkg -r"
$sudo dpkg -r hplayer >/dev/null || fail "dpkg -r"
installed=""
status=$(dpkg-query -W -f='${db:Status-Status}' hplayer 2>/dev/null || true)
[ -z "$status" ] || [ "$status" = not-installed ] || fail "dpkg has hplayer as '$status' after dpkg -r"
while read -r file; do [ ! -e "$file" ] || fail "$file is still there after dpkg -r"; done <"$work/files"
! man -w -a hplayer 2>/dev/null | grep -qx /usr/share/man/man1/hplayer.1.gz || fail "man still finds the page"
echo "removed: every file the package installed is gone"
