#!/usr/bin/env python3
"""4K HEVC decoding on the device machine: software against --hwdec=nvdec, and NVENC against libx264.

Runs there, on the folder prepare.sh filled (FOLDER: pack.py's archive, the clips, their MD5s):
  measure.py FOLDER OUT
For each clip, `hplayer bench` runs alternately in software and with --hwdec=nvdec (RUNS times each):
wall seconds, CPU seconds (the child's user + system, from wait4) and peak RSS. Then each mode plays
the clip once with --vo record, and the MD5 of every picture presented is compared with what FFmpeg's
software decoder gives here (prepare.sh): yuv420p for software, and the same pictures converted to the
GPU's format (NV12, P010) for NVDEC, since the picture is downloaded in the format the GPU decoded.
Prints a Markdown table and writes OUT/results.json. Exits 1 when a run fails (a stub called
aborts it) or a picture differs, in software or where the GPU decoded it.
HWDEC_SMOKE=1 (bench/hwdec/smoke.sh, without a GPU): one run each, and a short encode.
HWDEC_FALLBACKS_ONLY=1: the fallback streams alone.
"""
import glob
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time

SMOKE = os.environ.get("HWDEC_SMOKE") == "1"
RUNS = 1 if SMOKE else 3
# (label, --hwdec, --vd-lavc-threads): software with a thread per core, and NVDEC with its default
# of one decoder thread and with four (slice threads: a hardware decoder takes no frame threads).
MODES = [("software", "no", 0), ("nvdec", "nvdec", 0), ("nvdec, 4 threads", "nvdec", 4)]


def driver_folders():
    """Folders of the NVIDIA libraries FFmpeg opens at run time (libcuda, libnvcuvid, libnvidia-encode)."""
    found = {}
    listing = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
    for name in ("libcuda.so.1", "libnvcuvid.so.1", "libnvidia-encode.so.1"):
        for line in listing.splitlines():
            if line.strip().startswith(name + " "):
                found[name] = line.split("=>")[-1].strip()
                break
        else:
            for folder in ("/usr/local/nvidia/lib64", "/usr/local/nvidia/lib", "/usr/lib/x86_64-linux-gnu",
                           "/usr/lib64", "/usr/local/cuda/compat", "/usr/local/cuda/lib64"):
                hits = glob.glob(os.path.join(folder, name + "*"))
                if hits:
                    found[name] = hits[0]
                    break
    return found


def launcher(folder):
    """How to start hplayer here: directly, or through the carried glibc's loader when this one is older."""
    direct = [os.path.join(folder, "hplayer")]
    probe = subprocess.run(direct + ["--version"], capture_output=True, text=True)
    if probe.returncode == 0:
        return direct, probe.stdout.strip()
    glibc = os.path.join(folder, "glibc")
    loader = [os.path.join(glibc, "ld-linux-x86-64.so.2"), "--library-path",
              os.environ["LD_LIBRARY_PATH"] + ":" + glibc] + direct
    probe2 = subprocess.run(loader + ["--version"], capture_output=True, text=True)
    if probe2.returncode != 0:
        sys.exit(f"hplayer does not start here: {probe.stderr.strip()} / {probe2.stderr.strip()}")
    return loader, probe2.stdout.strip() + " (through the carried glibc: " + probe.stderr.strip() + ")"


