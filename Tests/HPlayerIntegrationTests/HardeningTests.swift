import Foundation
import Glibc
import HPlayerIPC
import HPlayerKit
import HPlayerTestSupport
import Testing

extension Playback {
    /// Numbers that once crashed hplayer: Swift traps on converting a huge or NaN Double to an
    /// integer, and media times and user numbers can be anything. Each is played, clamped, or
    /// refused with one line; none crashes (a crash is exit 132, SIGILL).
    @Suite struct HugeNumbers {
        /// The clip of `Clips.video("h264")` with every timestamp moved 1e13 s later (Matroska).
        static func farTimestamps() throws -> String {
            let clip = try Clips.video("h264")
            return try Fixtures.clip("timestamps-1e13.mkv", ["-i", clip, "-c", "copy", "-bsf:v", "setts=ts=TS+1e13/TB"])
        }

        @Test("Timestamps near 1e13 s: every frame of the clip is presented, as ffmpeg decodes it unshifted, and a snapshot is taken")
        func timestampsNear1e13() throws {
            let clip = try Self.farTimestamps()
            let folder = Fixtures.newFolder("far-timestamps")
            let played = try Command.run([Command.hplayer, clip, "--vo", "record:\(folder)", "--ao", "null", "--no-status", "--untimed"], timeout: 60)
            #expect(played.status == 0, "stderr: \(played.stderr)")
            let presented = try String(contentsOfFile: folder + "/video.tsv", encoding: .utf8).split(separator: "\n")
                .map { String($0.split(separator: "\t")[2]) }
            // ffmpeg's framemd5 muxer cannot write timestamps this large: the unshifted clip is the reference.
            #expect(presented == (try Fixtures.frameMD5s(try Clips.video("h264"))))
            let png = folder + "/frame.png"
            let snapshot = try Command.run([Command.hplayer, "snapshot", clip, "--at", "0", "-o", png], timeout: 60)
            #expect(snapshot.status == 0, "stderr: \(snapshot.stderr)")
            #expect(FileManager.default.fileExists(atPath: png))
        }

        @Test("Huge numbers on the command line are played or refused with one line, never a crash", arguments: [
            ["--start", "1e13"], ["--start", "1e300"], ["--ab-loop-a", "0", "--ab-loop-b", "1e15"],
            ["--ab-loop-b", "1e300"],
        ])
        func commandLine(_ options: [String]) throws {
            for clip in [try Clips.audioVideo(seconds: 2), try Self.rawH264(), try Self.audioOnly()] {
                let result = try Command.run([Command.hplayer, clip, "--vo", "null", "--ao", "null", "--no-status"] + options, timeout: 30)
                #expect(!result.timedOut)
                #expect(result.status == 0 || result.status == 1, "\(options) on \(clip): status \(result.status), \(result.stderr.suffix(300))")
                if result.status == 1 {
                    #expect(result.stderr.split(separator: "\n").last?.hasPrefix("hplayer: error: \(clip): ") == true, "stderr: \(result.stderr)")
                }
            }
        }

        @Test("A window geometry past 32 bits is a usage error naming the option", arguments: [
            "3000000000x10", "+99999999999+0", "10x-5", "0x0",
        ])
        func geometry(_ geometry: String) throws {
            let result = try Command.run([Command.hplayer, try Clips.audioVideo(seconds: 2), "--vo", "null", "--ao", "null",
                                          "--geometry", geometry], timeout: 30)
            #expect(result.status == 2)
            #expect(result.stderr.split(separator: "\n") == ["hplayer: error: --geometry: expected WxH, +X+Y or WxH+X+Y, got '\(geometry)'"])
        }

        @Test("A snapshot at 1e13 s is past the end: one line, exit 1")
        func snapshotFarPastTheEnd() throws {
            let png = Fixtures.newFolder("snapshot-1e13") + "/frame.png"
            let result = try Command.run([Command.hplayer, "snapshot", try Clips.video("h264"), "--at", "1e13", "-o", png], timeout: 30)
            #expect(result.status == 1)
            #expect(result.stderr.split(separator: "\n").count == 1, "stderr: \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: png))
        }

