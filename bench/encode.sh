#!/usr/bin/env bash
# `hplayer encode` against ffmpeg with the same encoder settings, in one run, alternating; medians.
#   1. a 1080p30 H.264 + AAC clip of 30 s to an MP4 (libx264 at 5 Mb/s, a key frame each 2 s, no
#      scene cuts; AAC 128 kb/s; faststart)
#   2. the same clip to a 3-rendition HLS ladder (1080p 5 Mb/s, 720p 2.8 Mb/s, 360p 0.8 Mb/s, 4 s
#      TS segments): hplayer decodes once and scales three times; against ffmpeg's usual recipe,
#      one ffmpeg per rendition (each decoding the source), and against one ffmpeg that also
#      decodes once (split and scale filters)
# Wall and CPU seconds (user+sys). Target: hplayer no slower than ffmpeg (ratio <= 1.02).
# Usage: bench/encode.sh [RUNS]    (default 3; PRESET=x264 preset, default veryfast)
#        bench/encode.sh --smoke   (a 2 s 320x240 clip, one run, the debug build: CI's check that it runs)
set -euo pipefail
cd "$(dirname "$0")/.."
smoke=""
runs=3
if [ "${1:-}" = "--smoke" ]; then smoke=yes; runs=1; elif [ -n "${1:-}" ]; then runs=$1; fi
preset=${PRESET:-veryfast}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source bench/common.sh
command -v ffmpeg >/dev/null || { echo "bench: needs ffmpeg" >&2; exit 1; }

if [ -n "$smoke" ]; then
  swift build >/dev/null
  hplayer=.build/debug/hplayer
  ffmpeg -v error -f lavfi -i testsrc2=size=320x240:rate=30:duration=2 -f lavfi -i sine=frequency=440:duration=2 \
    -c:v libx264 -preset ultrafast -g 30 -c:a aac "$work/clip.mp4"
  rungs=(240:400 180:200 120:100)
else
  build_release
  echo "making the clip..." >&2
  make_1080p_clip "$work/clip.mp4" 30
  rungs=(1080:5000 720:2800 360:800)
fi
ladder=$(for rung in "${rungs[@]}"; do printf '%sp:%sk,' "${rung%%:*}" "${rung##*:}"; done | sed 's/,$//')
gop=60
video=(-c:v libx264 -preset "$preset" -g "$gop" -x264-params scenecut=0 -pix_fmt yuv420p)
audio=(-c:a aac -b:a 128k)

echo "hplayer encode against ffmpeg, $(date -u +%Y-%m-%d), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)),"
echo "$(ffmpeg -version | head -1 | cut -d' ' -f1-3), x264 preset $preset; $runs runs each, alternating; medians"
echo "source: $(ffprobe -v error -select_streams v:0 -show_entries stream=width,height,r_frame_rate -of csv=p=0 "$work/clip.mp4"), $(describe_clip "$work/clip.mp4")"
echo

row() {
  printf "  %-40s %8.2f / %7.2f %8.2f / %7.2f %8s %8s\n" "$1" "$(column 1 "$2")" "$(column 2 "$2")" "$(column 1 "$3")" "$(column 2 "$3")" \
    "$(ratio "$(column 1 "$2")" "$(column 1 "$3")")" "$(ratio "$(column 2 "$2")" "$(column 2 "$3")")"
}
header() { printf "  %-40s %18s %18s %8s %8s\n" "" "hplayer wall/CPU" "ffmpeg wall/CPU" "wall" "CPU"; }

echo "1. To an MP4 (5 Mb/s)"
: >"$work/hp"; : >"$work/ff"
for _ in $(seq "$runs"); do
  measure "$hplayer" encode --from "$work/clip.mp4" -o "$work/hp.mp4" --preset "$preset" --video-bitrate 5M --keyint "$gop" \
    --audio-bitrate 128k --no-progress --quiet >>"$work/hp"
  measure ffmpeg -v error -y -i "$work/clip.mp4" "${video[@]}" -b:v 5M "${audio[@]}" -movflags +faststart "$work/ff.mp4" >>"$work/ff"
done
header
row "clip → MP4" "$work/hp" "$work/ff"
echo

echo "2. To a ladder ($ladder, 4 s TS segments)"
: >"$work/hp"; : >"$work/ff-each.times"; : >"$work/ff-once.times"
# ffmpeg's usual recipe: one process per rendition, each decoding the source.
per_rendition() {
  for rung in "${rungs[@]}"; do
    height=${rung%%:*} rate=${rung##*:}
    mkdir -p "$work/ff-each/$height"
    ffmpeg -v error -y -i "$work/clip.mp4" -vf "scale=-2:$height" "${video[@]}" -b:v "${rate}k" "${audio[@]}" \
      -f hls -hls_time 4 -hls_playlist_type vod "$work/ff-each/$height/index.m3u8"
  done
}
# One ffmpeg that decodes once: split, scale each, map each to its own HLS output.
decode_once() {
  local split="[0:v]split=${#rungs[@]}$(printf '[s%d]' "${!rungs[@]}")" args=() index
  for index in "${!rungs[@]}"; do
    height=${rungs[$index]%%:*} rate=${rungs[$index]##*:}
    split+=";[s$index]scale=-2:$height[v$index]"
    mkdir -p "$work/ff-once/$height"
    args+=(-map "[v$index]" -map 0:a "${video[@]}" -b:v "${rate}k" "${audio[@]}" -f hls -hls_time 4 -hls_playlist_type vod
           "$work/ff-once/$height/index.m3u8")
  done
  ffmpeg -v error -y -i "$work/clip.mp4" -filter_complex "$split" "${args[@]}"
}
for _ in $(seq "$runs"); do
  rm -rf "$work/hp-ladder"
  measure "$hplayer" encode --from "$work/clip.mp4" --hls "$work/hp-ladder" --ladder "$ladder" --hls-time 4 --keyint "$gop" --preset "$preset" \
    --audio-bitrate 128k --no-progress --quiet >>"$work/hp"
  measure bash -ec "$(declare -f per_rendition); work='$work'; rungs=(${rungs[*]}); video=(${video[*]}); audio=(${audio[*]}); per_rendition" >>"$work/ff-each.times"
  measure bash -ec "$(declare -f decode_once); work='$work'; rungs=(${rungs[*]}); video=(${video[*]}); audio=(${audio[*]}); decode_once" >>"$work/ff-once.times"
done
header
row "ladder, against one ffmpeg per rendition" "$work/hp" "$work/ff-each.times"
row "ladder, against one ffmpeg decoding once" "$work/hp" "$work/ff-once.times"
echo "  decoding once saves, against one ffmpeg per rendition: $(awk -v a="$(column 2 "$work/hp")" -v b="$(column 2 "$work/ff-each.times")" \
  'BEGIN {printf "%.1f CPU s (%.0f %%)", b - a, (b > 0 ? (b - a) / b * 100 : 0)}')"
echo "  target: hplayer's wall and CPU at most 1.02 of ffmpeg's"