def timed(command, timeout=300):
    """Runs command: its wall seconds, CPU seconds (user + system), peak RSS (MiB), stdout, stderr, code."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.monotonic()
        process = subprocess.Popen(command, stdout=out, stderr=err, text=True)
        killer = threading.Timer(timeout, process.kill)
        killer.start()
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.monotonic() - started
        killer.cancel()
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return (wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out.read(), err.read(),
                process.returncode)


def framemd5(path):
    return [line.rsplit(",", 1)[-1].strip() for line in open(path) if line.strip() and not line.startswith("#")]


def recorded(folder):
    return [line.split("\t")[-1].strip() for line in open(os.path.join(folder, "video.tsv")) if line.strip()]


def bench(hplayer, clip, mode, threads=0, before=None):
    hplayer = before or hplayer
    arguments = hplayer + ["bench", "-v", clip, "--hwdec", mode, "--vd-lavc-threads", str(threads)]
    wall, cpu, rss, out, err, code = timed(arguments)
    fields = out.split()
    fps = float(fields[fields.index("fps") + 1]) if "fps" in fields else None
    frames = int(fields[fields.index("frames") + 1]) if "frames" in fields else None
    return {"wall": wall, "cpu": cpu, "rss": rss, "fps": fps, "frames": frames, "rc": code,
            "hardware": f"hardware decoding ({mode})" in err, "threads": threads,
            "page_locked": "page-locked buffers" in err, "stderr": err.strip()[-600:]}


def exactness(hplayer, clip, mode, threads, reference, before=None):
    hplayer = before or hplayer
    folder = tempfile.mkdtemp(prefix="record-")
    arguments = hplayer + [clip, "--untimed", "--vo", f"record:{folder}", "--ao", "null", "--no-audio",
                           "--no-status", "--hwdec", mode, "--vd-lavc-threads", str(threads)]
    _, _, _, _, err, code = timed(arguments)
    got = recorded(folder) if os.path.exists(os.path.join(folder, "video.tsv")) else []
    want = framemd5(reference)
    first_difference = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), None)
    return {"rc": code, "pictures": len(got), "expected": len(want), "equal": got == want,
            "first_difference": first_difference, "stderr": err.strip()[-600:]}


def encode(hplayer, mode, out):
    target = os.path.join(out, f"encode-{mode}.mp4")
    size, seconds = ("320x180", "0.5") if SMOKE else ("3840x2160", "5")
    arguments = hplayer + ["encode", "--from", f"pattern:{size}@30", "-t", seconds, "-o", target, "--hwenc", mode]
    wall, cpu, rss, _, err, code = timed(arguments)
    check = bench(hplayer, target, "no") if code == 0 else {}
    os.path.exists(target) and os.remove(target)
    return {"wall": wall, "cpu": cpu, "rss": rss, "rc": code, "stderr": err.strip()[-600:], "frames_decoded": check.get("frames")}


def fallbacks(hplayer, folder):
    """--hwdec=nvdec on streams NVDEC cannot decode (H.264 4:2:2): from the start, and after a 4:2:0
    part it did decode. One line should say so, and no picture be lost, doubled or changed: each
    equals the reference picture as the GPU gives it (NV12) or as software does (the pictures
    after the last key frame before the change are decoded again in software), per prepare.sh's
    fallback-*.md5 and fallback-*.sw.md5."""
    results = {}
    for clip in sorted(glob.glob(os.path.join(folder, "fallback-*.h264"))):
        name, base = os.path.basename(clip), clip.removesuffix(".h264")
        record = tempfile.mkdtemp(prefix="record-")
        _, _, _, _, err, code = timed(hplayer + [clip, "--untimed", "--vo", f"record:{record}", "--ao", "null",
                                                 "--no-status", "--hwdec", "nvdec"])
        got = recorded(record) if os.path.exists(os.path.join(record, "video.tsv")) else []
        gpu = framemd5(base + ".md5")
        cpu = framemd5(base + ".sw.md5") if os.path.exists(base + ".sw.md5") else gpu
        lines = [line for line in err.splitlines() if line.strip()]
        results[name] = {
            "rc": code, "pictures": len(got), "expected": len(gpu),
            "equal": len(got) == len(gpu) and all(g in (h, s) for g, h, s in zip(got, gpu, cpu)),
            "from_gpu": sum(1 for g, h, s in zip(got, gpu, cpu) if g == h != s),
            "hardware_lines": [line for line in lines if "nvdec" in line or line.startswith("hplayer: warning: [")],
        }
        print(name, results[name], flush=True)
    return results


def unpack(folder):
    """pack.py's archive, unpacked outside the working tree (which travels, so carries it packed)."""
    bundle = tempfile.mkdtemp(prefix="hplayer-")
    with tarfile.open(os.path.join(folder, "hplayer.tar.xz")) as archive:
        archive.extractall(bundle)
    return bundle


def main():
    # Every temporary file and folder (the unpacked bundle, the recordings) goes in one folder
    # removed at exit, on every path: smoke.sh runs this in the test command.
    with tempfile.TemporaryDirectory(prefix="hwdec-") as scratch:
        tempfile.tempdir = scratch
        measure(sys.argv[1], sys.argv[2])


