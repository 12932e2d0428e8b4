#!/usr/bin/env python3
"""A fault-injecting HTTP server for the tests: serves a folder with Range and keep-alive, and can
drop a connection after N bytes, stall, answer a status N times, delay the first byte, send at
a rate that follows a schedule (a bandwidth trace), and send the paths a pattern matches slowly.
With --upstream it serves another server's answers (nginx's, say) instead of a folder's, each
passed on with the same faults and pace: a real server behind a network that misbehaves.
Files carry an ETag and a Last-Modified date, and a request whose If-None-Match or
If-Modified-Since names the file as it is gets 304. Every request goes to a JSON-lines log.

A few paths under /_fault/ are hostile answers of their own, for the tests of what a server can
make the player do: /_fault/redirect?to=URL (a 302 to URL), /_fault/loop/N (a 302 to
/_fault/loop/N+1, for ever), /_fault/big-head (a 200 whose head is 100 KiB) and
/_fault/endless.m3u8 (a playlist whose body never ends). /_clock answers the time, as a DASH
UTCTiming source does, --clock-offset seconds from this machine's (a HEAD there answers it as
its Date field, for http-head). A POST to /_license is a
ClearKey license server (W3C EME): it answers the key IDs asked for with the --clearkey keys it
holds, as a JSON Web Key Set.

Prints "PORT <n>" on its first line once listening (--port 0 picks a free one)."""
import argparse
import base64
import email.utils
import http.client
import io
import json
import os
import re
import signal
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit


class Faults:
    """What to do to the requests, counted down as each fault is used."""

    def __init__(self, args):
        self.lock = threading.Lock()
        self.drop_after = args.drop_after
        self.drops_left = args.drop_times
        self.drop_path = args.drop_path
        self.clock_offset = args.clock_offset
        self.stall_after = args.stall_after
        self.stall_seconds = args.stall_seconds
        self.stalls_left = args.stall_times
        self.status = args.status
        self.status_path = args.status_path
        self.statuses_left = args.status_times
        self.first_byte_delay = args.first_byte_delay
        self.schedule = parse_schedule(args.rate_schedule)
        self.trace_clock = args.trace_clock
        self.first_request = None
        self.slow_path = re.compile(args.slow_path) if args.slow_path else None
        self.slow_rate = args.slow_rate

    def rate_for(self, path, elapsed):
        """Bytes per second for `path`, `elapsed` seconds into the schedule; None: no limit."""
        if self.slow_path is not None and self.slow_path.search(path):
            return self.slow_rate
        return rate_at(self.schedule, elapsed)

    def schedule_origin(self, began):
        """Where the rate schedule's time starts for a response begun at `began`: there, or,
        with --trace-clock, at the first request the server answered (a network's trace, which
        every connection and response shares)."""
        if not self.trace_clock:
            return began
        with self.lock:
            if self.first_request is None:
                self.first_request = began
            return self.first_request

    def take(self, name):
        """Whether fault `name` applies to this response (and one use of it is gone)."""
        with self.lock:
            left = getattr(self, name)
            if left == 0:
                return False
            if left > 0:
                setattr(self, name, left - 1)
            return True

    def status_for(self, path):
        if self.status is None or (self.status_path and not path.endswith(self.status_path)):
            return None
        return self.status if self.take("statuses_left") else None


def parse_schedule(text):
    """"20:300000,40:25000,0:300000": seconds and bytes per second; 0 seconds means for ever."""
    if not text:
        return []
    steps = []
    for part in text.split(","):
        seconds, rate = part.split(":")
        steps.append((float(seconds), float(rate)))
    return steps


