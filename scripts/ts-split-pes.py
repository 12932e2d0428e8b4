#!/usr/bin/env python3
"""Rewrites an MPEG-TS so that each video picture is carried by two PES packets: the first with
the picture's timestamps and the first half of its bytes, the second with no timestamp and the
rest. Some encoders split pictures so; a demuxer must join them. Other streams are copied as they
are; each video PES goes out where it ended, and PCRs on the video PID are dropped.

    ts-split-pes.py IN.ts OUT.ts
"""
import importlib.util
import os
import sys

TS = 188
_spec = importlib.util.spec_from_file_location("live_sender", os.path.join(os.path.dirname(os.path.abspath(__file__)), "live-sender.py"))
sender = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sender)


def packetize(pid, pes, counter):
    """TS packets carrying one PES on `pid`, the last padded with adaptation-field stuffing."""
    out = []
    for at in range(0, len(pes), TS - 4):
        chunk = pes[at:at + TS - 4]
        start = 0x40 if at == 0 else 0
        header = bytes([0x47, start | (pid >> 8), pid & 0xFF])
        if len(chunk) == TS - 4:
            out.append(header + bytes([0x10 | counter]) + chunk)
        else:
            stuffing = TS - 4 - len(chunk)  # adaptation field: its length byte, then flags and 0xFF
            field = bytes([stuffing - 1]) + (bytes([0x00]) + b"\xff" * (stuffing - 2) if stuffing > 1 else b"")
            out.append(header + bytes([0x30 | counter]) + field + chunk)
        counter = (counter + 1) & 0x0F
    return out, counter


def split(pes):
    """The PES as two: its header (unbounded length) and the first half, then a header with no
    timestamp and the rest."""
    header_end = 9 + pes[8]
    payload = pes[header_end:]
    half = len(payload) // 2
    first = pes[:4] + b"\x00\x00" + pes[6:header_end] + payload[:half]
    second = pes[:4] + b"\x00\x00\x80\x00\x00" + payload[half:]
    return first, second


def main():
    source, target = sys.argv[1], sys.argv[2]
    data = open(source, "rb").read()
    packets = [data[at:at + TS] for at in range(0, len(data) - TS + 1, TS)]
    video = sender.pids(packets)
    out, pes, counter = [], None, 0

    def flush():
        nonlocal counter
        if pes is None:
            return
        for part in split(bytes(pes)):
            written, counter = packetize(video, part, counter)
            out.extend(written)

    for packet in packets:
        pid = ((packet[1] & 0x1F) << 8) | packet[2]
        if pid != video:
            out.append(packet)
            continue
        payload = packet[sender.payload_start(packet):] if packet[3] & 0x10 else b""
        if packet[1] & 0x40:
            flush()
            pes = bytearray(payload)
        elif pes is not None:
            pes += payload
    flush()
    with open(target, "wb") as file:
        file.write(b"".join(out))


if __name__ == "__main__":
    main()
