#!/usr/bin/env python3
"""Soak: hplayer plays a clip looped with the null outputs for a while, then takes 1,000 IPC
`loadfile ... replace` and 10,000 random seeks, and its resident memory, threads and open file
descriptors are sampled all along (/proc). Passes when, after the warm-up, RSS stays within
2 MiB (for the loads and seeks: the median of their last samples against that of their first),
threads and descriptors do not grow, and hplayer neither crashes nor stops answering.

    scripts/soak.py [--seconds N] [--loads N] [--seeks N] [--hplayer PATH]

The defaults are an hour; the test command runs a 3-minute version:
    scripts/soak.py --seconds 90 --loads 1000 --seeks 10000
"""
import argparse
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time

MIB = 1024 * 1024


def sample(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            fields[key] = value.split()
    # libdispatch's worker threads ("com.apple.root.default-qos…") come and go with its own load:
    # the threads counted are hplayer's and FFmpeg's.
    names = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/comm") as comm:
                names.append(comm.read().strip())
        except OSError:
            pass
    return {"rss": int(fields["VmRSS"][0]) * 1024, "threads": sum(1 for name in names if "qos" not in name),
            "fds": len(os.listdir(f"/proc/{pid}/fd"))}


class Client:
    def __init__(self, path, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self.sock.settimeout(timeout)
        self.pending = b""
        self.next_id = 1
        self.events = []

    def read_message(self):
        while b"\n" not in self.pending:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("hplayer closed the socket")
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return json.loads(line)

    def request(self, *words):
        request_id = self.next_id
        self.next_id += 1
        self.sock.sendall(json.dumps({"command": list(words), "request_id": request_id}).encode() + b"\n")
        while True:
            message = self.read_message()
            if message.get("request_id") == request_id:
                return message
            if "event" in message:
                self.events.append(message)

    def wait_event(self, name):
        while True:
            for index, event in enumerate(self.events):
                if event["event"] == name:
                    return self.events.pop(index)
            message = self.read_message()
            if "event" in message:
                self.events.append(message)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3600)
    parser.add_argument("--loads", type=int, default=1000)
    parser.add_argument("--seeks", type=int, default=10000)
    parser.add_argument("--interval", type=float, default=10)
    parser.add_argument("--rss-limit-mib", type=float, default=2,
                        help="the RSS growth allowed after warm-up, in each phase")
    parser.add_argument("--hplayer", default=".build/debug/hplayer")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="hplayer-soak-")
    clip = os.path.join(work, "clip.mp4")
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=10",
                    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=10",
                    "-c:v", "libx264", "-preset", "fast", "-g", "25", "-c:a", "aac", clip], check=True)
    socket_path = os.path.join(work, "ipc.sock")
    player = subprocess.Popen([args.hplayer, clip, "--loop", "--vo", "null", "--ao", "null", "--no-status", "--quiet",
                               "--input-ipc-server", socket_path], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    failures = []
    try:
        client = Client(socket_path)
        # Connected perhaps after playback began (its events gone by): asked until it answers.
        while client.request("get_property", "duration").get("error") != "success":
            time.sleep(0.05)
        started = time.monotonic()
        samples = []
        print(f"soak: looping {args.seconds:.0f} s, sampling every {args.interval:.0f} s")
        print("at_s\trss_mib\tthreads\tfds")
        while time.monotonic() - started < args.seconds:
            time.sleep(min(args.interval, max(0.0, args.seconds - (time.monotonic() - started))))
            if player.poll() is not None:
                raise RuntimeError(f"hplayer ended with status {player.returncode} while looping")
            now = sample(player.pid)
            samples.append(now)
            print(f"{time.monotonic() - started:.0f}\t{now['rss'] / MIB:.1f}\t{now['threads']}\t{now['fds']}", flush=True)
        warmed = samples[min(3, len(samples) - 1):] or samples
        spread = max(s["rss"] for s in warmed) - min(s["rss"] for s in warmed)
        print(f"soak: looping: RSS {min(s['rss'] for s in warmed) / MIB:.1f} to {max(s['rss'] for s in warmed) / MIB:.1f} MiB "
              f"after warm-up (spread {spread / MIB:.2f} MiB); threads {warmed[0]['threads']} → {warmed[-1]['threads']}; "
              f"fds {warmed[0]['fds']} → {warmed[-1]['fds']}")
        if spread > args.rss_limit_mib * MIB:
            failures.append(f"looping: RSS spread {spread / MIB:.2f} MiB after warm-up")
        if warmed[-1]["threads"] > warmed[0]["threads"] or warmed[-1]["fds"] > warmed[0]["fds"]:
            failures.append("looping: threads or descriptors grew")

        def phase(name, count, action):
            # Its first fifth is its warm-up: what the first files and seeks allocate for good.
            # After it, RSS is sampled 20 times; the median of the last five against that of the
            # first five is the growth. Single samples swing by a few MiB with where the file
            # playing stands (its queues and pools, malloc's arenas), and would hide or fake a
            # leak: one that keeps memory per file or seek raises every later sample.
            warmup = max(1, count // 5)
            every = max(1, (count - warmup) // 20)
            mark = time.monotonic()
            samples = []
            for index in range(count):
                if index >= warmup and (index - warmup) % every == 0:
                    if not samples:
                        time.sleep(2)  # the warm-up's last file or seek settled: its threads all started
                    samples.append(sample(player.pid))
                action(index)
                if player.poll() is not None:
                    raise RuntimeError(f"hplayer ended with status {player.returncode} during {name}")
            # Let the last file or seek settle before the last sample.
            time.sleep(2)
            samples.append(sample(player.pid))

            def median_rss(part):
                values = sorted(s["rss"] for s in part)
                return values[len(values) // 2]

            head, tail = samples[:5], samples[-5:]
            before, after = median_rss(head), median_rss(tail)
            growth = after - before
            print(f"soak: {count} {name} in {time.monotonic() - mark:.1f} s; after the first {warmup}, median RSS of the "
                  f"first and last five of {len(samples)} samples: {before / MIB:.1f} → {after / MIB:.1f} MiB "
                  f"(every sample {min(s['rss'] for s in samples) / MIB:.1f} to {max(s['rss'] for s in samples) / MIB:.1f}), "
                  f"threads {samples[0]['threads']} → {samples[-1]['threads']}, fds {samples[0]['fds']} → {samples[-1]['fds']}",
                  flush=True)
            if growth > args.rss_limit_mib * MIB:
                failures.append(f"{name}: RSS grew {growth / MIB:.2f} MiB")
            if samples[-1]["threads"] > samples[0]["threads"] or samples[-1]["fds"] > samples[0]["fds"]:
                failures.append(f"{name}: threads or descriptors grew")

        # A warm-up load first, so the measured phase starts from a file opened by loadfile too.
        client.request("loadfile", clip, "replace")
        client.wait_event("file-loaded")

        def load(_):
            reply = client.request("loadfile", clip, "replace")
            if reply.get("error") != "success":
                raise RuntimeError(f"loadfile: {reply}")
            client.wait_event("file-loaded")

        phase("loadfile replacements", args.loads, load)
        client.events.clear()
        rng = random.Random(7)

        def seek(_):
            reply = client.request("seek", round(rng.uniform(0, 10), 3), "absolute",
                                   rng.choice(["exact", "keyframes"]))
            if reply.get("error") != "success":
                raise RuntimeError(f"seek: {reply}")
            client.events.clear()

        phase("random seeks", args.seeks, seek)
        if client.request("get_property", "time-pos").get("error") != "success":
            failures.append("hplayer stopped answering")
        client.request("quit")
        status = player.wait(timeout=15)
        if status != 0:
            failures.append(f"quit ended with status {status}")
    except Exception as error:  # noqa: BLE001: any failure of the run is the soak's failure
        failures.append(f"{type(error).__name__}: {error}")
        player.kill()
        player.wait()
    errors = player.stderr.read().decode(errors="replace").strip()
    if errors:
        print("soak: hplayer's stderr:\n" + errors[-2000:])
    for failure in failures:
        print(f"soak: FAILED: {failure}")
    print("soak: passed" if not failures else "soak: failed")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
