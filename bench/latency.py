#!/usr/bin/env python3
"""Live latency, measured: scripts/live-sender.py streams a clip in real time and logs when each
picture leaves (CLOCK_MONOTONIC). Latency per picture = presented - sent. Prints the median and
p95 of each run, then the medians over the runs.

    bench/latency.py HPLAYER CLIP.ts [--runs N] [--transport tcp,udp,rtmp] [--players ...]

When a picture is presented is known two ways:
- `record`: hplayer's --vo record logs each presentation, on the same clock;
- `screen`: the player draws in a 1280x720 window at the screen's corner, and bench/screen_watch.py
  reads the picture's number (a barcode the clip carries, drawn by `screen_watch.barcode_filter`)
  off the X screen every millisecond. ffplay and mpv log no presentations, so they are measured
  this way only; hplayer both ways, which shows what the screen path adds.

Players (the --players names):
  hplayer-record       hplayer in live mode (the default for these inputs), --vo record
  hplayer-file-record  hplayer with a file's buffering (--no-live): the before of the comparison
  hplayer              hplayer in live mode, in a window
  hplayer-file         hplayer --no-live, in a window
  ffplay               ffplay -fflags nobuffer -flags low_delay -framedrop -probesize 32
                       -analyzeduration 0 (its low-latency flags; without the last two it
                       reads 5 s before its first picture)
  mpv                  mpv --profile=low-latency --vo=sdl

Transports: tcp (the player connects to the sender), udp (the sender sends to the player), rtmp
(the sender's stream is pushed into nginx-rtmp by ffmpeg -c copy, and the player pulls it; pass
--rtmp-port of an nginx-rtmp that takes pushes at /live/).
"""
import argparse
import math
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

from screen_watch import ScreenWatcher

SENDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts", "live-sender.py")
WINDOW = (0, 0, 1280, 720)


def player_command(player, hplayer, url, record_folder):
    common = ["--no-status", "--network-timeout", "3"]
    place = f"{WINDOW[2]}x{WINDOW[3]}+{WINDOW[0]}+{WINDOW[1]}"
    commands = {
        "hplayer-record": [hplayer, url, "--vo", f"record:{record_folder}", "--ao", "null"] + common,
        "hplayer-file-record": [hplayer, url, "--vo", f"record:{record_folder}", "--ao", "null", "--no-live"] + common,
        "hplayer": [hplayer, url, "--geometry", place] + common,
        "hplayer-file": [hplayer, url, "--geometry", place, "--no-live"] + common,
        "ffplay": ["ffplay", "-v", "error", "-fflags", "nobuffer", "-flags", "low_delay", "-framedrop",
                   "-probesize", "32", "-analyzeduration", "0", "-autoexit",
                   "-left", str(WINDOW[0]), "-top", str(WINDOW[1]), "-x", str(WINDOW[2]), "-y", str(WINDOW[3]), url],
        "mpv": ["mpv", "--no-config", "--really-quiet", "--profile=low-latency", "--vo=sdl", f"--geometry={place}", url],
    }
    return commands[player]


def free_port(kind):
    with socket.socket(socket.AF_INET, kind) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def sent_times(sent_log):
    """(pts, sent_at) per picture, in the order sent: the n-th is the picture numbered n."""
    rows = []
    for line in open(sent_log):
        pts, at = line.split("\t")
        rows.append((round(float(pts), 3), float(at)))
    return rows


def recorded_latencies(sent, video_log):
    by_pts = dict(sent)
    found = []
    for line in open(video_log):
        fields = line.split("\t")
        at = by_pts.get(round(float(fields[0]), 3))
        if at is not None:
            found.append((float(fields[1]) - at) * 1000)
    return found


def screen_latencies(sent, first_seen):
    return [(first_seen[n] - sent[n][1]) * 1000 for n in first_seen if n < len(sent)]


class Run:
    """One clip streamed to one player; what it started is stopped whatever happens."""

    def __init__(self, work):
        self.work = work
        self.started = []

    def start(self, command):
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.started.append(process)
        return process

    def sender_listening(self, clip, sent_log):
        """A sender waiting for one TCP client; its port."""
        port_file = os.path.join(self.work, "port")
        if os.path.exists(port_file):
            os.remove(port_file)
        sender = self.start([sys.executable, SENDER, clip, "--tcp-listen", "0", "--port-file", port_file, "--log", sent_log])
        deadline = time.monotonic() + 10
        while not os.path.exists(port_file):
            if time.monotonic() > deadline or sender.poll() is not None:
                sys.exit("latency: the sender did not start")
            time.sleep(0.02)
        return sender, int(open(port_file).read())

    def stop(self):
        for process in self.started:
            if process.poll() is None:
                process.kill()
                process.wait()