        /// Paused, as the render loops then stand still: playing, a seek past the end ends the file
        /// (as mpv's does), and time-pos would be gone or not by which came first.
        @Test("IPC: huge and NaN observer ids are refused as mpv refuses them; huge seeks and A-B points are taken while paused, and the player still answers",
              .timeLimit(.minutes(1)))
        func ipc() throws {
            let socket = Fixtures.newFolder("ipc-huge") + "/hplayer.sock"
            let process = try BackgroundProcess([Command.hplayer, try Self.rawH264(), "--vo", "null", "--ao", "null", "--no-status",
                                                 "--input-ipc-server", socket])
            let client = try IPCClient(path: socket)
            func reply(_ raw: String) -> JSONValue? {
                client.send(raw: raw + "\n")
                return client.readUntil(timeout: 5) { $0["request_id"] == .number(7) }
            }
            for request in [#"{"command": ["observe_property", 1e300, "pause"], "request_id": 7}"#,
                            #"{"command": ["observe_property", "nan", "pause"], "request_id": 7}"#,
                            #"{"command": ["unobserve_property", 1e19], "request_id": 7}"#,
                            #"{"command": ["observe_property", 1.5, "pause"], "request_id": 7}"#] {
                #expect(reply(request)?["error"] == .string("invalid parameter"), "\(request)")
            }
            #expect(reply(#"{"command": ["set_property", "pause", true], "request_id": 7}"#)?["error"] == .string("success"))
            #expect(reply(#"{"command": ["set_property", "ab-loop-b", 1e300], "request_id": 7}"#)?["error"] == .string("success"))
            #expect(reply(#"{"command": ["set_property", "ab-loop-b", "no"], "request_id": 7}"#)?["error"] == .string("success"))
            #expect(reply(#"{"command": ["seek", 1e13, "relative"], "request_id": 7}"#)?["error"] == .string("success"))
            #expect(reply(#"{"command": ["set_property", "time-pos", 1e13], "request_id": 7}"#)?["error"] == .string("success"))
            #expect(reply(#"{"command": ["get_property", "time-pos"], "request_id": 7}"#)?["data"] == .number(1e13))
            #expect(client.request([.string("quit")])?["error"] == .string("success"))
            #expect(process.wait(timeout: 10) == 0)
        }

