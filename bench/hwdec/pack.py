#!/usr/bin/env python3
"""Packs a release hplayer and the Debian libraries it loads for a machine that has neither.

The device machine (an NVIDIA GPU, no Swift, no FFmpeg, no package registry) takes a working tree of
64 MiB at most, and the full closure of hplayer's libraries is 227 MiB (FFmpeg's optional codecs and
filters pull in speech synthesis, ICU data, LAPACK, ...). So the libraries the decode path never
calls are replaced by stubs: a tiny library with the same soname, version nodes and symbols, whose
functions all abort naming the library. A stub that is called fails loudly, never silently.

Usage: pack.py BINARY OUT.tar.xz [--keep SONAME ...] [--before BINARY]
--before adds another build as hplayer-before (the same libraries), for measure.py to compare.
The archive holds hplayer (debug info stripped), lib/ (kept libraries and stubs) and glibc/ (for a
machine whose glibc is older); run it with LD_LIBRARY_PATH=lib. Try it here first with that path: the stubs then stand in for the real ones.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

# Libraries of FFmpeg's optional filters, encoders and protocols, and their big data, that no path
# the device run takes calls (checked by running it here with LD_LIBRARY_PATH=lib): stubbed. The
# rest of the closure is carried.
STUBBED = re.compile(r"^lib(flite.*|rsvg-2|placebo|rubberband|pocketsphinx|sphinxbase|lilv-0|mysofa|codec2|SvtAv1Enc"
                     r"|rav1e|jxl|jxl_threads|zmq|OpenCL|mfx|icuuc|icudata|icui18n|gfortran|lapack|blas|cairo"
                     r"|ssh-gcrypt|srt-gnutls|rist|bluray|zvbi|chromaprint|rabbitmq|ass|zimg|vidstab|bs2b"
                     r"|openjp2|webp|webpmux|gsm|shine|speex|twolame|theoraenc|theoradec|vorbisenc|xvidcore|snappy"
                     r"|x265|aom|vpx)\.so")
# Of those, the ones libavcodec asks at start-up what they can do (init_static_data): their stubs
# answer 0 (no interface, no capabilities), which FFmpeg takes as "not available".
ANSWERS_ZERO = re.compile(r"^lib(x265|aom|vpx)\.so")
# Opened with dlopen when asked for (hplayer encode's pattern: and capture sources; libavfilter
# for a tempo other than 1x), so not in the binary's needs.
OPENED = ["libavdevice.so.59", "libavfilter.so.8"]
# glibc's own: the machine's (newer) ones serve.
SYSTEM = re.compile(r"^(libc|libm|libpthread|libdl|librt|libresolv|ld-linux-x86-64)\.so")


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def needed(path):
    return re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", run("readelf", "-d", path))


def resolve(binary):
    """soname -> path, for every library the binary loads."""
    paths = {}
    for line in run("ldd", binary).splitlines():
        match = re.match(r"\s*(\S+) => (/\S+)", line)
        if match:
            paths[match.group(1)] = match.group(2)
    return paths


def closure(binary, paths, keep, opened):
    """The libraries to carry whole, and those to stub: a stubbed library's own needs are not followed."""
    whole, stubbed, queue = set(), set(), list(needed(binary)) + opened
    while queue:
        name = queue.pop()
        if SYSTEM.match(name) or name in whole or name in stubbed:
            continue
        if STUBBED.match(name) and name not in keep:
            stubbed.add(name)
        else:
            whole.add(name)
            queue.extend(needed(paths[name]))
    return whole, stubbed