def run_once(args, player, transport, work):
    sent_log, folder = os.path.join(work, "sent.tsv"), os.path.join(work, "rec")
    for path in (sent_log, os.path.join(folder, "video.tsv")):
        if os.path.exists(path):
            os.remove(path)
    by_screen = not player.endswith("-record")
    watcher = ScreenWatcher(*WINDOW) if by_screen else None
    run = Run(work)
    try:
        if watcher:
            watcher.start()
        if transport == "tcp":
            sender, port = run.sender_listening(args.clip, sent_log)
            played = run.start(player_command(player, args.hplayer, f"tcp://127.0.0.1:{port}", folder))
        elif transport == "udp":
            port = free_port(socket.SOCK_DGRAM)
            played = run.start(player_command(player, args.hplayer, f"udp://127.0.0.1:{port}", folder))
            time.sleep(0.7)  # listening before the first datagram
            sender = run.start([sys.executable, SENDER, args.clip, "--udp", f"127.0.0.1:{port}", "--log", sent_log])
        else:
            url = f"rtmp://127.0.0.1:{args.rtmp_port}/live/latency{time.monotonic_ns()}"
            sender, port = run.sender_listening(args.clip, sent_log)
            # 0.1 s of analysis, not ffmpeg's 5: the stream is published 0.5 s after it starts.
            run.start(["ffmpeg", "-v", "error", "-fflags", "+nobuffer", "-analyzeduration", "100000",
                       "-i", f"tcp://127.0.0.1:{port}", "-c", "copy", "-flush_packets", "1", "-f", "flv", url])
            # A player joins a published stream, as a viewer does (one that asks before the
            # publisher has come gets an error from hplayer, and nothing ever from ffplay).
            time.sleep(1.0)
            played = run.start(player_command(player, args.hplayer, url, folder))
        sender.wait(timeout=120)
        # What was sent is played out; a player that does not end by itself (UDP has no end) is
        # then asked to quit.
        try:
            played.wait(timeout=2.5)
        except subprocess.TimeoutExpired:
            played.send_signal(signal.SIGINT)
            try:
                played.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
    finally:
        run.stop()
        first_seen = watcher.stop() if watcher else None
    sent = sent_times(sent_log)
    found = screen_latencies(sent, first_seen) if by_screen else recorded_latencies(sent, os.path.join(folder, "video.tsv"))
    if not found:
        # hplayer in live mode must show the stream; the others may fail to within the clip
        # (--no-live over RTMP analyses 5 s first), which the table then says.
        if player in ("hplayer", "hplayer-record"):
            sys.exit(f"latency: no picture of the {transport} run of {player} was presented")
        return None, None, 0, len(sent)
    found.sort()
    return statistics.median(found), found[math.ceil(len(found) * 0.95) - 1], len(found), len(sent)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("hplayer")
    parser.add_argument("clip")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--transport", default="tcp,udp")
    parser.add_argument("--players", default="hplayer-record,hplayer-file-record,hplayer,hplayer-file,ffplay,mpv")
    parser.add_argument("--rtmp-port", type=int)
    # A smoke run: each player once, the transports taken in turn, so that every player and
    # every transport runs without every pairing (five runs, not fifteen).
    parser.add_argument("--each-once", action="store_true")
    args = parser.parse_args()
    if "rtmp" in args.transport.split(",") and not args.rtmp_port:
        sys.exit("latency: rtmp needs --rtmp-port")
    work = tempfile.mkdtemp(prefix="hplayer-latency-")
    results = {}
    # Runs alternate between the players, so that a busy moment of this shared machine does not
    # fall on one player's runs only.
    transports, players = args.transport.split(","), args.players.split(",")
    if args.each_once:
        pairs = [(transports[index % len(transports)], player) for index, player in enumerate(players)]
    else:
        pairs = [(transport, player) for transport in transports for player in players]
    for run in range(args.runs):
        for transport, player in pairs:
            median, p95, count, sent = run_once(args, player, transport, work)
            rows = results.setdefault((transport, player), [])
            if median is None:
                print(f"run {run + 1}: {transport:4} {player:19}: no picture presented (of {sent} sent)", flush=True)
                continue
            rows.append((median, p95))
            print(f"run {run + 1}: {transport:4} {player:19}: median {median:7.1f} ms, p95 {p95:7.1f} ms "
                  f"({count} of {sent} pictures seen)", flush=True)
    shutil.rmtree(work, ignore_errors=True)
    for (transport, player), rows in results.items():
        if not rows:
            print(f"latency {transport:4} {player:19}: no picture presented in any run")
            continue
        print(f"latency {transport:4} {player:19}: median {statistics.median(r[0] for r in rows):7.1f} ms, "
              f"p95 {statistics.median(r[1] for r in rows):7.1f} ms (medians of {len(rows)} runs)")


if __name__ == "__main__":
    main()
