#!/usr/bin/env python3
"""The harness's measures that need to watch a player: time to first frame (from its log) and,
through mpv's JSON IPC, seek latency, A/V sync and stalls. The same code drives hplayer and mpv.

  measure_ipc.py first-frame PATTERN -- CMD...     seconds from start to a log line containing PATTERN
  measure_ipc.py seeks SOCKET COUNT SEED -- CMD... one line per seek: "exact|keyframes SECONDS"
  measure_ipc.py sync SOCKET -- CMD...             "mean_abs MAX_ABS max_abs M drops D" over the whole file
  measure_ipc.py stalls SOCKET SECONDS -- CMD...   "COUNT SECONDS_STALLED PEAK_RSS_KIB": paused-for-cache
                                                   turning true after the first frame, until SECONDS into the file
"""
import json, os, random, resource, socket, subprocess, sys, time


def start(command):
    return subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def first_frame(pattern, command):
    began = time.monotonic()
    player = start(command)
    try:
        for line in player.stdout:
            if pattern.encode() in line:
                return time.monotonic() - began
        raise SystemExit(f"measure_ipc: {command[0]}: ended without '{pattern}'")
    finally:
        player.kill()
        player.wait()


class Client:
    def __init__(self, path, timeout=20):
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise SystemExit(f"measure_ipc: no socket at {path}")
                time.sleep(0.02)
        self.pending = b""
        self.next_id = 1

    def messages(self, deadline):
        while True:
            while b"\n" in self.pending:
                line, self.pending = self.pending.split(b"\n", 1)
                try:
                    yield json.loads(line)
                except ValueError:
                    continue
            left = deadline - time.monotonic()
            if left <= 0:
                return
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(65536)
            except (socket.timeout, OSError):
                return
            if not data:
                return
            self.pending += data

    def send(self, *words):
        """Sends a command without waiting for its reply; its request_id, or None when the player has quit."""
        request_id = self.next_id
        self.next_id += 1
        try:
            self.sock.sendall((json.dumps({"command": list(words), "request_id": request_id}) + "\n").encode())
        except OSError:
            return None
        return request_id

    def request(self, *words, timeout=10):
        request_id = self.send(*words)
        if request_id is None:
            return None
        for message in self.messages(time.monotonic() + timeout):
            if message.get("request_id") == request_id:
                return message
        return None

    def wait_event(self, name, timeout=10):
        for message in self.messages(time.monotonic() + timeout):
            if message.get("event") == name:
                return message
        return None

    def wait_loaded(self):
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            reply = self.request("get_property", "duration")
            if reply and reply.get("error") == "success":
                return reply["data"]
            time.sleep(0.05)
        raise SystemExit("measure_ipc: the file did not load")


def seeks(path, count, seed, command):
    player = start(command)
    try:
        client = Client(path)
        duration = client.wait_loaded()
        client.wait_event("playback-restart", timeout=2)
        positions = random.Random(seed).sample(range(1, int(duration) - 1), min(count, int(duration) - 2))
        for mode in ("exact", "keyframes"):
            for position in positions:
                began = time.monotonic()
                client.request("seek", position, "absolute", mode)
                if client.wait_event("playback-restart") is None:
                    raise SystemExit(f"measure_ipc: no playback-restart after a seek to {position}")
                print(mode, f"{time.monotonic() - began:.4f}", flush=True)
                time.sleep(0.1)
        client.request("quit")
    finally:
        player.kill()
        player.wait()


def sync(path, command):
    player = start(command)
    samples, drops = [], 0
    try:
        client = Client(path)
        client.wait_loaded()
        client.wait_event("playback-restart", timeout=2)
        while player.poll() is None:
            reply = client.request("get_property", "avsync", timeout=2)
            dropped = client.request("get_property", "frame-drop-count", timeout=2)
            if reply is None or dropped is None:
                break
            if reply.get("error") == "success":
                samples.append(abs(reply["data"]))
            if dropped.get("error") == "success":
                drops = dropped["data"]
            time.sleep(0.1)
    finally:
        player.kill()
        player.wait()
    if not samples:
        raise SystemExit("measure_ipc: no avsync figure read")
    print(f"mean_abs {sum(samples) / len(samples):.6f} max_abs {max(samples):.6f} drops {drops} samples {len(samples)}")


def stalls(path, seconds, command):
    """Plays until `seconds` into the file (quit then through the IPC: hplayer has no --end), with
    paused-for-cache observed: the stalls are its turns to true after the first playback-restart
    (before it, the player is still opening), and their seconds by the clock here."""
    player = start(command)
    count, stalled, since = 0, 0.0, None
    try:
        client = Client(path)
        # Sent without waiting for the replies: `request` would drop the events that come first.
        client.send("observe_property", 1, "paused-for-cache")
        client.send("observe_property", 2, "time-pos")
        playing = False
        # Bounded, for a player that stalls for good: its stall counts up to here.
        for message in client.messages(time.monotonic() + seconds * 3 + 60):
            now = time.monotonic()
            if message.get("event") == "playback-restart":
                playing = True
            elif message.get("event") == "property-change" and playing:
                if message.get("name") == "paused-for-cache":
                    if message.get("data") is True and since is None:
                        count, since = count + 1, now
                    elif message.get("data") is False and since is not None:
                        stalled, since = stalled + now - since, None
                elif message.get("name") == "time-pos" and (message.get("data") or 0) >= seconds:
                    client.send("quit")
                    break
        else:  # the socket closed (the player is ending) or the deadline passed
            try:
                player.wait(timeout=5)
                raise SystemExit(f"measure_ipc: {command[0]}: ended before {seconds} s into the file")
            except subprocess.TimeoutExpired:
                print(f"measure_ipc: {command[0]}: not {seconds} s into the file by the deadline", file=sys.stderr)
        if since is not None:
            stalled += time.monotonic() - since
    finally:
        player.kill()
        player.wait()
    # The player is this script's only child: its peak resident memory, KiB.
    print(count, f"{stalled:.2f}", resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)


def main(argv):
    split = argv.index("--")
    args, command = argv[1:split], argv[split + 1:]
    if args[0] == "first-frame":
        print(f"{first_frame(args[1], command):.4f}")
    elif args[0] == "seeks":
        seeks(args[1], int(args[2]), int(args[3]), command)
    elif args[0] == "sync":
        sync(args[1], command)
    elif args[0] == "stalls":
        stalls(args[1], float(args[2]), command)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
