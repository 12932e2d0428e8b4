# Helpers the benchmarks share. Sourced; expects $work (a scratch folder).

# Builds hplayer as it would ship, optimized with Swift's runtime linked in (one binary, no
# Swift libraries to load at start: 3 MiB less resident, a faster start), and sets $hplayer.
build_release() {
  swift build -c release --static-swift-stdlib --build-path .build/bench --product hplayer >/dev/null
  hplayer=.build/bench/release/hplayer
}

# Makes a 1080p30 H.264 (6 Mb/s, noisy so it is not trivial to decode) + AAC clip of $2 seconds at $1.
make_1080p_clip() {
  ffmpeg -v error -y -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=$2,noise=alls=12:allf=t" \
    -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=$2" \
    -c:v libx264 -preset veryfast -b:v 6M -g 60 -pix_fmt yuv420p -c:a aac -b:a 128k -shortest "$1"
}
describe_clip() { ffprobe -v error -show_entries format=bit_rate -of csv=p=0 "$1" | awk '{printf "%.1f Mb/s", $1/1e6}'; }

# Prints "wall user+sys maxrss_kib" for a command.
measure() { /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >/dev/null 2>"$work/stderr" </dev/null || { cat "$work/stderr" >&2; return 1; }
            awk '{printf "%.3f %.3f %d\n", $1, $2 + $3, $4}' "$work/time"; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
column() { awk -v c="$1" '{print $c}' "$2" | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}'; }
mib() { awk -v k="$1" 'BEGIN {printf "%.1f", k / 1024}'; }
