#!/usr/bin/env python3
"""A UDP relay of the project's own that loses datagrams, for the live tests: it forwards each
MPEG-TS datagram that arrives on --listen to --to, dropping a share of them (--loss, from a
seeded generator, so a run loses the same ones each time), and logs each one dropped.

    udp-relay.py --listen PORT --to HOST:PORT --loss 0.01 [--seed N] [--port-file F] [--log F]

--listen 0 picks a free port (written to --port-file). The log has a line per datagram dropped:
`index<TAB>pts...`, the pts (seconds) of the video access units its bytes belonged to: the one
under way when it came, and any that began in it. The relay runs until killed.
"""
import argparse
import os
import random
import socket

TS = 188


def payload_start(packet):
    control = (packet[3] >> 4) & 0x3
    return 5 + packet[4] if control == 3 else 4


def pes_pts(packet):
    """The pts (seconds) of a PES that starts in this TS packet, when it has one."""
    if not packet[1] & 0x40:
        return None
    pes = packet[payload_start(packet):]
    if len(pes) < 14 or pes[0:3] != b"\x00\x00\x01" or pes[3] < 0xE0 or pes[3] > 0xEF or not pes[7] & 0x80:
        return None
    field = pes[9:14]
    ticks = (((field[0] >> 1) & 0x07) << 30) | (field[1] << 22) | ((field[2] >> 1) << 15) | (field[3] << 7) | (field[4] >> 1)
    return ticks / 90000


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--listen", type=int, required=True)
    parser.add_argument("--to", required=True)
    parser.add_argument("--loss", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--port-file")
    parser.add_argument("--log")
    args = parser.parse_args()

    host, port = args.to.rsplit(":", 1)
    target = (host, int(port))
    inbound = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    inbound.bind(("127.0.0.1", args.listen))
    if args.port_file:
        with open(args.port_file + ".part", "w") as out:
            out.write(str(inbound.getsockname()[1]))
        os.rename(args.port_file + ".part", args.port_file)
    outbound = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    chance = random.Random(args.seed)
    log = open(args.log, "w", buffering=1) if args.log else None
    current = None  # the pts of the video access unit under way
    index = 0
    while True:
        datagram, _ = inbound.recvfrom(65536)
        touched = [current] if current is not None else []
        for at in range(0, len(datagram) - TS + 1, TS):
            pts = pes_pts(datagram[at:at + TS])
            if pts is not None:
                current = pts
                touched.append(pts)
        if chance.random() < args.loss:
            if log:
                log.write("\t".join([str(index)] + [f"{pts:.6f}" for pts in touched]) + "\n")
        else:
            outbound.sendto(datagram, target)
        index += 1


if __name__ == "__main__":
    main()
