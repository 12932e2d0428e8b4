# The X server and sound server the desktop tests need, started when none is running.
# Sourced by test.sh; exports DISPLAY and HPLAYER_TEST_SINK (the null sink the tests record).

started_xvfb=""
started_pulse=""
loaded_sink=""
keepalive=""

start_test_servers() {
  if [ -z "${DISPLAY:-}" ] || ! xdpyinfo >/dev/null 2>&1; then
    local display
    for display in 99 98 97 96 95; do
      [ -e "/tmp/.X11-unix/X$display" ] || [ -e "/tmp/.X$display-lock" ] && continue
      # -noreset: with no client left, Xvfb would otherwise reset, and the pointer go back to the middle.
      Xvfb ":$display" -screen 0 1280x720x24 -nolisten tcp -noreset >/dev/null 2>&1 &
      started_xvfb=$!
      export DISPLAY=":$display"
      break
    done
    for _ in $(seq 50); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done
    xdpyinfo >/dev/null 2>&1 || { echo "test: Xvfb did not start" >&2; exit 1; }
    echo "test: started Xvfb on $DISPLAY"
  fi

  if ! pactl info >/dev/null 2>&1; then
    pulseaudio --daemonize=yes --exit-idle-time=-1 -n \
      --load=module-native-protocol-unix --load="module-null-sink sink_name=hplayer_test rate=48000" >/dev/null 2>&1 || true
    for _ in $(seq 50); do pactl info >/dev/null 2>&1 && break; sleep 0.1; done
    pactl info >/dev/null 2>&1 || { echo "test: PulseAudio did not start" >&2; exit 1; }
    started_pulse=yes
    echo "test: started PulseAudio"
  elif ! pactl list short sinks | grep -q hplayer_test; then
    loaded_sink=$(pactl load-module module-null-sink sink_name=hplayer_test rate=48000)
  fi
  export HPLAYER_TEST_SINK=hplayer_test
  pactl set-default-sink hplayer_test
  # A null sink idles with seconds of latency and wakes late for a new stream; a silent stream
  # keeps it awake and at low latency, as a sound card is.
  pacat --latency-msec=10 --format=s16le --rate=48000 --channels=2 -d hplayer_test /dev/zero >/dev/null 2>&1 &
  keepalive=$!
}

stop_test_servers() {
  [ -n "$keepalive" ] && kill "$keepalive" 2>/dev/null || true
  [ -n "$loaded_sink" ] && pactl unload-module "$loaded_sink" 2>/dev/null || true
  [ -n "$started_pulse" ] && pulseaudio --kill 2>/dev/null || true
  [ -n "$started_xvfb" ] && kill "$started_xvfb" 2>/dev/null || true
}
