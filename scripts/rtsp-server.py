#!/usr/bin/env python3
"""A small RTSP server of the project's own, for the live tests: it serves one clip's video as
H.264 over RTP, interleaved in the RTSP connection (RTP/AVP/TCP) or to the client's UDP ports
(RTP/AVP), as a camera does.

    rtsp-server.py CLIP --port PORT [--port-file F] [--log F]

--port 0 picks a free port (written to --port-file). --log gets a line per SETUP: the transport
set up (tcp or udp). Each PLAY starts `ffmpeg -re` sending the
clip's video (copied, not encoded again) as RTP to local ports, whose packets (RTP and its RTCP)
are passed on to that client; half a second after the clip's end, the connection is closed.
OPTIONS, DESCRIBE, SETUP, PLAY and TEARDOWN are answered; one session per connection.
"""
import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading


def sdp_of(clip):
    """The clip's video as ffmpeg's RTP muxer describes it, made for RTSP: no address, a control."""
    folder = tempfile.mkdtemp(prefix="rtsp-server-")
    path = os.path.join(folder, "clip.sdp")
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", clip, "-map", "0:v:0", "-c", "copy", "-frames:v", "1",
                    "-f", "rtp", "-payload_type", "96", "-sdp_file", path, "rtp://127.0.0.1:9"], check=True)
    text = open(path).read()
    shutil.rmtree(folder)
    lines = []
    for line in text.splitlines():
        if line.startswith("c="):
            line = "c=IN IP4 0.0.0.0"
        elif line.startswith("m=video"):
            line = "m=video 0 RTP/AVP 96"
        lines.append(line)
        if line.startswith("m=video"):
            lines.append("a=control:streamid=0")
    return "\r\n".join(lines) + "\r\n"


def udp_pair():
    """Two UDP sockets on consecutive local ports (RTP, then RTCP), as RTP wants."""
    for _ in range(20):
        first = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        first.bind(("127.0.0.1", 0))
        second = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            second.bind(("127.0.0.1", first.getsockname()[1] + 1))
            return first, second
        except OSError:
            first.close()
            second.close()
    raise OSError("no two consecutive UDP ports free")


class Session:
    def __init__(self, connection, clip, log):
        self.connection = connection
        self.clip = clip
        self.log = log
        self.send_lock = threading.Lock()
        self.transport = None  # ("tcp", rtp channel) or ("udp", host, rtp port)
        self.sender = None
        self.sockets = []

    def reply(self, cseq, headers=(), body=""):
        text = f"RTSP/1.0 200 OK\r\nCSeq: {cseq}\r\n" + "".join(f"{h}\r\n" for h in headers)
        if body:
            text += f"Content-Length: {len(body.encode())}\r\n"
        with self.send_lock:
            self.connection.sendall((text + "\r\n" + body).encode())

    def setup(self, transport, peer):
        if "RTP/AVP/TCP" in transport:
            channel = int(transport.split("interleaved=")[1].split("-")[0])
            self.transport = ("tcp", channel)
            answer = f"Transport: RTP/AVP/TCP;unicast;interleaved={channel}-{channel + 1}"
        else:
            client = int(transport.split("client_port=")[1].split("-")[0])
            self.transport = ("udp", peer, client)
            # The server's own pair, bound, so that what the client sends there (reports, punches)
            # reaches no one else.
            self.out, self.reports = udp_pair()
            self.sockets += [self.out, self.reports]
            port = self.out.getsockname()[1]
            answer = f"Transport: RTP/AVP;unicast;client_port={client}-{client + 1};server_port={port}-{port + 1}"
        if self.log:
            with open(self.log, "a") as out:
                out.write(self.transport[0] + "\n")
        return answer

    def play(self):
        # ffmpeg sends RTP to one local port and RTCP to the next: both are passed on.
        if self.transport is None:
            return False
        inbound = udp_pair()
        self.sockets += inbound
        base = inbound[0].getsockname()[1]
        for index, sock in enumerate(inbound):
            threading.Thread(target=self.forward, args=(sock, index), daemon=True).start()
        self.sender = subprocess.Popen(["ffmpeg", "-nostdin", "-v", "error", "-re", "-i", self.clip, "-map", "0:v:0", "-c", "copy",
                                        "-f", "rtp", "-payload_type", "96", f"rtp://127.0.0.1:{base}?rtcpport={base + 1}"],
                                       stdout=subprocess.DEVNULL)
        senders.append(self.sender)
        threading.Thread(target=self.end_after_clip, daemon=True).start()
        return True

    def end_after_clip(self):
        """The clip sent, the session ends as a camera's stream would: the connection is closed."""
        self.sender.wait()
        threading.Event().wait(0.5)  # the last packets on their way
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def forward(self, sock, index):
        while True:
            try:
                packet, _ = sock.recvfrom(65536)
            except OSError:
                return
            try:
                if self.transport[0] == "tcp":
                    channel = self.transport[1] + index
                    with self.send_lock:
                        self.connection.sendall(bytes([0x24, channel]) + len(packet).to_bytes(2, "big") + packet)
                else:
                    (self.out, self.reports)[index].sendto(packet, (self.transport[1], self.transport[2] + index))
            except OSError:
                return

    def close(self):
        if self.sender and self.sender.poll() is None:
            self.sender.kill()
            self.sender.wait()
        for sock in self.sockets:
            # A UDP socket closed under a thread blocked in recvfrom does not wake it; shut down, it does.
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()
        with self.send_lock:
            self.connection.close()