        /// Raw H.264: no duration and no index, so a seek cannot be clamped to the end.
        static func rawH264() throws -> String {
            try Fixtures.clip("raw-2s.264", ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2", "-c:v", "libx264", "-f", "h264"])
        }

        static func audioOnly() throws -> String {
            try Fixtures.clip("tone-2s.m4a", ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=2", "-c:a", "aac"])
        }
    }

    /// IPC observers belong to the client that made them, as mpv's.
    @Suite struct IPCObservers {
        @Test("A client's observers go with it: the next client, on the same descriptor, hears nothing of them and cannot remove them",
              .timeLimit(.minutes(1)))
        func observersArePerClient() throws {
            let socket = Fixtures.newFolder("ipc-observers") + "/hplayer.sock"
            let process = try BackgroundProcess([Command.hplayer, try Clips.audioVideo(seconds: 6), "--vo", "null", "--ao", "null",
                                                 "--no-status", "--input-ipc-server", socket])
            let driver = try IPCClient(path: socket)
            #expect(driver.waitUntilLoaded())
            for _ in 0..<20 {
                let gone = try IPCClient(path: socket)
                #expect(gone.request([.string("observe_property"), .number(1), .string("pause")])?["error"] == .string("success"))
            }
            let next = try IPCClient(path: socket)
            #expect(next.request([.string("unobserve_property"), .number(1)])?["error"] == .string("invalid parameter"))
            #expect(driver.request([.string("set_property"), .string("pause"), .bool(true)])?["error"] == .string("success"))
            #expect(driver.request([.string("set_property"), .string("pause"), .bool(false)])?["error"] == .string("success"))
            // The observation compares every 50 ms: a change of the observers gone would reach `next` within this.
            #expect(next.readUntil(timeout: 1) { $0["event"] == .string("property-change") } == nil)
            // Its own observer with the same id is its own, told at once and on each change.
            #expect(next.request([.string("observe_property"), .number(1), .string("pause")])?["error"] == .string("success"))
            #expect(next.event("property-change", timeout: 5)?["data"] == .bool(false))
            #expect(driver.request([.string("set_property"), .string("pause"), .bool(true)])?["error"] == .string("success"))
            #expect(next.event("property-change", timeout: 5)?["data"] == .bool(true))
            #expect(next.request([.string("unobserve_property"), .number(1)])?["error"] == .string("success"))
            #expect(driver.request([.string("quit")])?["error"] == .string("success"))
            #expect(process.wait(timeout: 10) == 0)
        }
    }

    /// mpv's loadfile replace, many at once: each stops only the file that played as it came.
    @Suite struct LoadFileBurst {
        @Test("A burst of 100 loadfile replace: the last file plays to its end, or quit ends it; never a wedge",
              .timeLimit(.minutes(3)), arguments: 1...6)
        func burst(trial: Int) throws {
            let socket = Fixtures.newFolder("loadfile-burst") + "/hplayer.sock"
            let process = try BackgroundProcess([Command.hplayer, try Clips.audioVideo(seconds: 6), "--vo", "null", "--ao", "null",
                                                 "--no-status", "--input-ipc-server", socket])
            let client = try IPCClient(path: socket)
            let last = try Clips.audioVideo(seconds: 2)
            let request = JSONValue.object(["command": .array([.string("loadfile"), .string(last), .string("replace")])]).line
            client.send(raw: String(repeating: request, count: 100))
            let lastID = (1...100).compactMap { _ in client.readUntil(timeout: 10) { $0["data"]?["playlist_entry_id"] != nil } }
                .last?["data"]?["playlist_entry_id"]
            #expect(lastID == .number(101))
            if trial.isMultiple(of: 2) {
                #expect(client.request([.string("quit")])?["error"] == .string("success"))
            } else {
                let ended = client.readUntil(timeout: 30) { $0["event"] == .string("end-file") && $0["playlist_entry_id"] == lastID }
                #expect(ended?["reason"] == .string("eof"), "events: \(client.events.suffix(6))")
            }
            #expect(process.wait(timeout: 15) == 0)
        }
    }

    /// Named pipes block in open(2) until their other end comes: hplayer waits for it in steps
    /// that a quit ends.
    @Suite struct NamedPipes {
        static func newPipe() throws -> String {
            let path = Fixtures.newFolder("named-pipe") + "/pipe"
            try #require(mkfifo(path, 0o600) == 0)
            return path
        }

        @Test("A named pipe with no writer: Ctrl-C ends the wait at once, with 130", .timeLimit(.minutes(1)))
        func interruptedWhileWaitingForAWriter() throws {
            let process = try BackgroundProcess([Command.hplayer, try Self.newPipe(), "--vo", "null", "--ao", "null", "--no-status"])
            MonotonicClock.sleep(until: MonotonicClock.now() + 0.5)
            #expect(process.isRunning)
            #expect(process.sendWhenHandled(signal: SIGINT), "hplayer came to handle Ctrl-C")
            #expect(process.wait(timeout: 5) == 130)
        }

        @Test("What a writer sends into a named pipe plays: the frames ffmpeg decodes", .timeLimit(.minutes(1)))
        func aWriterComes() throws {
            let pipe = try Self.newPipe()
            let clip = try Fixtures.clip("pipe-2s.ts", ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2", "-c:v", "libx264"])
            let folder = Fixtures.newFolder("named-pipe-played")
            let process = try BackgroundProcess([Command.hplayer, pipe, "--vo", "record:\(folder)", "--ao", "null", "--no-status", "--untimed"])
            MonotonicClock.sleep(until: MonotonicClock.now() + 0.3)
            try #require(try Command.run(["sh", "-c", "cat \(clip) > \(pipe)"], timeout: 20).status == 0)
            #expect(process.wait(timeout: 20) == 0, "stderr: \(process.stderr)")
            let presented = try String(contentsOfFile: folder + "/video.tsv", encoding: .utf8).split(separator: "\n")
                .map { String($0.split(separator: "\t")[2]) }
            #expect(presented == (try Fixtures.frameMD5s(clip)))
        }

        @Test("IPC: loadfile of a named pipe with no writer, then quit, quits; stream-record to one with no reader is refused at once",
              .timeLimit(.minutes(1)))
        func overTheIPC() throws {
            let socket = Fixtures.newFolder("ipc-pipe") + "/hplayer.sock"
            let process = try BackgroundProcess([Command.hplayer, try Clips.audioVideo(seconds: 6), "--vo", "null", "--ao", "null",
                                                 "--no-status", "--input-ipc-server", socket])
            let client = try IPCClient(path: socket)
            #expect(client.waitUntilLoaded())
            let start = MonotonicClock.now()
            let fifo = Fixtures.newFolder("record-pipe") + "/out.ts"
            try #require(mkfifo(fifo, 0o600) == 0)
            #expect(client.request([.string("set_property"), .string("stream-record"), .string(fifo)])?["error"]
                    == .string("error accessing property"))
            #expect(client.request([.string("get_property"), .string("time-pos")])?["error"] == .string("success"))
            #expect(MonotonicClock.now() - start < 3, "the IPC waited on a pipe")
            #expect(client.request([.string("loadfile"), .string(try Self.newPipe())])?["error"] == .string("success"))
            #expect(client.event("start-file", timeout: 10) != nil)
            #expect(client.request([.string("quit")])?["error"] == .string("success"))
            #expect(process.wait(timeout: 10) == 0)
        }
        /// A reader that opens the pipe and then takes nothing, or takes a little and leaves.
        enum StoppingReader: String, CaseIterable, Sendable {
            case takesNothing = "the named pipe's reader took nothing for 2 s"
            case leaves = "the named pipe's reader has gone"

            var script: String {
                switch self {
                case .takesNothing:
                    """
                    import os, sys, time
                    os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
                    print("open", flush=True)
                    time.sleep(60)
                    """
                case .leaves:
                    """
                    import os, select, sys
                    fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
                    print("open", flush=True)
                    select.select([fd], [], [], 30)
                    os.read(fd, 1024)
                    """
                }
            }
        }

        @Test("A recording into a named pipe whose reader keeps up ends whole: no error line, and the reader has every frame", .timeLimit(.minutes(1)))
        func recordingIntoAPipeWhoseReaderKeepsUp() throws {
            let clip = try Fixtures.clip("record-pipe-3s.mp4", ["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=3",
                                                                "-c:v", "libx264", "-g", "25", "-pix_fmt", "yuv420p"])
            let folder = Fixtures.newFolder("record-pipe-healthy")
            let fifo = folder + "/out.ts"
            try #require(mkfifo(fifo, 0o600) == 0)
            // Opens the pipe, says so, then copies all that comes until the writer closes it.
            let copier = """
                import os, select, sys, time
                fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
                print("open", flush=True)
                started = False
                with open(sys.argv[2], "wb") as out:
                    while True:
                        select.select([fd], [], [], 1)
                        try:
                            data = os.read(fd, 65536)
                        except BlockingIOError:
                            continue
                        if data:
                            out.write(data)
                            started = True
                        elif started:
                            break
                        else:
                            time.sleep(0.01)
                """
            let reader = try BackgroundProcess(["python3", "-c", copier, fifo, folder + "/copy.ts"])
            try #require(eventually(timeout: 20) { reader.stdout == "open\n" })
            let result = try Command.run([Command.hplayer, clip, "--vo", "null", "--ao", "null", "--no-status", "--untimed", "--record-file", fifo],
                                         timeout: 30)
            #expect(result.status == 0 && result.stderr.isEmpty, "stderr: \(result.stderr)")
            #expect(reader.wait(timeout: 10) == 0)
            #expect(try Fixtures.frameMD5s(folder + "/copy.ts") == (try Fixtures.frameMD5s(clip)))
        }

        @Test("A recording into a named pipe whose reader stops reading stops with one error, and every frame still plays",
              .timeLimit(.minutes(1)), arguments: StoppingReader.allCases)
        func recordingIntoAPipeWhoseReaderStops(reader: StoppingReader) throws {
            // 3 s at 640x360: several times the 64 KiB a pipe holds.
            let clip = try Fixtures.clip("record-pipe-3s.mp4", ["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=3",
                                                                "-c:v", "libx264", "-g", "25", "-pix_fmt", "yuv420p"])
            let folder = Fixtures.newFolder("record-pipe-reader")
            let fifo = folder + "/out.ts"
            try #require(mkfifo(fifo, 0o600) == 0)
            let readerProcess = try BackgroundProcess(["python3", "-c", reader.script, fifo])
            defer { readerProcess.send(signal: SIGKILL) }
            try #require(eventually(timeout: 20) { readerProcess.stdout == "open\n" })
            let process = try BackgroundProcess([Command.hplayer, clip, "--vo", "record:\(folder)", "--ao", "null", "--no-status",
                                                 "--record-file", fifo])
            #expect(process.wait(timeout: 30) == 0, "stderr: \(process.stderr)")
            let errors = process.stderr.split(separator: "\n").filter { $0.contains("recording stopped") }
            #expect(errors == ["hplayer: error: \(fifo): recording stopped: \(reader.rawValue)"],
                    "stderr: \(process.stderr)")
            let presented = try String(contentsOfFile: folder + "/video.tsv", encoding: .utf8).split(separator: "\n")
                .map { String($0.split(separator: "\t")[2]) }
            #expect(presented == (try Fixtures.frameMD5s(clip)))
        }
    }

