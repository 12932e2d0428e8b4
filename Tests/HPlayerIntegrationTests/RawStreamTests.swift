import Foundation
import HPlayerKit
import Testing

extension Clips {
    /// Raw H.264 (Annex B) of 2 s at 30 fps, with x264's VUI timing (30 fps), B-frames included.
    static func rawH264At30() throws -> String {
        try Fixtures.clip("raw-30fps.h264", ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=2",
                                             "-c:v", "libx264", "-preset", "fast", "-bf", "3", "-f", "h264"])
    }

    /// Raw HEVC of 30 pictures with no timing anywhere (x265 without VUI timing, nor the VPS's).
    static func rawHEVCWithoutTiming() throws -> String {
        try Fixtures.clip("raw-no-timing.hevc", ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=1",
                                                 "-c:v", "libx265", "-x265-params", "log-level=error:vui-timing-info=0", "-f", "hevc"])
    }

    /// The parts of a raw H.264 stream that changes size twice: 320x180, 640x360, 320x180, 2 s
    /// each at 25 fps, each with its own SPS; and the stream, the three one after the other.
    static func rawH264SizeChanges() throws -> (stream: String, parts: [String]) {
        let parts = try [("a", "testsrc2", "320x180"), ("b", "smptehdbars", "640x360"), ("c", "testsrc", "320x180")].map { name, pattern, size in
            try Fixtures.clip("raw-size-part-\(name).h264", ["-f", "lavfi", "-i", "\(pattern)=size=\(size):rate=25:duration=2",
                                                            "-c:v", "libx264", "-preset", "fast", "-f", "h264"])
        }
        return (try concatenation("raw-size-changes.h264", of: parts), parts)
    }

    /// The files one after the other, as fixture `name` (made once).
    static func concatenation(_ name: String, of parts: [String]) throws -> String {
        let path = Fixtures.directory.appendingPathComponent(name).path
        if !FileManager.default.fileExists(atPath: path) {
            var bytes = Data()
            for part in parts { bytes.append(try Data(contentsOf: URL(fileURLWithPath: part))) }
            try bytes.write(to: URL(fileURLWithPath: path + ".part"))
            try FileManager.default.moveItem(atPath: path + ".part", toPath: path)
        }
        return path
    }
}

extension Playback {
    /// Raw Annex B streams, which carry no timestamps: paced at a rate from the override, the
    /// parameter sets, or 25 fps, with one line saying which.
    @Suite struct RawStreams {
        /// Plays `arguments` with a recording video output; the frames presented, and stderr.
        private func play(_ arguments: [String], name: String) throws -> (frames: [PresentedFrame], stderr: String, status: Int32) {
            let folder = Fixtures.newFolder(name)
            let result = try Command.run([Command.hplayer] + arguments + ["--vo", "record:\(folder)", "--ao", "null", "--no-status"],
                                         timeout: 60)
            return (Self.presented(in: folder), result.stderr, result.status)
        }

