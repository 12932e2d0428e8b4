#!/usr/bin/env python3
"""A live MPEG-TS sender of the project's own, for the live tests and bench/latency.

Sends FILE.ts in real time, paced by the video's decode timestamps, over UDP (datagrams of
seven TS packets) or TCP (to the one client that connects), and logs when each picture leaves:
a line `pts<TAB>sent_at` per video access unit, pts in seconds as the PES header gives it,
sent_at on CLOCK_MONOTONIC (the clock hplayer's --vo record logs presentations on).

    live-sender.py FILE.ts --udp HOST:PORT [--log FILE] [--burst S] [--pause-at S --pause-for S]
    live-sender.py FILE.ts --tcp-listen PORT [--log FILE] [--burst S] [--stall-at S]

--burst S        send the first S seconds at once (a backlog the player must catch up on)
--pause-at S     go quiet at media second S for --pause-for seconds, then go on (UDP)
--stall-at S     stop sending at media second S and keep the connection open until killed
--port-file F    with --tcp-listen 0: write the port chosen to F
"""
import argparse
import os
import socket
import sys
import time

TS = 188


def pids(packets):
    """The video PID, from the PAT and the PMT."""
    pmt = None
    for packet in packets:
        pid = ((packet[1] & 0x1F) << 8) | packet[2]
        payload = packet[payload_start(packet):]
        if pid == 0 and packet[1] & 0x40 and pmt is None:
            section = payload[1 + payload[0]:]
            pmt = ((section[10] & 0x1F) << 8) | section[11]
        elif pmt is not None and pid == pmt and packet[1] & 0x40:
            section = payload[1 + payload[0]:]
            length = ((section[1] & 0x0F) << 8) | section[2]
            info = ((section[10] & 0x0F) << 8) | section[11]
            at, end = 12 + info, 3 + length - 4
            while at < end:
                stream_type = section[at]
                elementary = ((section[at + 1] & 0x1F) << 8) | section[at + 2]
                if stream_type in (0x01, 0x02, 0x1B, 0x24, 0x10):
                    return elementary
                at += 5 + (((section[at + 3] & 0x0F) << 8) | section[at + 4])
    sys.exit("live-sender: no video stream in the PMT")


def payload_start(packet):
    control = (packet[3] >> 4) & 0x3
    return 5 + packet[4] if control == 3 else 4


def timestamp(field):
    return (((field[0] >> 1) & 0x07) << 30) | (field[1] << 22) | ((field[2] >> 1) << 15) | (field[3] << 7) | (field[4] >> 1)


def units(packets, video):
    """(pts, dts, packets) per video access unit, each with the packets before the next one."""
    found = []
    for packet in packets:
        pid = ((packet[1] & 0x1F) << 8) | packet[2]
        if pid == video and packet[1] & 0x40:
            pes = packet[payload_start(packet):]
            flags = pes[7] >> 6
            pts = timestamp(pes[9:14]) if flags & 2 else None
            dts = timestamp(pes[14:19]) if flags == 3 else pts
            found.append([pts, dts, []])
        if found:
            found[-1][2].append(packet)
        # packets before the first picture are dropped: a receiver could do nothing with them
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--udp")
    parser.add_argument("--tcp-listen", type=int)
    parser.add_argument("--port-file")
    parser.add_argument("--log")
    parser.add_argument("--burst", type=float, default=0)
    parser.add_argument("--pause-at", type=float)
    parser.add_argument("--pause-for", type=float, default=0)
    parser.add_argument("--stall-at", type=float)
    args = parser.parse_args()

    data = open(args.file, "rb").read()
    packets = [data[i:i + TS] for i in range(0, len(data) - TS + 1, TS)]
    video = pids(packets)
    access_units = units(packets, video)
    first = access_units[0][1]

    if args.udp:
        host, port = args.udp.rsplit(":", 1)
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        target = (host, int(port))

        def send(chunk):
            for at in range(0, len(chunk), 7 * TS):
                sock.sendto(chunk[at:at + 7 * TS], target)
    else:
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", args.tcp_listen))
        server.listen(1)
        if args.port_file:
            with open(args.port_file + ".part", "w") as out:
                out.write(str(server.getsockname()[1]))
            os.rename(args.port_file + ".part", args.port_file)
        sock, _ = server.accept()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def send(chunk):
            sock.sendall(chunk)

    log = open(args.log, "w") if args.log else None
    start = time.monotonic()
    paused = False
    for pts, dts, chunk in access_units:
        media = ((dts if dts is not None else first) - first) / 90000
        if args.stall_at is not None and media >= args.stall_at:
            if log:
                log.flush()
            time.sleep(3600)
        if args.pause_at is not None and not paused and media >= args.pause_at:
            paused = True
            start += args.pause_for
        due = start + max(0.0, media - args.burst)
        now = time.monotonic()
        if due > now:
            time.sleep(due - now)
        send(b"".join(chunk))
        if log and pts is not None:
            log.write(f"{pts / 90000:.6f}\t{time.monotonic():.6f}\n")
    if log:
        log.close()
    sock.close()


if __name__ == "__main__":
    main()
