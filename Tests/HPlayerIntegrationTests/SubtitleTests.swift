import Foundation
import HPlayerKit
import HPlayerTestSupport
import Testing

/// A cue as `--vo record` writes it to subs.tsv, with the pts of the frame it came on screen with.
struct RecordedCue: Equatable, CustomStringConvertible {
    var start: Double
    var end: Double
    var text: String
    var framePts: Double

    static func read(_ folder: String) throws -> [RecordedCue] {
        try String(contentsOfFile: folder + "/subs.tsv", encoding: .utf8).split(separator: "\n").map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            return RecordedCue(start: Double(fields[0])!, end: Double(fields[1]) ?? .infinity,
                               text: fields[2].replacingOccurrences(of: "\\n", with: "\n"), framePts: Double(fields[3])!)
        }
    }

    var description: String { "\(start)-\(end) '\(text)' on \(framePts)" }
}

extension Playback {
    @Suite struct Subtitles {
        /// Three cues, one of two lines with SubRip's italics, one past the picture's end.
        static let srt = """
            1
            00:00:00,500 --> 00:00:01,300
            First <i>words</i>

            2
            00:00:01,500 --> 00:00:02,000
            Two
            lines

            3
            00:00:02,600 --> 00:00:03,800
            After the end


            """
        static let texts = ["First words", "Two\nlines", "After the end"]
        /// The same times, other words: a second track.
        static let otherSRT = srt.replacingOccurrences(of: "First", with: "Other").replacingOccurrences(of: "Two", with: "Deux")
        static let times: [(Double, Double)] = [(0.5, 1.3), (1.5, 2.0), (2.6, 3.8)]

        static func subtitleFile(_ name: String = "cues.srt", _ text: String = srt) throws -> String {
            let path = Fixtures.newFolder("subtitle-file") + "/" + name
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }

        /// 3 s of 25 fps picture with the cues above muxed in as `codec`, the track marked as default.
        static func clip(container: String, codec: String, extraTrack: Bool = false) throws -> String {
            let cues = try subtitleFile()
            var arguments = ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=3", "-i", cues]
            if extraTrack { arguments += ["-i", try subtitleFile("other.srt", otherSRT)] }
            arguments += ["-map", "0", "-map", "1"] + (extraTrack ? ["-map", "2"] : [])
            arguments += ["-c:v", container == "webm" ? "libvpx" : "libx264"] + (container == "webm" ? [] : ["-preset", "ultrafast"])
            arguments += ["-c:s", codec, "-metadata:s:s:0", "language=eng", "-disposition:s:0", "default"]
            if extraTrack { arguments += ["-metadata:s:s:1", "language=fra", "-disposition:s:1", "0"] }
            return try Fixtures.clip("subtitles-\(codec)\(extraTrack ? "-two" : "").\(container)", arguments)
        }

        /// Each cue came on screen with the first frame at or after its start.
        static func expectShownOnTime(_ cues: [RecordedCue], framePts: [Double], sourceLocation: SourceLocation = #_sourceLocation) {
            for cue in cues {
                let first = framePts.first { $0 >= cue.start - 0.0005 }
                #expect(first.map { abs($0 - cue.framePts) < 0.0005 } == true, "\(cue): the first frame at its start is \(first ?? -1)",
                        sourceLocation: sourceLocation)
            }
        }

        static func framePts(_ folder: String) throws -> [Double] {
            try String(contentsOfFile: folder + "/video.tsv", encoding: .utf8).split(separator: "\n").map { Double($0.split(separator: "\t")[0])! }
        }

        @Test("Text subtitles inside a file come on screen at their times, as plain text",
              arguments: [("mkv", "srt"), ("mkv", "ass"), ("mp4", "mov_text"), ("webm", "webvtt")])
        func insideAFile(container: String, codec: String) async throws {
            let clip = try Self.clip(container: container, codec: codec)
            let session = PlayerSession(url: clip, name: "subs-\(codec)")
            try await session.playToEnd(timeout: 20)
            let cues = try RecordedCue.read(session.folder)
            #expect(cues.map(\.text) == Self.texts)
            for (cue, time) in zip(cues, Self.times) {
                #expect(abs(cue.start - time.0) < 0.002 && abs(cue.end - time.1) < 0.002, "\(cue)")
            }
            Self.expectShownOnTime(cues, framePts: try Self.framePts(session.folder))
            #expect(session.player.subtitleTracks.count == 1)
            #expect(session.player.subtitleTracks.first?.description.language == "eng")
        }