    /// A jump in one stream that the others do not show, and that the stream's next packet takes
    /// back, is a bad timestamp: not a gap to fill with silence while the picture waits.
    @Suite struct LoneBadTimestamp {
        /// A 3 s clip (H.264 and a 440 Hz AAC tone, Matroska) whose 50th sound packet is stamped
        /// 16 s late, between neighbours 21 ms apart. Made by moving that SimpleBlock's timecode
        /// (16 bits, relative to its cluster) in place: ffmpeg's own muxing would move every
        /// packet after it as well.
        static func clip() throws -> String {
            let plain = try Fixtures.clip("lone-bad-timestamp-source.mkv", [
                "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=3",
                "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=3",
                "-c:v", "libx264", "-g", "25", "-c:a", "aac"])
            let path = Fixtures.newFolder("lone-bad-timestamp") + "/clip.mkv"
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: plain)))
            var seen = 0
            try #require(Self.moveBlock(in: &bytes, from: 0, to: bytes.count, track: 2, number: 50, by: 16_000, seen: &seen))
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }

        /// An EBML variable-length integer at `offset`: its value (with or without the length
        /// marker) and its length in bytes.
        private static func variableInteger(_ bytes: [UInt8], at offset: Int, keepingMarker: Bool) -> (value: Int, length: Int) {
            let first = bytes[offset]
            var length = 1
            while length < 8, first & (0x80 >> (length - 1)) == 0 { length += 1 }
            var value = keepingMarker ? Int(first) : Int(first & (0xFF >> length))
            for index in 1..<length { value = value << 8 | Int(bytes[offset + index]) }
            return (value, length)
        }

        /// Walks the Segment and its Clusters to the `number`th SimpleBlock of `track`, and moves
        /// its timecode by `milliseconds`; false when there is no such block.
        private static func moveBlock(in bytes: inout [UInt8], from start: Int, to end: Int, track: Int, number: Int,
                                      by milliseconds: Int, seen: inout Int) -> Bool {
            var offset = start
            while offset < end {
                let id = variableInteger(bytes, at: offset, keepingMarker: true)
                let size = variableInteger(bytes, at: offset + id.length, keepingMarker: false)
                let body = offset + id.length + size.length
                let bodyEnd = size.value == (1 << (7 * size.length)) - 1 ? end : min(end, body + size.value)  // unknown size: to the end
                switch id.value {
                case 0x18538067, 0x1F43B675:  // Segment, Cluster
                    if moveBlock(in: &bytes, from: body, to: bodyEnd, track: track, number: number, by: milliseconds, seen: &seen) { return true }
                case 0xA3:  // SimpleBlock: track number, 16-bit signed timecode, flags, data
                    let blockTrack = variableInteger(bytes, at: body, keepingMarker: false)
                    if blockTrack.value == track {
                        seen += 1
                        if seen == number {
                            let at = body + blockTrack.length
                            let timecode = Int(Int16(bitPattern: UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1]))) + milliseconds
                            let moved = UInt16(bitPattern: Int16(timecode))
                            bytes[at] = UInt8(moved >> 8)
                            bytes[at + 1] = UInt8(moved & 0xFF)
                            return true
                        }
                    }
                default:
                    break
                }
                offset = bodyEnd
            }
            return false
        }

        @Test("A lone sound packet stamped 16 s late is played in its place: no silence, nothing missing, every frame shown",
              .timeLimit(.minutes(1)))
        func playsThrough() throws {
            let clip = try Self.clip()
            let packets = try Command.run(["ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "packet=pts_time",
                                           "-of", "csv=p=0", clip]).stdout.split(separator: "\n").compactMap { Double($0) }
            #expect(packets.count > 100 && packets[49] - packets[48] > 15 && packets[50] < packets[48] + 1, "the fixture: \(packets.prefix(52))")
            let folder = Fixtures.newFolder("lone-bad-timestamp-played")
            let result = try Command.run([Command.hplayer, clip, "--vo", "record:\(folder)", "--ao", "record:\(folder)", "--no-status"],
                                         timeout: 30)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            // Where each callback's sound starts (nan: silence after the end): in steps of one
            // callback, from 0 to the end; never a jump.
            let starts = try String(contentsOfFile: folder + "/audio.tsv", encoding: .utf8).split(separator: "\n")
                .compactMap { Double($0.split(separator: "\t")[0]) }.filter(\.isFinite)
            let steps = zip(starts, starts.dropFirst()).map { $1 - $0 }
            #expect(!steps.isEmpty && steps.allSatisfy { $0 > 0 && $0 < 0.05 }, "largest step \(steps.max() ?? 0) s")
            #expect((starts.last ?? 0) > 2.9 && (starts.last ?? 0) < 3.1, "the sound ends at \(starts.last ?? 0) s")
            let presented = try String(contentsOfFile: folder + "/video.tsv", encoding: .utf8).split(separator: "\n").count
            #expect(presented == 75)
        }
    }

    /// Media in which nothing can be decoded is an error, as mpv's "Errors when loading file".
    @Suite struct NothingDecodable {
        /// Every byte of every H.264 packet damaged: ffmpeg decodes no frame of it.
        static func damaged() throws -> String {
            try Fixtures.clip("all-packets-damaged.mkv", ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=1",
                                                         "-c:v", "libx264", "-bsf:v", "noise=amount=1"])
        }

        static let corpusFiles = ["libwebm/fixed_lacing_bad_lace_size.mkv", "libwebm/invalid_vp9_bitstream-bug_1416.webm",
                                  "mp4parse-rust/test_case_1185230.mp4"]

        func expectNoFrameError(_ arguments: [String], path: String) throws {
            let result = try Command.run([Command.hplayer] + arguments, timeout: 60)
            #expect(result.status == 1, "\(arguments): status \(result.status)")
            let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("hplayer: error:") }
            #expect(errors.count == 1 && errors[0].hasPrefix("hplayer: error: \(path): no frame could be decoded"), "stderr: \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").last.map(String.init) == errors.first.map(String.init))
        }

        @Test("play and bench: one error line, exit 1, for a file of damaged packets that ffmpeg decodes nothing of")
        func damagedPackets() throws {
            let clip = try Self.damaged()
            let ffmpeg = try Command.run(["ffmpeg", "-nostdin", "-v", "error", "-i", clip, "-f", "framemd5", "-"])
            #expect(ffmpeg.status != 0 && !ffmpeg.stdout.split(separator: "\n").contains { !$0.hasPrefix("#") })
            try expectNoFrameError([clip, "--vo", "null", "--ao", "null", "--no-status"], path: clip)
            try expectNoFrameError(["bench", clip], path: clip)
        }

        @Test("The corpus's files that nothing decodes from: one error line, exit 1",
              .enabled(if: Corpus.folder != nil, "../shared/corpus is not here"), arguments: corpusFiles)
        func corpus(_ file: String) throws {
            let path = Corpus.folder! + "/" + file
            try expectNoFrameError([path, "--vo", "null", "--ao", "null", "--no-status"], path: path)
            try expectNoFrameError(["bench", path], path: path)
        }
    }
}