        private static func presented(in folder: String) -> [PresentedFrame] {
            let text = (try? String(contentsOfFile: folder + "/video.tsv", encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { line in
                let fields = line.split(separator: "\t")
                guard fields.count == 3, let pts = Double(fields[0]), let at = Double(fields[1]) else { return nil }
                return PresentedFrame(pts: pts, presentedAt: at, md5: String(fields[2]))
            }
        }

        /// Whether the pts run 0, 1/rate, 2/rate … (to the microsecond video.tsv keeps).
        private func isPaced(_ frames: [PresentedFrame], at rate: Double) -> Bool {
            frames.enumerated().allSatisfy { index, frame in abs(frame.pts - Double(index) / rate) < 2e-6 }
        }

        @Test("Raw H.264 with a 30 fps VUI: every picture exact, at pts n/30, shown over the stream's 2 s, and one line says the rate is the stream's",
              .timeLimit(.minutes(1)))
        func pacedByTheVUI() throws {
            let clip = try Clips.rawH264At30()
            let played = try play([clip], name: "raw-vui")
            #expect(played.status == 0, "\(played.stderr)")
            #expect(played.frames.map(\.md5) == (try Fixtures.frameMD5s(clip)))
            #expect(played.frames.count == 60 && isPaced(played.frames, at: 30), "pts: \(played.frames.prefix(4).map(\.pts))")
            // Paced, not flashed past: the last picture comes at least 59/30 s after the first
            // (a lower bound, which a slow machine can only exceed).
            if let first = played.frames.first, let last = played.frames.last {
                #expect(last.presentedAt - first.presentedAt >= 59.0 / 30 - 0.05, "shown over \(last.presentedAt - first.presentedAt) s")
            }
            #expect(played.stderr.contains("\(clip): no timestamps in the stream: paced at 30.000 fps, the rate its parameter sets give"),
                    "\(played.stderr)")
        }

        @Test("--start 1 in raw H.264, which has no timestamps to seek by: the pictures from the 31st on, exact, from pts 1",
              .timeLimit(.minutes(1)))
        func startPosition() throws {
            let clip = try Clips.rawH264At30()
            let played = try play([clip, "--untimed", "--start", "1"], name: "raw-start")
            #expect(played.status == 0, "\(played.stderr)")
            #expect(played.frames.map(\.md5) == Array(try Fixtures.frameMD5s(clip).dropFirst(30)))
            #expect(played.frames.enumerated().allSatisfy { index, frame in abs(frame.pts - 1 - Double(index) / 30) < 2e-6 },
                    "pts: \(played.frames.prefix(4).map(\.pts))")
        }

        @Test("Raw HEVC with no timing in it: paced at 25 fps, and the line says it is assumed", .timeLimit(.minutes(1)))
        func assumedRate() throws {
            let clip = try Clips.rawHEVCWithoutTiming()
            let played = try play([clip, "--untimed"], name: "raw-assumed")
            #expect(played.status == 0, "\(played.stderr)")
            #expect(played.frames.map(\.md5) == (try Fixtures.frameMD5s(clip)))
            #expect(played.frames.count == 30 && isPaced(played.frames, at: 25), "pts: \(played.frames.prefix(4).map(\.pts))")
            #expect(played.stderr.contains("no timestamps and no frame rate in the stream: paced at 25.000 fps"), "\(played.stderr)")
        }

