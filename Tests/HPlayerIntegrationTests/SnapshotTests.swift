import Foundation
import HPlayerKit
import Testing

/// A picture as raw packed pixels, with its size.
struct RawPicture {
    var width: Int
    var height: Int
    var pixels: Data
}

struct SnapshotTime: Sendable, CustomTestStringConvertible {
    /// What `--at` is given.
    var at: String
    /// The same time for `ffmpeg -ss`.
    var seconds: String
    var why: String
    var testDescription: String { "--at \(at): \(why)" }
}

extension Playback {
    @Suite struct Snapshots {
        /// The pixels of the frame `ffmpeg ARGUMENTS -frames:v 1 -f rawvideo -pix_fmt FORMAT` extracts.
        func ffmpegFrame(_ arguments: [String], format: String = "rgb24") throws -> Data {
            let path = Fixtures.newFolder("ffmpeg-frame") + "/frame.raw"
            let result = try Command.run(["ffmpeg", "-nostdin", "-v", "error", "-y"] + arguments
                                         + ["-frames:v", "1", "-f", "rawvideo", "-pix_fmt", format, path])
            guard result.status == 0 else { throw FixtureError(description: "ffmpeg \(arguments): \(result.stderr)") }
            return try Data(contentsOf: URL(fileURLWithPath: path))
        }

        /// 4 s with B-frames in MPEG-TS, whose timestamps begin at 1.48 s.
        static func transportStream() throws -> String {
            try Fixtures.clip("h264-bframes.ts", ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4",
                                                  "-c:v", "libx264", "-preset", "fast", "-bf", "3", "-g", "50"])
        }

        /// A PNG's size and pixels in `format`, as ffmpeg decodes it.
        func pixels(ofPNG path: String, format: String = "rgb24") throws -> RawPicture {
            let probe = try Command.run(["ffprobe", "-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", path])
            let size = probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
            guard probe.status == 0, size.count == 2 else { throw FixtureError(description: "ffprobe \(path): \(probe.stderr)") }
            let raw = Fixtures.newFolder("raw") + "/picture.raw"
            let result = try Command.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", path, "-f", "rawvideo", "-pix_fmt", format, raw])
            guard result.status == 0 else { throw FixtureError(description: "decoding \(path): \(result.stderr)") }
            return RawPicture(width: size[0], height: size[1], pixels: try Data(contentsOf: URL(fileURLWithPath: raw)))
        }

        /// Runs `hplayer snapshot CLIP --at AT -o OUTPUT`, with a time bound.
        func snapshot(_ clip: String, at: String, to output: String) throws -> CommandResult {
            let result = try Command.run([Command.hplayer, "snapshot", clip, "--at", at, "-o", output], timeout: 60)
            #expect(!result.timedOut, "hplayer snapshot did not end within 60 s")
            return result
        }

        /// The pixels of the PNG `hplayer snapshot` writes.
        func snapshotPixels(_ clip: String, at: String, format: String = "rgb24") throws -> RawPicture {
            let output = Fixtures.newFolder("snapshot") + "/out.png"
            let result = try snapshot(clip, at: at, to: output)
            try #require(result.status == 0, "stderr: \(result.stderr)")
            return try pixels(ofPNG: output, format: format)
        }

