#!/usr/bin/env python3
"""QoE_lin of one hplayer session, from its --stats-dir: the variant of each segment fetched
(network.tsv: the last request for each segment, its variant from the URL's vN/ folder, or a DASH
Representation's ffmpeg name, chunk-streamN-K.m4s), and the
time stalled after the first frame (events.tsv: buffering-start to buffering-end).

Usage: abr_qoe.py STATS_DIR BITRATE_KBPS,...   (the ladder's bit rates, variant 0 first)
Prints: qoe  mean_mbps  stalled_s  switches  segments"""
import re
import sys


def main():
    folder, rates = sys.argv[1], [float(r) / 1000 for r in sys.argv[2].split(",")]
    segments = {}
    with open(folder + "/network.tsv") as network:
        for line in network:
            fields = line.rstrip("\n").split("\t")
            found = (re.search(r"/v(\d+)/(\d+)\.ts$", fields[1]) or re.search(r"/chunk-stream(\d+)-(\d+)\.m4s$", fields[1])) if len(fields) > 1 else None
            if found and fields[3] in ("200", "206"):
                segments[int(found.group(2))] = int(found.group(1))
    played = [rates[segments[index]] for index in sorted(segments)]
    stalled, began, started = 0.0, None, False
    with open(folder + "/events.tsv") as events:
        for line in events:
            time, event = line.split("\t")[:2]
            if event == "first-frame":
                started = True
            elif event == "buffering-start" and started:
                began = float(time)
            elif event in ("buffering-end", "end") and began is not None:
                stalled += float(time) - began
                began = None
    changes = [abs(a - b) for a, b in zip(played[1:], played)]
    qoe = sum(played) - 4.3 * stalled - sum(changes)
    switches = sum(1 for change in changes if change > 0)
    print(f"{qoe:.2f}\t{sum(played) / max(len(played), 1):.3f}\t{stalled:.2f}\t{switches}\t{len(played)}")


if __name__ == "__main__":
    main()