def measure(folder, out):
    bundle = unpack(folder)
    drivers = driver_folders()
    os.environ["LD_LIBRARY_PATH"] = ":".join([os.path.join(bundle, "lib")] +
                                             sorted({os.path.dirname(p) for p in drivers.values()}))
    hplayer, version = launcher(bundle)
    # A build to compare with (pack.py --before): run as hplayer is, with its path swapped.
    before = [part.replace(os.path.join(bundle, "hplayer"), os.path.join(bundle, "hplayer-before")) for part in hplayer] \
        if os.path.exists(os.path.join(bundle, "hplayer-before")) else None
    modes = MODES + ([("nvdec, before", "nvdec", 0)] if before else [])
    results = {"version": version, "drivers": drivers, "cores": os.cpu_count(), "clips": {}, "encode": {}}
    print(version, drivers, f"{os.cpu_count()} cores", flush=True)
    only_fallbacks = os.environ.get("HWDEC_FALLBACKS_ONLY") == "1"
    for clip_name in () if only_fallbacks else ("hevc-2160p-8bit.mp4", "hevc-2160p-10bit.mp4"):
        clip = os.path.join(folder, clip_name)
        stem = clip_name.removesuffix(".mp4").removeprefix("hevc-2160p-")
        runs, exact = {label: [] for label, _, _ in modes}, {}
        for _ in range(RUNS):
            for label, mode, threads in modes:
                runs[label].append(bench(hplayer, clip, mode, threads, before if label.endswith("before") else None))
                print(clip_name, label, {k: v for k, v in runs[label][-1].items() if k != "stderr"}, flush=True)
        for label, mode, threads in modes:
            reference = os.path.join(folder, f"ref-{stem}-{'sw' if mode == 'no' else 'hw'}.md5")
            exact[label] = exactness(hplayer, clip, mode, threads, reference, before if label.endswith("before") else None)
            print(clip_name, label, "exact", exact[label], flush=True)
        results["clips"][clip_name] = {"runs": runs, "exact": exact}
    results["fallbacks"] = fallbacks(hplayer, folder)
    for mode in () if only_fallbacks else ("no", "nvenc"):
        results["encode"][mode] = encode(hplayer, mode, out)
        print("encode", mode, results["encode"][mode], flush=True)
    with open(os.path.join(out, "results.json"), "w") as file:
        json.dump(results, file, indent=1)
    print("\n| clip | decoder | fps (bench) | wall s | CPU s | CPU ms per frame | peak RSS MiB | in hardware | page-locked | pictures exact |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for clip_name, clip in results["clips"].items():
        for label, runs in clip["runs"].items():
            median = lambda key: statistics.median(r[key] for r in runs if r[key] is not None)
            frames = runs[0]["frames"] or 1
            exact = clip["exact"][label]
            print(f"| {clip_name} | {label} | {median('fps'):.1f} | {median('wall'):.2f} "
                  f"| {median('cpu'):.2f} | {1000 * median('cpu') / frames:.1f} | {median('rss'):.0f} | {all(r['hardware'] for r in runs)} | {all(r['page_locked'] for r in runs)} "
                  f"| {exact['equal']} ({exact['pictures']}/{exact['expected']}) |")
    failures = [f"{clip_name} {label}: run failed" for clip_name, clip in results["clips"].items()
                for label, runs in clip["runs"].items() if any(r["rc"] != 0 for r in runs)]
    failures += [f"{clip_name} {label}: pictures differ" for clip_name, clip in results["clips"].items()
                 for label, exact in clip["exact"].items()
                 if exact["rc"] != 0 or (not exact["equal"] and (label == "software" or all(r["hardware"] for r in clip["runs"][label])))]
    failures += [f"{name}: pictures differ" for name, exact in results["fallbacks"].items() if exact["rc"] != 0 or not exact["equal"]]
    failures += [f"{name}: libav*'s own lines shown" for name, exact in results["fallbacks"].items()
                 if any(line.startswith("hplayer: warning: [") for line in exact["hardware_lines"])]
    failures += [f"encode {mode}: failed" for mode, result in results["encode"].items() if result["rc"] != 0]
    for failure in failures:
        print("measure.py:", failure, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
