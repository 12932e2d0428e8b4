import Foundation
import HPlayerIPC
import HPlayerKit
import HPlayerTestSupport
import Testing

extension Playback {
    /// CEA-608 captions in an H.264 stream's A53 side data (the corpus's mux.js sintel clip),
    /// against ffmpeg's reading of them (lavfi's `movie` source, `[out0+subcc]`).
    @Suite(.enabled(if: Corpus.folder != nil, "../shared/corpus is not here")) struct ClosedCaptions {
        static var clip: String { Corpus.folder! + "/mux.js/sintel-captions.ts" }

        /// ffmpeg's captions as SubRip: each cue's start, end (seconds from the video stream's
        /// start, as lavfi's movie source counts) and text, the markup taken out.
        static func ffmpegCaptions() throws -> [(start: Double, end: Double, text: String)] {
            let result = try Command.run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "movie=\(clip)[out0+subcc]",
                                          "-map", "0:s", "-f", "srt", "-"], timeout: 60)
            try #require(result.status == 0, "ffmpeg: \(result.stderr)")
            func seconds(_ text: Substring) -> Double {
                let parts = text.split(whereSeparator: { $0 == ":" || $0 == "," }).compactMap { Double($0) }
                return parts[0] * 3600 + parts[1] * 60 + parts[2] + parts[3] / 1000
            }
            return result.stdout.components(separatedBy: "\n\n").compactMap { block in
                let lines = block.split(separator: "\n")
                guard lines.count >= 3, let arrow = lines[1].range(of: " --> ") else { return nil }
                var text = lines[2...].joined(separator: "\n").replacingOccurrences(of: "\r", with: "")
                while let tag = text.range(of: "<[^>]*>|\\{[^}]*\\}", options: .regularExpression) { text.removeSubrange(tag) }
                return (seconds(lines[1][..<arrow.lowerBound]), seconds(lines[1][arrow.upperBound...]), text)
            }
        }

        /// The video stream's first timestamp, seconds.
        static func videoStart() throws -> Double {
            let probe = try Command.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=start_time",
                                         "-of", "csv=p=0", clip])
            // A program's streams are listed once for it and once alone.
            let first = probe.stdout.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            return try #require(Double(first), "ffprobe: \(probe.stdout) \(probe.stderr)")
        }

        @Test("The captions are a subtitle track found as they come, each cue on the frame at ffmpeg's start with ffmpeg's text",
              .timeLimit(.minutes(2)))
        func cuesAsFFmpegReadsThem() throws {
            let expected = try Self.ffmpegCaptions()
            try #require(expected.count >= 3, "ffmpeg read \(expected.count) captions")
            let folder = Fixtures.newFolder("captions")
            let result = try Command.run([Command.hplayer, Self.clip, "--sid", "1", "--vo", "record:\(folder)", "--ao", "null",
                                          "--no-status"], timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            // Said at the start, before any caption is decoded; the track then comes with the first.
            #expect(result.stderr == "hplayer: warning: --sid 1: there is no such subtitle track (0 in all) yet: the video's closed captions, if it carries any\n",
                    "\(result.stderr)")
            let startTime = try Self.videoStart()
            let cues = try RecordedCue.read(folder)
            #expect(cues.map(\.text) == expected.map(\.text))
            for (cue, reference) in zip(cues, expected) {
                #expect(abs(cue.start - startTime - reference.start) < 0.02, "\(cue) against ffmpeg's \(reference)")
                #expect(abs(cue.framePts - cue.start) < 0.05, "\(cue) came late")
            }
        }

        @Test("sub-text reads each caption during its time and nothing between two; the track is listed as eia_608",
              .timeLimit(.minutes(2)))
        func shownAndGoneOnTime() throws {
            let expected = try Self.ffmpegCaptions()
            try #require(expected.count >= 2 && expected[1].start - expected[0].end > 0.5, "\(expected)")
            let socket = Fixtures.newFolder("ipc") + "/hplayer.sock"
            let process = try BackgroundProcess([Command.hplayer, Self.clip, "--vo", "null", "--ao", "null", "--no-status",
                                                 "--sid", "1", "--input-ipc-server", socket])
            let client = try IPCClient(path: socket)
            #expect(client.waitUntilLoaded())
            #expect(client.waitUntilPlaying(), "playback did not start")
            #expect(client.request([.string("set_property"), .string("pause"), .bool(true)])?["error"] == .string("success"))
            func text(at position: Double) throws -> String? {
                client.events.removeAll()
                _ = client.request([.string("seek"), .number(position), .string("absolute"), .string("exact")])
                try #require(client.event("playback-restart", timeout: 20) != nil, "the seek to \(position) did not land")
                return client.request([.string("get_property"), .string("sub-text")])?["data"]?.string
            }
            // ffmpeg counts from the video's start, positions from the media's (the audio's, earlier).
            let shift = try Self.videoStart() - MediaProbe.probe(url: Self.clip).startTime
            let first = expected[0], second = expected[1]
            #expect(try text(at: shift + first.start + 0.5) == first.text)
            #expect(try text(at: shift + (first.end + second.start) / 2) == "")
            #expect(try text(at: shift + second.start + 0.3) == second.text)
            let tracks = client.request([.string("get_property"), .string("track-list")])?["data"]
            let subtitle = tracks?.array?.first { $0["type"] == .string("sub") }
            #expect(subtitle?["codec"] == .string("eia_608"), "\(String(describing: tracks))")
            #expect(client.request([.string("quit")]) != nil || !process.isRunning)
            #expect(process.wait(timeout: 10) == 0)
        }
    }
}