        /// Equal bytes, or a count of those that differ: swift-testing's diff of collections this
        /// large would take minutes.
        func expectSamePixels(_ pixels: Data, _ expected: Data, sourceLocation: SourceLocation = #_sourceLocation) {
            let differing = zip(pixels, expected).filter { $0 != $1 }.count
            #expect(pixels.count == expected.count && differing == 0,
                    "\(pixels.count) bytes against ffmpeg's \(expected.count), \(differing) of them different", sourceLocation: sourceLocation)
        }

        /// One error line, `hplayer: error: INPUT: …`, and exit status 1.
        func expectError(_ result: CommandResult, input: String, reason: String) {
            #expect(result.status == 1)
            #expect(result.stderr == "hplayer: error: \(input): \(reason)\n")
        }

        @Test("The PNG holds the frame ffmpeg extracts at that time, byte for byte", arguments: [
            SnapshotTime(at: "0", seconds: "0", why: "the first frame"),
            SnapshotTime(at: "0.5", seconds: "0.5", why: "between the frames at 0.48 and 0.52"),
            SnapshotTime(at: "0.52", seconds: "0.52", why: "on a frame's start"),
            SnapshotTime(at: "0:01.53", seconds: "1.53", why: "mm:ss, between frames"),
            SnapshotTime(at: "1.96", seconds: "1.96", why: "the last frame"),
            SnapshotTime(at: "1.99", seconds: "1.96", why: "still the last frame, until the end (ffmpeg extracts none)"),
            SnapshotTime(at: "50%", seconds: "1", why: "half the duration"),
        ])
        func matchesFFmpeg(_ time: SnapshotTime) throws {
            let clip = try Clips.video("h264")
            let expected = try ffmpegFrame(["-ss", time.seconds, "-i", clip])
            let picture = try snapshotPixels(clip, at: time.at)
            #expect(picture.width == 320 && picture.height == 240)
            expectSamePixels(picture.pixels, expected)
        }

        @Test("Times count from the start of an MPEG-TS clip, whose timestamps begin at 1.48 s", arguments: ["0.5", "2.1", "3.96"])
        func timesCountFromTheStart(_ at: String) throws {
            let clip = try Self.transportStream()
            // ffmpeg's own -ss lands on a later key frame in this clip (MPEG-TS has no index), so
            // the reference decodes from the start and keeps the first frame at or after the time.
            let expected = try ffmpegFrame(["-i", clip, "-vf", "trim=start=\(at)"])
            expectSamePixels(try snapshotPixels(clip, at: at).pixels, expected)
        }

        @Test("Colour matrices, ranges, depths and alpha convert as ffmpeg converts them", arguments: [
            ("bt709", "rgb24"), ("full-range", "rgb24"), ("hevc10", "rgb24"), ("alpha", "rgba"),
        ])
        func pictureFormats(_ kind: String, _ format: String) throws {
            let source = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2"]
            let x264 = ["-c:v", "libx264", "-preset", "fast", "-bf", "3", "-g", "25"]
            let clip = switch kind {
            case "bt709": try Fixtures.clip("bt709.mp4", source + x264 + ["-pix_fmt", "yuv420p", "-colorspace", "bt709",
                                                                         "-color_primaries", "bt709", "-color_trc", "bt709"])
            case "full-range": try Fixtures.clip("full-range.mp4", source + x264 + ["-pix_fmt", "yuvj420p"])
            case "alpha": try Fixtures.clip("alpha.mkv", source + ["-vf", "format=yuva420p", "-c:v", "ffv1"])
            default: try Clips.video("hevc10")
            }
            let expected = try ffmpegFrame(["-ss", "0.5", "-i", clip], format: format)
            expectSamePixels(try snapshotPixels(clip, at: "0.5", format: format).pixels, expected)
        }

        @Test("Pixels twice as wide as high (SAR 2:1) give a PNG twice as wide, as ffmpeg's scale=iw*sar:ih")
        func sampleAspectRatio() throws {
            let clip = try Fixtures.clip("sar2.mp4", ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-vf", "setsar=2",
                                                      "-c:v", "libx264", "-preset", "fast", "-bf", "3", "-g", "25", "-pix_fmt", "yuv420p"])
            let expected = try ffmpegFrame(["-ss", "0.5", "-i", clip, "-vf", "scale=iw*sar:ih"])
            let picture = try snapshotPixels(clip, at: "0.5")
            #expect(picture.width == 640 && picture.height == 240)
            expectSamePixels(picture.pixels, expected)
        }

        @Test("Rotation metadata turns the picture as ffmpeg's autorotation does", arguments: [90, 180, 270])
        func rotation(_ degrees: Int) throws {
            let rotated = try Fixtures.clip("rotate-\(degrees).mp4", ["-i", try Clips.video("h264"), "-c", "copy",
                                                                     "-metadata:s:v", "rotate=\(degrees)"])
            let expected = try ffmpegFrame(["-ss", "0.7", "-i", rotated])
            let picture = try snapshotPixels(rotated, at: "0.7")
            #expect(degrees == 180 ? picture.width == 320 && picture.height == 240 : picture.width == 240 && picture.height == 320)
            expectSamePixels(picture.pixels, expected)
            let isTurned = picture.pixels != (try ffmpegFrame(["-ss", "0.7", "-i", try Clips.video("h264")]))
            #expect(isTurned, "the picture has the unturned frame's pixels")
        }

        @Test func aMissingFile() throws {
            let output = Fixtures.newFolder("missing") + "/out.png"
            expectError(try snapshot("/nonexistent/clip.mp4", at: "1", to: output),
                        input: "/nonexistent/clip.mp4", reason: "No such file or directory")
            #expect(!FileManager.default.fileExists(atPath: output))
        }

        @Test func aTimePastTheEnd() throws {
            let clip = try Clips.video("h264")
            let output = Fixtures.newFolder("past-end") + "/out.png"
            expectError(try snapshot(clip, at: "5", to: output), input: clip,
                        reason: "nothing to show at 00:00:05.000: the video ends at 00:00:02.000")
            #expect(!FileManager.default.fileExists(atPath: output))
        }

        @Test func anOutputFolderThatDoesNotExist() throws {
            let output = Fixtures.newFolder("no-folder") + "/not/here.png"
            expectError(try snapshot(try Clips.video("h264"), at: "1", to: output), input: output, reason: "No such file or directory")
        }

        @Test(.disabled(if: getuid() == 0, "root writes into any folder: a folder without write permission cannot be made"))
        func anOutputFolderThatIsNotWritable() throws {
            let folder = Fixtures.newFolder("read-only")
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder) }
            try #require(access(folder, W_OK) != 0, "the folder can still be written to with its write permission taken away")
            expectError(try snapshot(try Clips.video("h264"), at: "1", to: folder + "/out.png"), input: folder + "/out.png",
                        reason: "Permission denied")
        }

        @Test("A write that fails midway leaves the file already there as it was, and nothing else")
        func aFailedWriteKeepsTheOldFile() throws {
            let clip = try Clips.video("h264")
            let folder = Fixtures.newFolder("write-fails")
            let output = folder + "/out.png"
            try #require(try snapshot(clip, at: "0.5", to: output).status == 0)
            let before = try Data(contentsOf: URL(fileURLWithPath: output))
            // A file size limit of a few hundred bytes: the write fails partway with EFBIG
            // (SIGXFSZ ignored, as a shell's trap leaves it for the program it runs).
            let result = try Command.run(["sh", "-c", "trap '' XFSZ; ulimit -f 1; exec \"$@\"", "sh",
                                          Command.hplayer, "snapshot", clip, "--at", "1.5", "-o", output], timeout: 60)
            expectError(result, input: output, reason: "File too large")
            #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out.png"])
        }

        @Test("The s key's snapshot: named for the file and the position from its start, -2 when taken")
        func savedForTheKey() throws {
            let clip = try Clips.video("h264")
            let folder = Fixtures.newFolder("key")
            let first = try Snapshot.save(url: clip, mediaPts: 0.52, folder: folder)
            let second = try Snapshot.save(url: clip, mediaPts: 0.52, folder: folder + "/")
            #expect(first == folder + "/h264-bframes-320x240-00-00-00.520.png")
            #expect(second == folder + "/h264-bframes-320x240-00-00-00.520-2.png")
            let expected = try ffmpegFrame(["-ss", "0.52", "-i", clip])
            expectSamePixels(try pixels(ofPNG: first).pixels, expected)
            expectSamePixels(try pixels(ofPNG: second).pixels, expected)

            // A clip whose timestamps begin at 1.48 s: the name gives the position the player shows.
            #expect(try Snapshot.save(url: try Self.transportStream(), mediaPts: 1.48 + 61.0 / 25, folder: folder)
                    == folder + "/h264-bframes-00-00-02.440.png")
        }

        @Test("The s key's snapshot into a folder that does not exist: an error naming the file it would write")
        func savedIntoAMissingFolder() throws {
            let folder = Fixtures.newFolder("key-missing") + "/not-here"
            #expect(throws: MediaError(input: folder + "/h264-bframes-320x240-00-00-01.000.png", reason: "No such file or directory")) {
                try Snapshot.save(url: try Clips.video("h264"), mediaPts: 1, folder: folder)
            }
        }
    }
}