def make_stub(soname, path, folder):
    """A library named soname that defines what path's dynamic symbol table defines."""
    functions, objects, versions = [], [], {}
    for line in run("readelf", "--dyn-syms", "-W", path).splitlines():
        fields = line.split()
        if len(fields) < 8 or not fields[0][:-1].isdigit() or fields[6] in ("UND", "ABS"):
            continue
        kind, size, name = fields[3], int(fields[2], 0), fields[7]
        if kind not in ("FUNC", "IFUNC", "OBJECT") or fields[4] not in ("GLOBAL", "WEAK"):
            continue
        version = None
        if "@@" in name:
            name, version = name.split("@@")
        elif "@" in name:
            continue  # an old version kept for old binaries: nothing here links it
        if version:
            versions.setdefault(version, []).append(name)
        (functions if kind != "OBJECT" else objects).append((name, size))
    source = os.path.join(folder, soname + ".c")
    with open(source, "w") as out:
        out.write("#include <stdio.h>\n#include <stdlib.h>\n")
        if ANSWERS_ZERO.match(soname):
            out.write("static long hp_stub(void) { return 0; }\n")
        else:
            out.write(f'static void hp_stub(void) {{ fputs("stub of {soname} called\\n", stderr); abort(); }}\n')
        # C names by index, the symbols' own names as assembler labels (any characters go).
        for index, (name, _) in enumerate(functions):
            out.write(f'void f{index}(void) __asm__("{name}") __attribute__((alias("hp_stub")));\n')
        for index, (name, size) in enumerate(objects):
            out.write(f'char d{index}[{max(size, 1)}] __asm__("{name}") __attribute__((aligned(16)));\n')
    compiler = os.environ.get("CC") or shutil.which("gcc") or shutil.which("clang") or "cc"  # Swift brings clang
    arguments = [compiler, "-shared", "-fPIC", "-O1", "-w", "-fno-builtin", f"-Wl,-soname,{soname}", "-o",
                 os.path.join(folder, "lib", soname), source]
    if versions:
        script = os.path.join(folder, soname + ".map")
        with open(script, "w") as out:
            for version, names in versions.items():
                out.write(f"{version} {{ global: {' '.join(n + ';' for n in names)} }};\n")
        arguments.insert(1, f"-Wl,--version-script={script}")
    subprocess.run(arguments, check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("archive")
    parser.add_argument("--keep", nargs="*", default=[])
    parser.add_argument("--before")
    arguments = parser.parse_args()
    paths = resolve(arguments.binary)
    for name in OPENED:
        path = os.path.join(os.path.dirname(paths["libavformat.so.59"]), name)  # FFmpeg's libraries' folder
        paths.update(resolve(path))
        paths[name] = path
    whole, stubbed = closure(arguments.binary, paths, set(arguments.keep), OPENED)
    with tempfile.TemporaryDirectory() as folder:
        os.mkdir(os.path.join(folder, "lib"))
        for name in sorted(stubbed):
            make_stub(name, paths[name], folder)
        binary = os.path.join(folder, "hplayer")
        subprocess.run(["objcopy", "--strip-debug", arguments.binary, binary], check=True)
        preset = int(os.environ.get("HWDEC_XZ_PRESET", "6"))  # 0 for the smoke run: fast, larger
        with tarfile.open(arguments.archive, "w:xz", preset=preset) as archive:
            archive.add(binary, "hplayer")
            if arguments.before:
                before = os.path.join(folder, "hplayer-before")
                subprocess.run(["objcopy", "--strip-debug", arguments.before, before], check=True)
                archive.add(before, "hplayer-before")
            for name in sorted(whole):
                archive.add(os.path.realpath(paths[name]), "lib/" + name)
            for name in sorted(stubbed):
                archive.add(os.path.join(folder, "lib", name), "lib/" + name)
            # For a machine whose glibc is older than Debian 12's: run through this loader.
            for name in sorted(n for n in paths if SYSTEM.match(n)) + ["ld-linux-x86-64.so.2"]:
                archive.add(os.path.realpath(paths.get(name, "/lib64/" + name)), "glibc/" + name)
    size = os.path.getsize(arguments.archive)
    print(f"{arguments.archive}: {size / 2**20:.1f} MiB; {len(whole)} libraries whole, {len(stubbed)} stubbed: "
          + " ".join(sorted(stubbed)), file=sys.stderr)


if __name__ == "__main__":
    main()
