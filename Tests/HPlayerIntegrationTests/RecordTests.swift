import Foundation
import HPlayerIPC
import HPlayerKit
import HPlayerTestSupport
import Testing

extension Playback {
    /// Recording while playing (`--record-file`, mpv's `stream-record`): the played streams'
    /// packets copied to a file, which must play, keep the codecs and the bits, and span what
    /// was played, to within the key frame the recording starts at.
    @Suite struct Record {
        /// The clips' key frames come every 25 frames at 25 fps.
        static let gop = 1.0

        /// What ffprobe tells of a file.
        struct Probed {
            var codecs: [String]
            var start: Double
            var duration: Double
        }

        func probe(_ path: String) throws -> Probed {
            let result = try Command.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name:format=start_time,duration",
                                          "-of", "json", path], timeout: 30)
            let probed = JSONValue(parsing: Array(result.stdout.utf8))
            return Probed(codecs: probed?["streams"]?.array?.compactMap { $0["codec_name"]?.string } ?? [],
                          start: probed?["format"]?["start_time"]?.string.flatMap(Double.init) ?? .nan,
                          duration: probed?["format"]?["duration"]?.string.flatMap(Double.init) ?? .nan)
        }

        /// Decodes every packet of `path`; what ffmpeg complains of (nothing for a good file).
        func decodingProblems(_ path: String) throws -> String {
            let result = try Command.run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-f", "null", "-"], timeout: 60)
            return result.status == 0 ? result.stderr : "exit \(result.status): \(result.stderr)"
        }

        /// Plays a clip with a picture and sound, recording to `path`, and checks that the
        /// recording holds what was played from where playback started: the same codecs from
        /// about 0, the same pictures, bit for bit, and ffmpeg decodes it cleanly.
        @Test("Recording from the command line", arguments: ["mp4", "mkv", "ts"])
        func fromTheCommandLine(format: String) throws {
            let clip = try Clips.audioVideo(seconds: 6)
            let path = Fixtures.newFolder("record") + "/out.\(format)"
            let result = try CommandLine().hplayer(clip, "--start", "2", "--no-status", "--record-file", path)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(!result.stderr.contains(path), "stderr: \(result.stderr)")

            let source = try probe(clip)
            let recording = try probe(path)
            #expect(recording.codecs == ["h264", "aac"])
            #expect(recording.codecs == source.codecs)
            // A transport stream starts at the pictures' reordering delay (2 frames): its dts
            // may not be negative.
            #expect(abs(recording.start) <= 0.1, "starts at \(recording.start)")
            let played = source.duration - 2
            #expect(abs(recording.duration - played) <= Self.gop, "recorded \(recording.duration) s of \(played) s played")
            #expect(try decodingProblems(path) == "")

            // Played to the end: the recording's pictures are the clip's last ones, the same bits.
            let frames = try Fixtures.frameMD5s(path)
            let sourceFrames = try Fixtures.frameMD5s(clip)
            #expect(Double(frames.count) >= (played - Self.gop) * 25, "\(frames.count) frames recorded")
            #expect(frames == Array(sourceFrames.suffix(frames.count)))
        }

        /// Where playback stands, as the IPC tells.
        func position(_ client: IPCClient) -> Double {
            client.request([.string("get_property"), .string("time-pos")])?["data"]?.number ?? .nan
        }

        func setStreamRecord(_ client: IPCClient, _ path: String) -> JSONValue? {
            client.request([.string("set_property"), .string("stream-record"), .string(path)])?["error"]
        }

        func streamRecord(_ client: IPCClient) -> JSONValue? {
            client.request([.string("get_property"), .string("stream-record")])?["data"]
        }

        /// How far reading runs ahead of the picture varies by this much on a local file: it
        /// pauses at the read-ahead's limit and resumes at a fraction of it.
        static let readAheadSwing: Double = {
            let options = BufferingOptions()
            return options.maximumBufferedDuration * (1 - options.resumeFraction)
        }()

        /// The recording holds what was read while it was set, as mpv's stream-record does: what
        /// was played then, give or take the read-ahead's swing, less the stretch before the
        /// first key frame read.
        @Test("Setting stream-record over the IPC records until it is cleared", .realTime, .timeLimit(.minutes(1)))
        func overTheIPC() throws {
            let clip = try Clips.audioVideo(seconds: 20)
            let player = try IPC().hplayer(clip)
            let client = player.client
            #expect(client.waitUntilLoaded())
            #expect(streamRecord(client) == .string(""))
            // Past the first buffering, so reading runs ahead of the picture by the read-ahead
            // less its swing or more, as it does when the recording stops.
            MonotonicClock.sleep(until: MonotonicClock.now() + 1)
            let path = Fixtures.newFolder("record-ipc") + "/out.mkv"
            #expect(setStreamRecord(client, path) == .string("success"))
            let start = position(client)
            #expect(streamRecord(client) == .string(path))
            MonotonicClock.sleep(until: MonotonicClock.now() + 4)
            #expect(setStreamRecord(client, "") == .string("success"))
            let played = position(client) - start
            #expect(streamRecord(client) == .string(""))

            // Complete as soon as it is stopped, while playback goes on.
            let recording = try probe(path)
            #expect(recording.codecs == ["h264", "aac"])
            #expect(abs(recording.start) <= 0.1, "starts at \(recording.start)")
            // It starts at the first key frame read after it is set.
            let swing = Self.readAheadSwing
            #expect(recording.duration <= played + swing + 0.3 && recording.duration >= played - swing - Self.gop - 0.3,
                    "recorded \(recording.duration) s while \(played) s played, reading ahead by up to \(swing) s more or less")
            #expect(try decodingProblems(path) == "")
            #expect(client.request([.string("quit")]) != nil || !player.process.isRunning)
            #expect(player.process.wait(timeout: 10) == 0)
        }

        @Test("A path that cannot be recorded to over the IPC: an error reply, and playback goes on", .timeLimit(.minutes(1)))
        func aBadPathOverTheIPC() throws {
            let player = try IPC().hplayer(try Clips.audioVideo(seconds: 3))
            let client = player.client
            #expect(client.waitUntilLoaded())
            #expect(setStreamRecord(client, "/nonexistent/folder/out.mkv") == .string("error accessing property"))
            #expect(setStreamRecord(client, Fixtures.newFolder("record-ipc") + "/out.avi") == .string("error accessing property"))
            #expect(streamRecord(client) == .string(""))
            #expect(client.event("end-file", timeout: 20)?["reason"] == .string("eof"))
            #expect(player.process.wait(timeout: 10) == 0)
        }

        /// One warning line, `hplayer: warning: PATH: REASON`; every picture is still shown,
        /// and a file already at the path is left as it was.
        @Test("A path that cannot be recorded to from the command line", .realTime, arguments: [
            ("/nonexistent/folder/out.mkv", "cannot write: No such file or directory"),
            ("notes.txt", "cannot tell the format from the name: it must end in .mkv, .mov, .mp4 or .ts"),
            ("folder.mp4", "cannot write: Is a directory"),
        ])
        func aBadPath(name: String, reason: String) throws {
            let folder = Fixtures.newFolder("record-bad")
            let path = name.hasPrefix("/") ? name : folder + "/" + name
            if name == "notes.txt" { try "keep me".write(toFile: path, atomically: true, encoding: .utf8) }
            if name == "folder.mp4" { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false) }
            let commandLine = CommandLine()
            let result = try commandLine.hplayer(try Clips.audioVideo(seconds: 2), "--vo", "record:\(folder)", "--no-status",
                                                 "--record-file", path)
            #expect(result.status == 0)
            #expect(result.stderr.split(separator: "\n") == ["hplayer: warning: \(path): \(reason)"])
            #expect(try commandLine.recordedPts(folder).count == 50)
            if name == "notes.txt" { #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me") }
        }

        @Test("A full disk stops the recording with one error, and playback goes on", .realTime,
              .enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "needs /dev/full"))
        func aFullDisk() throws {
            let folder = Fixtures.newFolder("record-full")
            let path = folder + "/full.mkv"
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/dev/full")
            let commandLine = CommandLine()
            let result = try commandLine.hplayer(try Clips.audioVideo(seconds: 2), "--vo", "record:\(folder)", "--no-status",
                                                 "--record-file", path)
            #expect(result.status == 0)
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("hplayer: error: \(path): ") && lines[0].hasSuffix("No space left on device"),
                    "stderr: \(result.stderr)")
            #expect(try commandLine.recordedPts(folder).count == 50)
        }
    }
}