        @Test("hplayer probe on raw HEVC (x265, no B-frames, an IDR every 10): NAL units, its SPS as ffprobe reads it, IDRs where ffprobe finds key frames",
              .timeLimit(.minutes(1)))
        func probeRawHEVC() throws {
            let clip = try Fixtures.clip("raw-idr10.hevc", ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=2", "-c:v", "libx265",
                                                            "-x265-params", "log-level=error:keyint=10:min-keyint=10:open-gop=0:scenecut=0:bframes=0",
                                                            "-f", "hevc"])
            let probed = try Command.run([Command.hplayer, "probe", "--json", clip])
            let stream = try #require(try JSONDecoder().decode(MediaInfo.self, from: Data(probed.stdout.utf8)).annexB, "\(probed.stdout)")
            #expect(stream.codec == .hevc && stream.pictures == 50)
            #expect(stream.units.contains { $0.name == "VPS" } && stream.units.filter { $0.type == 19 || $0.type == 20 }.map(\.count).reduce(0, +) == 5, "\(stream.units)")
            let theirs = try Command.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height,level,r_frame_rate",
                                          "-of", "default=nw=1", clip]).stdout
            let sps = try #require(stream.hevcParameterSets.first)
            #expect(stream.hevcParameterSets.count == 1 && stream.parameterSets.isEmpty)
            #expect(theirs.contains("width=\(sps.width)\n") && theirs.contains("height=\(sps.height)\n") && theirs.contains("level=\(sps.levelIDC)\n")
                    && sps.profileIDC == 1 && sps.frameRate == 25 && theirs.contains("r_frame_rate=25/1"), "\(sps) against \(theirs)")
            let keyFrames = try Command.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=key_frame",
                                             "-of", "csv=p=0", clip]).stdout.split(separator: "\n").enumerated().filter { $0.element.hasPrefix("1") }.map(\.offset)
            #expect(stream.idrs.map(\.picture) == keyFrames && keyFrames == [0, 10, 20, 30, 40])
            let text = try Command.run([Command.hplayer, "probe", clip]).stdout
            #expect(text.contains("IDR at (picture@byte): 0@") && text.contains("SPS 0: general_profile_idc 1, Main tier"), "\(text)")
        }

        @Test("--container-fps-override 50 paces raw H.264 at 50 fps over its VUI's 30, and says so; 0 is refused", .timeLimit(.minutes(1)))
        func override() throws {
            let clip = try Clips.rawH264At30()
            let played = try play([clip, "--untimed", "--container-fps-override", "50"], name: "raw-override")
            #expect(played.status == 0, "\(played.stderr)")
            #expect(played.frames.map(\.md5) == (try Fixtures.frameMD5s(clip)))
            #expect(played.frames.count == 60 && isPaced(played.frames, at: 50), "pts: \(played.frames.prefix(4).map(\.pts))")
            #expect(played.stderr.contains("paced at 50.000 fps, as --container-fps-override says"), "\(played.stderr)")

            let refused = try Command.run([Command.hplayer, clip, "--vo", "null", "--ao", "null", "--container-fps-override", "0"], timeout: 30)
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("--container-fps-override"), "\(refused.stderr)")
        }

        @Test("Raw H.264 that changes size twice (320x180, 640x360, 320x180): each part's pictures exact, as each decodes alone, at pts running on by 1/25",
              .timeLimit(.minutes(1)))
        func sizeChanges() throws {
            let (stream, parts) = try Clips.rawH264SizeChanges()
            let played = try play([stream, "--untimed"], name: "raw-size-changes")
            #expect(played.status == 0, "\(played.stderr)")
            let expected = try parts.flatMap { try Fixtures.frameMD5s($0) }
            #expect(expected.count == 150)
            #expect(played.frames.map(\.md5) == expected)
            #expect(isPaced(played.frames, at: 25), "pts: \(played.frames.map(\.pts).prefix(4))")
        }

        @Test("Standard input (-): a raw stream piped in plays, every picture exact and paced by its VUI", .timeLimit(.minutes(1)))
        func standardInput() throws {
            let clip = try Clips.rawH264At30()
            let folder = Fixtures.newFolder("raw-stdin")
            let result = try Command.run(["sh", "-c", "cat '\(clip)' | '\(Command.hplayer)' - --untimed --vo record:'\(folder)' --ao null --no-status"],
                                         timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            let frames = Self.presented(in: folder)
            #expect(frames.map(\.md5) == (try Fixtures.frameMD5s(clip)))
            #expect(frames.count == 60 && isPaced(frames, at: 30))
            #expect(result.stderr.contains("-: no timestamps in the stream: paced at 30.000 fps"), "\(result.stderr)")
        }
    }

    /// The window follows the picture's size as mpv's does.
    @Suite(.desktop, .enabled(if: Desktop.unavailableReason == nil, Comment(rawValue: Desktop.unavailableReason ?? "")))
    struct RawStreamWindow {
        @Test("The window takes each new size of a raw stream's picture: 320x180, then 640x360, then 320x180 again",
              .timeLimit(.minutes(1)))
        func windowFollowsTheSize() throws {
            let (stream, _) = try Clips.rawH264SizeChanges()
            let process = try BackgroundProcess([Command.hplayer, stream, "--no-status", "--ao", "null"])
            let window = try Desktop.window(titled: "raw-size-changes.h264")
            var sizes: [[Int]] = [[window.width, window.height]]
            let deadline = MonotonicClock.now() + 30
            while process.isRunning, MonotonicClock.now() < deadline {
                MonotonicClock.sleep(until: MonotonicClock.now() + 0.05)
                guard let now = try? Desktop.describe(window.id), now.width > 0 else { continue }
                if sizes.last != [now.width, now.height] { sizes.append([now.width, now.height]) }
            }
            #expect(sizes == [[320, 180], [640, 360], [320, 180]])
            #expect(process.wait(timeout: 10) == 0)
        }
    }
}
