#!/usr/bin/env bash
# Builds a Debian package of hplayer, .build/package/hplayer_VERSION_ARCH.deb, and prints its
# path (alone, on stdout). What goes in is what scripts/install.sh installs, staged with
# --prefix /usr; the version is the program's own (`hplayer --version`), the architecture
# dpkg's, and Depends is worked out by dpkg-shlibdeps from the libraries the binary links, and
# for the two it opens with dlopen (libavfilter, libavdevice), from the packages that hold them.
#
#   scripts/package-deb.sh
#
# Recommends fonts-dejavu-core: the on-screen display's font, opened by path (the player runs
# without it, with no on-screen text), which no library dependency brings.
# DEBFULLNAME and DEBEMAIL, where set, name the maintainer (as for Debian's own tools).
set -euo pipefail
cd "$(dirname "$0")/.."
# Files and folders readable by all in the package, whatever the builder's umask.
umask 022

for argument in "$@"; do
  case "$argument" in
    -h|--help) sed -n '2,11s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "package-deb: unknown option '$argument' (usage: scripts/package-deb.sh)" >&2; exit 2 ;;
  esac
done
for tool in dpkg-deb dpkg-shlibdeps; do
  command -v "$tool" >/dev/null || { echo "package-deb: needs $tool (apt-get install dpkg-dev)" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stage="$work/root"
DESTDIR="$stage" scripts/install.sh --prefix /usr >&2
binary="$stage/usr/bin/hplayer"

version=$(XDG_CONFIG_HOME="$work" "$binary" --version | awk '$1 == "hplayer" {print $2}')
[[ "$version" =~ ^[0-9][A-Za-z0-9.+~-]*$ ]] || { echo "package-deb: no version in 'hplayer --version'" >&2; exit 1; }
architecture=$(dpkg --print-architecture)

# dpkg-shlibdeps reads the package's debian/control: a minimal one, in a folder of its own. It
# gives each library's package with the lowest version whose symbols the binary uses.
mkdir -p "$work/source/debian"
printf 'Source: hplayer\n\nPackage: hplayer\nArchitecture: any\n' >"$work/source/debian/control"
depends=$(cd "$work/source" && dpkg-shlibdeps -O "$binary" 2>"$work/shlibdeps.log") \
  || { cat "$work/shlibdeps.log" >&2; exit 1; }
depends=${depends#shlibs:Depends=}
[ -n "$depends" ] || { echo "package-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
# Opened with dlopen, so not among the binary's links: libavfilter for a speed other than 1x,
# libavdevice for capture devices and lavfi inputs. Their sonames' packages, the versions the
# build had.
for library in libavfilter libavdevice; do
  package=$(dpkg -S "*/$library.so.[0-9]*" 2>/dev/null | head -1 | cut -d: -f1 || true)
  [ -n "$package" ] || { echo "package-deb: no package holds $library" >&2; exit 1; }
  depends="$depends, $package (>= $(dpkg-query -W -f='${Version}' "$package:$architecture"))"
done

maintainer_name=${DEBFULLNAME:-$(git config user.name 2>/dev/null || echo "HPlayer maintainers")}
maintainer_email=${DEBEMAIL:-$(git config user.email 2>/dev/null || echo "hplayer@localhost")}
mkdir "$stage/DEBIAN"
cat >"$stage/DEBIAN/control" <<EOF
Package: hplayer
Version: $version
Architecture: $architecture
Maintainer: $maintainer_name <$maintainer_email>
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Depends: $depends
Recommends: fonts-dejavu-core
Section: video
Priority: optional
Description: media player for Linux with an mpv-compatible command line
 HPlayer plays video and audio files, URLs, HLS streams, folders and playlists
 in a window with sound (SDL2), decoding with FFmpeg. Its options, keys,
 configuration files and JSON IPC follow mpv's, so scripts written for mpv
 drive it too.
EOF
(cd "$stage" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$stage/DEBIAN/md5sums"

mkdir -p .build/package
deb=".build/package/hplayer_${version}_${architecture}.deb"
# --root-owner-group: the files are root's in the package, whoever built it.
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "package-deb: $deb, $(du -k "$deb" | cut -f1) KiB; Depends: $depends" >&2
echo "$deb"
