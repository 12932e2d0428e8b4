#!/usr/bin/env python3
"""Live latency, measured: scripts/live-sender.py streams a clip in real time and logs when each
picture leaves (CLOCK_MONOTONIC); hplayer's --vo record logs when each is presented, on the same
clock. Latency per picture = presented - sent. Prints the median and p95 of each run, then the
medians over the runs.

    bench/latency.py HPLAYER CLIP.ts [--runs N] [--transport tcp,udp] [--modes live,file]

Modes: `live` is hplayer's live mode (the default for these inputs: no start-up buffering,
catch-up); `file` is --no-live (the buffering a file gets), the before of the comparison.
"""
import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

SENDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts", "live-sender.py")


def free_udp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def latencies(sent_log, video_log):
    sent = {}
    for line in open(sent_log):
        pts, at = line.split("\t")
        sent[round(float(pts), 3)] = float(at)
    found = []
    for line in open(video_log):
        fields = line.split("\t")
        at = sent.get(round(float(fields[0]), 3))
        if at is not None:
            found.append((float(fields[1]) - at) * 1000)
    return found


def run_once(hplayer, clip, transport, mode, work):
    sent_log, folder = os.path.join(work, "sent.tsv"), os.path.join(work, "rec")
    for path in (sent_log, os.path.join(folder, "video.tsv")):
        if os.path.exists(path):
            os.remove(path)
    player_args = ["--vo", f"record:{folder}", "--ao", "null", "--no-status", "--network-timeout", "3"]
    if mode == "file":
        player_args.append("--no-live")
    started = []
    try:
        if transport == "tcp":
            port_file = os.path.join(work, "port")
            if os.path.exists(port_file):
                os.remove(port_file)
            sender = subprocess.Popen([sys.executable, SENDER, clip, "--tcp-listen", "0", "--port-file", port_file, "--log", sent_log])
            started.append(sender)
            deadline = time.monotonic() + 10
            while not os.path.exists(port_file):
                if time.monotonic() > deadline:
                    sys.exit("latency: the sender did not start")
                time.sleep(0.02)
            url = f"tcp://127.0.0.1:{open(port_file).read()}"
            player = subprocess.Popen([hplayer, url] + player_args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            started.append(player)
            sender.wait(timeout=120)
            player.wait(timeout=30)
        else:
            port = free_udp_port()
            player = subprocess.Popen([hplayer, f"udp://127.0.0.1:{port}"] + player_args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            started.append(player)
            time.sleep(0.7)  # listening before the first datagram
            subprocess.run([sys.executable, SENDER, clip, "--udp", f"127.0.0.1:{port}", "--log", sent_log], check=True, timeout=120)
            time.sleep(1.5)  # UDP has no end: what was sent is played out, then quit
            player.send_signal(signal.SIGINT)
            player.wait(timeout=30)
    finally:
        # A run that failed leaves nothing behind.
        for process in started:
            if process.poll() is None:
                process.kill()
                process.wait()
    found = latencies(sent_log, os.path.join(folder, "video.tsv"))
    if not found:
        sys.exit(f"latency: no picture of the {transport} run ({mode}) was presented")
    found.sort()
    return statistics.median(found), found[int(len(found) * 0.95)], len(found)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("hplayer")
    parser.add_argument("clip")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--transport", default="tcp,udp")
    parser.add_argument("--modes", default="live,file")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="hplayer-latency-")
    results = {}
    for run in range(args.runs):
        for transport in args.transport.split(","):
            for mode in args.modes.split(","):
                median, p95, count = run_once(args.hplayer, args.clip, transport, mode, work)
                results.setdefault((transport, mode), []).append((median, p95))
                print(f"run {run + 1}: {transport} {mode:4}: median {median:6.1f} ms, p95 {p95:6.1f} ms ({count} pictures)")
    for (transport, mode), rows in results.items():
        print(f"latency {transport} {mode}: median {statistics.median(r[0] for r in rows):.1f} ms, "
              f"p95 {statistics.median(r[1] for r in rows):.1f} ms (medians of {len(rows)} runs)")


if __name__ == "__main__":
    main()