def rate_at(schedule, elapsed):
    for seconds, rate in schedule:
        if seconds == 0 or elapsed < seconds:
            return rate
        elapsed -= seconds
    return schedule[-1][1] if schedule else None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # As nginx's tcp_nodelay: without it a response's last small write waits for the client's
    # delayed ACK (40 ms), which a player reusing its connection meets at every segment's end.
    disable_nagle_algorithm = True
    server_version = "fault-server"

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        started = time.monotonic()
        record = {"started_at": started, "path": self.path, "range": self.headers.get("Range", ""),
                  "headers": {name.lower(): value for name, value in self.headers.items()}}
        sent, status, outcome = 0, 200, "complete"
        try:
            status, sent, outcome = self.answer()
        except (BrokenPipeError, ConnectionResetError):
            outcome = "client closed"
        record.update(status=status, bytes=sent, seconds=time.monotonic() - started, outcome=outcome)
        with self.server.log_lock:
            self.server.log.write(json.dumps(record) + "\n")
            self.server.log.flush()

    def do_HEAD(self):
        """/_clock alone: its Date field is the server's time, --clock-offset seconds from this
        machine's (a DASH UTCTiming http-head source)."""
        status = 200 if self.path == "/_clock" else 405
        self.send_response_only(status)
        self.send_header("Date", self.date_time_string(time.time() + self.server.faults.clock_offset))
        self.send_header("Content-Length", "0")
        self.end_headers()
        with self.server.log_lock:
            self.server.log.write(json.dumps({"started_at": time.monotonic(), "path": self.path, "method": "HEAD", "range": "",
                                              "headers": {}, "status": status, "bytes": 0, "seconds": 0, "outcome": "complete"}) + "\n")
            self.server.log.flush()

    def do_POST(self):
        """/_license alone: a ClearKey license request, logged with the key IDs it asked for."""
        started = time.monotonic()
        length = int(self.headers.get("Content-Length", "0") or 0)
        body = self.rfile.read(min(length, 1 << 16))
        record = {"started_at": started, "path": self.path, "method": "POST", "range": "",
                  "headers": {name.lower(): value for name, value in self.headers.items()}}
        try:
            kids = json.loads(body)["kids"]
        except (ValueError, KeyError, TypeError):
            kids = None
        keys = self.server.clear_keys
        if self.path != "/_license" or not isinstance(kids, list):
            status, answer = 400, b""
        else:
            found = [{"kty": "oct", "kid": kid, "k": keys[kid]} for kid in kids if isinstance(kid, str) and kid in keys]
            status, answer = 200, json.dumps({"keys": found, "type": "temporary"}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)
        record.update(status=status, bytes=len(answer), seconds=time.monotonic() - started, outcome="complete", kids=kids)
        with self.server.log_lock:
            self.server.log.write(json.dumps(record) + "\n")
            self.server.log.flush()

    def not_modified(self, etag, modified):
        """Whether the request's validators name the file as it is."""
        if_none_match = self.headers.get("If-None-Match")
        if if_none_match is not None:
            return if_none_match.strip() == "*" or etag in [tag.strip() for tag in if_none_match.split(",")]
        if_modified_since = self.headers.get("If-Modified-Since")
        if if_modified_since is None:
            return False
        try:
            return modified <= email.utils.parsedate_to_datetime(if_modified_since).timestamp()
        except (TypeError, ValueError):
            return False

    def clock(self):
        """The server's time as xs:dateTime (a DASH UTCTiming http-xsdate source), --clock-offset
        seconds from this machine's."""
        now = time.time() + self.server.faults.clock_offset
        body = (time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + ".%03dZ" % int((now % 1) * 1000)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)
        return 200, len(body), "complete"

    def answer(self):
        faults = self.server.faults
        forced = faults.status_for(self.path)
        if forced is not None:
            self.send_error(forced)
            return forced, 0, "status"
        if self.path.startswith("/_fault/"):
            return self.hostile()
        if self.path == "/_clock":
            return self.clock()
        if self.server.upstream is not None:
            return self.relay(faults)
        path = os.path.join(self.server.root, self.path.split("?")[0].lstrip("/"))
        if not os.path.isfile(path):
            self.send_error(404)
            return 404, 0, "status"
        size = os.path.getsize(path)
        modified = int(os.path.getmtime(path))
        etag = f'"{modified}-{size}"'
        last_modified = email.utils.formatdate(modified, usegmt=True)
        if self.not_modified(etag, modified):
            # As HTTP has it: If-None-Match first, and before Range.
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", last_modified)
            self.end_headers()
            return 304, 0, "not modified"
        first, last, status = 0, size - 1, 200
        wanted = self.headers.get("Range", "")
        if wanted.startswith("bytes="):
            start, _, end = wanted[6:].partition("-")
            first = int(start) if start else 0
            last = min(int(end), size - 1) if end else size - 1
            if first >= size:
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{size}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return 416, 0, "status"
            status = 206
        if faults.first_byte_delay:
            time.sleep(faults.first_byte_delay)
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(last - first + 1))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", last_modified)
        if status == 206:
            self.send_header("Content-Range", f"bytes {first}-{last}/{size}")
        self.end_headers()
        with open(path, "rb") as file:
            file.seek(first)
            return self.send_body(file.read, last - first + 1, status)

    def hostile(self):
        """The answers under /_fault/ (see the module's doc)."""
        route, _, query = self.path.partition("?")
        if route == "/_fault/redirect" and query.startswith("to="):
            return self.redirect(unquote(query[3:]))
        if route.startswith("/_fault/loop/"):
            return self.redirect(f"/_fault/loop/{int(route.rsplit('/', 1)[1]) + 1}")
        if route == "/_fault/big-head":
            self.send_response(200)
            for number in range(100):
                self.send_header(f"X-Filler-{number}", "x" * 1024)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")
            return 200, 2, "complete"
        if route == "/_fault/endless.m3u8":
            # No length, and lines for as long as the client reads (60 s at most: it stops by itself).
            self.send_response(200)
            self.send_header("Content-Type", "application/vnd.apple.mpegurl")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            line = b"#" + b"x" * 1022 + b"\n"
            self.wfile.write(b"#EXTM3U\n")
            sent, ended = 0, time.monotonic() + 60
            while time.monotonic() < ended:
                self.wfile.write(line * 64)
                sent += len(line) * 64
            return 200, sent, "complete"
        self.send_error(404)
        return 404, 0, "status"

    def redirect(self, location):
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "9")
        self.end_headers()
        self.wfile.write(b"redirect\n")
        return 302, 9, "redirect"

    def relay(self, faults):
        """The upstream server's answer to this request (its Range and validators passed on),
        its body sent with the faults and pace as a file's would be."""
        host, port = self.server.upstream
        connection = http.client.HTTPConnection(host, port, timeout=30)
        try:
            headers = {name: self.headers[name] for name in ("Range", "If-None-Match", "If-Modified-Since") if self.headers.get(name)}
            try:
                connection.request("GET", self.path, headers=headers)
                response = connection.getresponse()
                length = response.getheader("Content-Length")
                # A body of no stated length (chunked) is read whole here and sent with one.
                body = None if length is not None else response.read()
            except (OSError, http.client.HTTPException):
                self.send_error(502)
                return 502, 0, "upstream error"
            if faults.first_byte_delay:
                time.sleep(faults.first_byte_delay)
            self.send_response(response.status)
            for name in ("Content-Type", "Content-Range", "Accept-Ranges", "ETag", "Last-Modified", "Location"):
                if response.getheader(name) is not None:
                    self.send_header(name, response.getheader(name))
            bodiless = response.status == 304 or response.status < 200
            if not bodiless:
                self.send_header("Content-Length", length if body is None else str(len(body)))
            self.end_headers()
            if bodiless:
                return response.status, 0, "not modified" if response.status == 304 else "complete"
            read = response.read if body is None else io.BytesIO(body).read
            status, sent, outcome = self.send_body(read, int(length) if body is None else len(body), response.status)
            return status, sent, "status" if response.status >= 400 and outcome == "complete" else outcome
        finally:
            connection.close()

    def send_body(self, read, length, status):
        """`length` bytes from `read`, with the faults and at the schedule's pace."""
        faults = self.server.faults
        droppable = faults.drop_after is not None and self.path.endswith(faults.drop_path)
        drop = faults.drop_after if droppable and faults.take("drops_left") else None
        stall = faults.stall_after if faults.stall_after is not None and faults.take("stalls_left") else None
        sent = 0
        began = time.monotonic()
        origin = faults.schedule_origin(began)
        # A link's pace: each chunk takes its size over the rate of the moment, and time the
        # reader spent not reading is not made up for later in a burst.
        next_send = began
        remaining = length
        while remaining > 0:
            rate = faults.rate_for(self.path, time.monotonic() - origin)
            chunk = min(remaining, 16384 if not rate else max(1024, int(rate / 20)))
            if drop is not None:
                chunk = min(chunk, drop - sent)
            if stall is not None and sent < stall:
                chunk = min(chunk, stall - sent)
            data = read(chunk)
            if chunk > 0 and not data:
                # The source ended before the length promised: the client must not wait on.
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                return status, sent, "short"
            if rate:
                # A chunk arrives once its time on the link has passed, not before.
                next_send = max(next_send, time.monotonic()) + len(data) / rate
                delay = next_send - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
            self.wfile.write(data)
            sent += len(data)
            remaining -= len(data)
            if drop is not None and sent >= drop:
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                return status, sent, "dropped"
            if stall is not None and sent == stall:
                self.wfile.flush()
                time.sleep(faults.stall_seconds)
                stall = None
            if rate:
                self.wfile.flush()
        return status, sent, "complete"