        @Test("--sub-file: an external .srt or .vtt is shown; a missing one is one error line and playback goes on", .realTime)
        func externalFile() throws {
            let clip = try Clips.audioVideo(seconds: 2)
            let vtt = try Self.subtitleFile("cues.vtt", """
                WEBVTT

                00:00.500 --> 00:01.300
                First <i>words</i>

                00:01.500 --> 00:02.000
                Two
                lines

                """)
            for file in [try Self.subtitleFile(), vtt] {
                let folder = Fixtures.newFolder("sub-file")
                let result = try Command.run([Command.hplayer, clip, "--sub-file", file, "--vo", "record:\(folder)", "--ao", "null", "--no-status"],
                                             timeout: 30)
                #expect(result.status == 0, "\(result.stderr)")
                let cues = try RecordedCue.read(folder)
                #expect(cues.map(\.text) == Array(Self.texts.prefix(2)), "\(file)")
                Self.expectShownOnTime(cues, framePts: try Self.framePts(folder))
                #expect(result.stdout.contains(" (+) Subs  --sid=1 '\(URL(fileURLWithPath: file).lastPathComponent)' "), "\(result.stdout)")
            }
            let folder = Fixtures.newFolder("sub-file-missing")
            let missing = folder + "/missing.srt"
            let result = try Command.run([Command.hplayer, clip, "--sub-file", missing, "--vo", "record:\(folder)", "--ao", "null", "--no-status"],
                                         timeout: 30)
            #expect(result.status == 0)
            #expect(result.stderr == "hplayer: error: \(missing): No such file or directory\n")
            #expect(try Self.framePts(folder).count == 50, "played on")
            #expect(try RecordedCue.read(folder).isEmpty)
            let notSubtitles = try Command.run([Command.hplayer, clip, "--sub-file", clip, "--vo", "null", "--ao", "null", "--no-status"], timeout: 30)
            #expect(notSubtitles.status == 0 && notSubtitles.stderr == "hplayer: error: \(clip): no subtitles in it\n", "\(notSubtitles.stderr)")
        }

        @Test("--sub-delay 0.5: each cue comes on screen half a second later, with the first frame at its new start")
        func subtitleDelay() throws {
            let folder = Fixtures.newFolder("sub-delay")
            let result = try Command.run([Command.hplayer, try Clips.audioVideo(seconds: 3), "--sub-file", try Self.subtitleFile(),
                                          "--sub-delay", "0.5", "--vo", "record:\(folder)", "--ao", "null", "--no-status"], timeout: 30)
            #expect(result.status == 0, "\(result.stderr)")
            let cues = try RecordedCue.read(folder)
            #expect(cues.map(\.text) == Array(Self.texts.prefix(2)))
            for (cue, time) in zip(cues, Self.times) {
                #expect(abs(cue.start - time.0 - 0.5) < 0.002 && abs(cue.end - time.1 - 0.5) < 0.002, "\(cue)")
            }
            Self.expectShownOnTime(cues, framePts: try Self.framePts(folder))
        }

