# Helpers the benchmarks share. Sourced; expects $work (a scratch folder).

# The fault server (scripts/fault-server.py) over $work/www: `serve_faults LOG [OPTIONS...]`
# (re)starts it with those options, logging to LOG, and sets $base to its URL; `stop_server`
# stops it (each script's EXIT trap calls it).
server=""
serve_faults() {
  stop_server
  python3 scripts/fault-server.py --root "$work/www" --log "$1" "${@:2}" >"$work/port" 2>/dev/null &
  server=$!
  for _ in $(seq 100); do grep -q PORT "$work/port" 2>/dev/null && break; sleep 0.05; done
  base="http://127.0.0.1:$(awk '/PORT/ {print $2}' "$work/port")"
}
stop_server() { [ -z "$server" ] || { kill -9 "$server"; wait "$server"; } 2>/dev/null || true; server=""; }

# Builds hplayer as it would ship, optimized with Swift's runtime linked in (one binary, no
# Swift libraries to load at start: 3 MiB less resident, a faster start), and sets $hplayer.
build_release() {
  swift build -c release --static-swift-stdlib --build-path .build/bench --product hplayer >/dev/null
  hplayer=.build/bench/release/hplayer
}

# $hplayer made to fetch everything over the network: its disk cache would serve every run
# after the first. Call after build_release.
use_uncached_hplayer() {
  printf '#!/bin/sh\nexec "%s" --cache=no "$@"\n' "$PWD/$hplayer" >"$work/hplayer-uncached"
  chmod +x "$work/hplayer-uncached"
  hplayer="$work/hplayer-uncached"
}

# `serve_logged [OPTIONS...]`: the fault server anew, logging to a fresh $log.
serve_logged() {
  log="$work/requests-$RANDOM.jsonl"
  serve_faults "$log" "$@"
}

# The body bytes a fault server's log says it sent.
fetched_bytes() { python3 -c "import json,sys; print(sum(json.loads(l)['bytes'] for l in open(sys.argv[1])))" "$1"; }

# A table row: a figure for hplayer, for the peer, and their ratio.
ratio_row() { printf "  %-44s %9s %9s %7s\n" "$1" "$2" "$3" "$(ratio "$2" "$3")"; }

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

# Makes an HLS ladder in folder $1: $2 seconds of noisy 640x360 video, one variant per bit rate
# (kb/s) in the rest of the arguments, capped VBR, 4 s segments each starting on a key frame;
# DIR/master.m3u8 lists them, lowest first. With ABR_FORMAT=dash, the same ladder as one DASH
# AdaptationSet instead (SegmentTemplate with a SegmentTimeline), DIR/manifest.mpd.
make_abr_ladder() {
  local folder=$1 seconds=$2
  shift 2
  local rates=("$@") args=() index rate
  local split="[0:v]split=${#rates[@]}$(printf '[s%d]' "${!rates[@]}")"
  local encoding=(-c:v libx264 -preset veryfast -g 100 -keyint_min 100 -sc_threshold 0)
  for index in "${!rates[@]}"; do
    rate=${rates[$index]}
    if [ "${ABR_FORMAT:-hls}" = dash ]; then
      args+=(-map "[s$index]" "-b:v:$index" "${rate}k" "-maxrate:v:$index" "$((rate * 3 / 2))k" "-bufsize:v:$index" "$((rate * 2))k")
    else
      mkdir -p "$folder/v$index"
      args+=(-map "[s$index]" "${encoding[@]}" -b:v "${rate}k" -maxrate "$((rate * 3 / 2))k" -bufsize "$((rate * 2))k"
             -f hls -hls_time 4 -hls_playlist_type vod -hls_segment_filename "$folder/v$index/%03d.ts" "$folder/v$index/index.m3u8")
    fi
  done
  if [ "${ABR_FORMAT:-hls}" = dash ]; then
    mkdir -p "$folder"
    args+=("${encoding[@]}" -f dash -seg_duration 4 -use_template 1 -use_timeline 1 -adaptation_sets "id=0,streams=v" "$folder/manifest.mpd")
  fi
  ffmpeg -v error -f lavfi -i "testsrc2=size=640x360:rate=25:duration=$seconds,noise=alls=14:allf=t" -filter_complex "$split" "${args[@]}"
  [ "${ABR_FORMAT:-hls}" = dash ] && return
  {
    echo "#EXTM3U"
    for index in "${!rates[@]}"; do
      echo "#EXT-X-STREAM-INF:BANDWIDTH=$((rates[index] * 1000)),RESOLUTION=640x360"
      echo "v$index/index.m3u8"
    done
  } > "$folder/master.m3u8"
}
