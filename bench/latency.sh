#!/usr/bin/env bash
# Live latency on localhost: a clip streamed in real time over TCP, UDP and RTMP (through
# nginx-rtmp, started here on a free port) by the project's own sender (scripts/live-sender.py,
# which logs when each picture leaves), played by hplayer in live mode and with a file's
# buffering (--no-live), by ffplay with its low-latency flags and by mpv --profile=low-latency;
# latency = presented - sent (bench/latency.py). The clip carries its picture numbers as a
# barcode, read off the X screen (bench/screen_watch.py); hplayer is also measured by its own
# presentation log (--vo record). Xvfb and a PulseAudio null sink are started when none runs.
#
#   bench/latency.sh [RUNS]      1280x720 at 30 fps, 10 s, video only and with sound
#   bench/latency.sh --smoke     one run of a 7 s 320x180 clip, video only, without the
#                                --vo record run of --no-live, each player once over TCP, UDP
#                                and RTMP in turn: so the harness does not rot (7 s: live
#                                mode's RTMP analysis waits 3 s for sound that never comes)
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
source bench/common.sh
source scripts/test-servers.sh
nginx_pid=""
trap '{ [ -z "$nginx_pid" ] || kill "$nginx_pid"; } 2>/dev/null || true; stop_test_servers; rm -rf "$work"' EXIT
start_test_servers

runs=${1:-3}
seconds=10
size=1280x720
players=hplayer-record,hplayer-file-record,hplayer,hplayer-file,ffplay,mpv
smoke=""
if [ "$runs" = --smoke ]; then runs=1; seconds=7; size=320x180; players=hplayer-record,hplayer,hplayer-file,ffplay,mpv; smoke=yes; fi
build_release

# nginx with Debian's RTMP module, on a free port with a config of its own.
rtmp_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$work/nginx"
cat >"$work/nginx/nginx.conf" <<CONF
load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 64; }
rtmp { server { listen 127.0.0.1:$rtmp_port; application live { live on; record off; } } }
CONF
nginx -p "$work/nginx" -e "$work/nginx/error.log" -c "$work/nginx/nginx.conf" -g "daemon off;" &
nginx_pid=$!
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$rtmp_port") 2>/dev/null; }
for _ in $(seq 50); do listening && break; sleep 0.1; done
listening || { echo "latency: nginx-rtmp did not start: $(cat "$work/nginx/error.log" 2>/dev/null)" >&2; exit 1; }

# Key frames each second, no B-frames, x264's zerolatency; the TS muxer neither delays nor
# groups the sound (each AAC frame its own PES), so the sender's pacing is the stream's.
encode() {
  local out=$1
  shift
  ffmpeg -v error -y -f lavfi -i "testsrc2=size=$size:rate=30:duration=$seconds,$(cd bench && python3 -c 'import screen_watch; print(screen_watch.barcode_filter())')" \
    "$@" -c:v libx264 -preset veryfast -tune zerolatency -g 30 -bf 0 -pix_fmt yuv420p \
    -muxdelay 0 -muxpreload 0 -pes_payload_size 0 -f mpegts "$out"
}
encode "$work/video.ts"
[ -n "$smoke" ] || encode "$work/sound.ts" -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=$seconds" -c:a aac

echo "clip: $size at 30 fps, $seconds s; $runs runs, players alternating; $(nproc) cores; X server $DISPLAY (Xvfb), sound to PulseAudio"
echo "== video only =="
python3 bench/latency.py "$hplayer" "$work/video.ts" --runs "$runs" --transport tcp,udp,rtmp --rtmp-port "$rtmp_port" --players "$players" ${smoke:+--each-once}
[ -n "$smoke" ] && exit 0
# Not over RTMP: the relay's FLV restamps the pictures in whole milliseconds, which --vo record's
# pts then do not match, and nginx-rtmp sends a joining viewer the sound before the pictures.
echo "== with sound (TCP and UDP) =="
python3 bench/latency.py "$hplayer" "$work/sound.ts" --runs "$runs" --transport tcp,udp --players "$players"