        @Test("--sub-codepage cp1252: a SubRip file in Windows-1252 shows its accents; a codepage iconv lacks is one error line and playback goes on")
        func subtitleCodepage() throws {
            let path = Fixtures.newFolder("codepage") + "/latin.srt"
            let text = "1\n00:00:00,500 --> 00:00:01,500\nCaf\u{e9} cr\u{e8}me, \u{201c}quoted\u{201d}\n\n"
            try text.data(using: .windowsCP1252)!.write(to: URL(fileURLWithPath: path))
            let clip = try Clips.audioVideo(seconds: 2)
            let folder = Fixtures.newFolder("codepage-run")
            let result = try Command.run([Command.hplayer, clip, "--sub-file", path, "--sub-codepage", "cp1252", "--vo", "record:\(folder)",
                                          "--ao", "null", "--no-status"], timeout: 30)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try RecordedCue.read(folder).map(\.text) == ["Caf\u{e9} cr\u{e8}me, \u{201c}quoted\u{201d}"])
            let unknown = try Command.run([Command.hplayer, clip, "--sub-file", path, "--sub-codepage", "no-such-codepage", "--vo", "null",
                                           "--ao", "null", "--no-status"], timeout: 30)
            #expect(unknown.status == 0, "\(unknown.stderr)")
            #expect(unknown.stderr.split(separator: "\n").filter { $0.hasPrefix("hplayer: error: \(path): ") }.count == 1, "\(unknown.stderr)")
        }

        @Test("--sid picks the track shown, or none; --slang picks by language when --sid does not; --no-sub-visibility shows none; a track the file lacks is one warning")
        func choosingTheTrack() throws {
            let clip = try Self.clip(container: "mkv", codec: "srt", extraTrack: true)
            func play(_ options: String...) throws -> (result: CommandResult, texts: [String]) {
                let folder = Fixtures.newFolder("sid")
                let result = try Command.run([Command.hplayer, clip, "--vo", "record:\(folder)", "--ao", "null", "--no-status"] + options,
                                             timeout: 30)
                return (result, try RecordedCue.read(folder).map(\.text))
            }
            let first = try play()
            #expect(first.texts == Self.texts, "the track marked as default")
            #expect(first.result.stdout.contains(" (+) Subs  --sid=1 (*) --slang=eng (subrip)"), "\(first.result.stdout)")
            #expect(first.result.stdout.contains("     Subs  --sid=2 --slang=fra (subrip)"), "\(first.result.stdout)")
            #expect(try play("--sid", "2").texts == ["Other words", "Deux\nlines", "After the end"])
            #expect(try play("--sid", "no").texts == [])
            let french = ["Other words", "Deux\nlines", "After the end"]
            #expect(try play("--slang", "de,fr").texts == french, "French before the default")
            #expect(try play("--no-sub-visibility").texts == [])
            let missing = try play("--sid", "3")
            #expect(missing.texts == [] && missing.result.status == 0)
            // The next number would be the H.264 video's closed captions, if it carried any.
            #expect(missing.result.stderr
                == "hplayer: warning: --sid 3: there is no such subtitle track (2 in all) yet: the video's closed captions, if it carries any\n")
            #expect(try play("--sid", "4").result.stderr == "hplayer: warning: --sid 4: there is no such subtitle track (2 in all)\n")
        }

        @Test("Switching the subtitle track and hiding subtitles while playing take effect at the next frame", .realTime)
        func switchingWhilePlaying() async throws {
            let clip = try Self.clip(container: "mkv", codec: "srt", extraTrack: true)
            let session = PlayerSession(url: clip, name: "subs-switch")
            session.player.prepare()
            session.player.play()
            // Between the first cue and the second, switch; during the second, hide.
            #expect(await until(timeout: 10) { (session.player.presentedMediaPts ?? 0) >= 1.36 })
            try session.player.selectSubtitleTrack(2)
            #expect(session.player.subtitleTrack == 2)
            #expect(await until(timeout: 10) { (session.player.presentedMediaPts ?? 0) >= 1.6 })
            session.player.subtitlesVisible = false
            try await session.waitForFinished(timeout: 20)
            let cues = try RecordedCue.read(session.folder)
            #expect(cues.map(\.text) == ["First words", "Deux\nlines"], "\(cues)")
            #expect(throws: MediaError.self) { try session.player.selectSubtitleTrack(3) }
        }

        @Test("The corpus's SRT, ASS, mov_text and WebVTT streams show the texts ffmpeg reads from them",
              .enabled(if: Corpus.folder != nil, "../shared/corpus is not here"),
              arguments: [("mediabunny/test-mkv-multi.mkv", 1), ("mediabunny/test-mkv-multi.mkv", 2),
                          ("mediabunny/test-mp4-tx3g.mp4", 1), ("web-platform-tests/test-vp8-vorbis-webvtt.webm", 1)])
        func corpus(file: String, track: Int) async throws {
            let path = Corpus.folder! + "/" + file
            let extracted = try Command.run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-map", "0:s:\(track - 1)", "-f", "srt", "-"])
            let expected = extracted.stdout.components(separatedBy: "\n\n").compactMap { block -> String? in
                let lines = block.split(separator: "\n")
                // SubRip keeps an ASS style's size as a <font> tag: the text is what is inside.
                return lines.count > 2 ? lines.dropFirst(2).joined(separator: "\n")
                    .replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression) : nil
            }
            var options = PlayerOptions()
            options.subtitleTrack = .number(track)
            let session = PlayerSession(url: path, options: options, name: "subs-corpus")
            try await session.playToEnd(timeout: 30)
            let cues = try RecordedCue.read(session.folder)
            #expect(cues.map(\.text) == expected, "\(cues)")
            Self.expectShownOnTime(cues, framePts: try Self.framePts(session.folder))
        }
    }
}