def main():
    # A test process may start this with signals blocked (the mask is inherited): unblock them,
    # so that SIGTERM ends it.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", help="the folder served")
    parser.add_argument("--upstream", help="http://HOST:PORT: serve that server's answers instead of a folder's")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--log", required=True, help="JSON lines, one per request")
    parser.add_argument("--drop-after", type=int, help="close the connection after this many body bytes")
    parser.add_argument("--drop-times", type=int, default=1, help="how many responses are dropped (-1: all)")
    parser.add_argument("--clock-offset", type=float, default=0, help="/_clock answers this machine's time plus this many seconds")
    parser.add_argument("--drop-path", default="", help="only responses for paths ending so are dropped")
    parser.add_argument("--clearkey", action="append", default=[], help="KID:KEY in hex: a key /_license gives")
    parser.add_argument("--stall-after", type=int, help="stop sending after this many body bytes...")
    parser.add_argument("--stall-seconds", type=float, default=0, help="...for this long")
    parser.add_argument("--stall-times", type=int, default=1)
    parser.add_argument("--status", type=int, help="answer with this status...")
    parser.add_argument("--status-path", default="", help="...for paths ending so...")
    parser.add_argument("--status-times", type=int, default=1, help="...this many times (-1: always)")
    parser.add_argument("--first-byte-delay", type=float, default=0)
    parser.add_argument("--rate-schedule", default="", help="seconds:bytes-per-second,... from each response's start")
    parser.add_argument("--trace-clock", action="store_true",
                        help="the schedule's time runs from the first request, for every response (a trace)")
    parser.add_argument("--slow-path", default="", help="a regular expression: the paths it matches are sent...")
    parser.add_argument("--slow-rate", type=float, default=20000, help="...at this many bytes per second")
    args = parser.parse_args()
    if (args.root is None) == (args.upstream is None):
        parser.error("one of --root and --upstream")

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    server.root = args.root
    upstream = urlsplit(args.upstream) if args.upstream else None
    server.upstream = (upstream.hostname, upstream.port or 80) if upstream else None
    server.faults = Faults(args)
    server.log = open(args.log, "a")
    server.log_lock = threading.Lock()
    server.clear_keys = {}
    for pair in args.clearkey:
        kid, key = (base64.urlsafe_b64encode(bytes.fromhex(part)).rstrip(b"=").decode() for part in pair.split(":"))
        server.clear_keys[kid] = key
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