def serve(connection, peer, clip, sdp, log):
    session = Session(connection, clip, log)
    buffer = b""
    try:
        while True:
            # The client's RTCP reports come interleaved ($, channel, length): skipped.
            while not buffer.startswith(b"$") and b"\r\n\r\n" not in buffer or buffer.startswith(b"$") and (
                    len(buffer) < 4 or len(buffer) < 4 + int.from_bytes(buffer[2:4], "big")):
                data = connection.recv(4096)
                if not data:
                    return
                buffer += data
            if buffer.startswith(b"$"):
                buffer = buffer[4 + int.from_bytes(buffer[2:4], "big"):]
                continue
            head, buffer = buffer.split(b"\r\n\r\n", 1)
            lines = head.decode(errors="replace").split("\r\n")
            method, url = lines[0].split(" ")[:2]
            headers = {line.split(":", 1)[0].strip().lower(): line.split(":", 1)[1].strip() for line in lines[1:] if ":" in line}
            length = int(headers.get("content-length", "0"))
            while len(buffer) < length:
                data = connection.recv(4096)
                if not data:
                    return
                buffer += data
            buffer = buffer[length:]
            cseq = headers.get("cseq", "0")
            if method == "OPTIONS":
                session.reply(cseq, ["Public: OPTIONS, DESCRIBE, SETUP, PLAY, TEARDOWN"])
            elif method == "DESCRIBE":
                session.reply(cseq, ["Content-Type: application/sdp", f"Content-Base: {url.rstrip('/')}/"], sdp)
            elif method == "SETUP":
                session.reply(cseq, [session.setup(headers.get("transport", ""), peer[0]), "Session: 1"])
            elif method == "PLAY":
                session.reply(cseq, ["Session: 1", "Range: npt=0.000-"])
                if not session.play():
                    return
            elif method == "TEARDOWN":
                session.reply(cseq, ["Session: 1"])
                return
            else:
                with session.send_lock:
                    connection.sendall(f"RTSP/1.0 501 Not Implemented\r\nCSeq: {cseq}\r\n\r\n".encode())
    except (OSError, ValueError, IndexError):
        return
    finally:
        session.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("clip")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--port-file")
    parser.add_argument("--log")
    args = parser.parse_args()
    # Killed (as the tests stop it), the ffmpeg senders go too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    sdp = sdp_of(args.clip)
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", args.port))
    server.listen(4)
    if args.port_file:
        with open(args.port_file + ".part", "w") as out:
            out.write(str(server.getsockname()[1]))
        os.rename(args.port_file + ".part", args.port_file)
    try:
        while True:
            connection, peer = server.accept()
            threading.Thread(target=serve, args=(connection, peer, args.clip, sdp, args.log), daemon=True).start()
    finally:
        for sender in senders:
            if sender.poll() is None:
                sender.kill()


senders = []

if __name__ == "__main__":
    main()
