import Foundation
import HPlayerKit
import HPlayerTestSupport
import Testing

extension Playback {
    /// HLS SUBTITLES renditions of WebVTT segments (docs/playing.md, "HLS subtitle renditions"): the corpus's real
    /// set (X-TIMESTAMP-MAP, a discontinuity the text playlist puts elsewhere than the video's)
    /// and one ffmpeg's HLS muxer writes (no timestamp map), served by the fault server.
    /// About 10 s in all.
    @Suite(.timeLimit(.minutes(2))) struct HLSText {
        /// The cues of the SubRip file the ffmpeg set is made from.
        static let srt = """
            1
            00:00:00,500 --> 00:00:01,500
            First <i>words</i>

            2
            00:00:02,200 --> 00:00:03,000
            Second

            3
            00:00:04,200 --> 00:00:05,000
            Two
            lines

            """
        static let texts = ["First words", "Second", "Two\nlines"]

        /// FOLDER/master.m3u8: 6 s of video and sound in 2 s MPEG-TS segments, with the SubRip
        /// cues as a WebVTT rendition (`-var_stream_map "v:0,a:0,s:0,sgroup:subs"`).
        static let set: Result<String, FixtureError> = {
            let folder = Fixtures.newFolder("hls-text")
            do {
                try srt.write(toFile: folder + "/subs.srt", atomically: true, encoding: .utf8)
                let result = try Command.run([
                    "ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=6", "-f", "lavfi",
                    "-i", "sine=f=440:r=48000:d=6", "-i", folder + "/subs.srt", "-map", "0:v", "-map", "1:a", "-map", "2:s",
                    "-c:v", "libx264", "-g", "25", "-c:a", "aac", "-c:s", "webvtt", "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod",
                    "-master_pl_name", "master.m3u8", "-var_stream_map", "v:0,a:0,s:0,sgroup:subs",
                    "-hls_segment_filename", folder + "/seg_%v_%d.ts", folder + "/out_%v.m3u8"], timeout: 60)
                guard result.status == 0 else { return .failure(FixtureError(description: "ffmpeg: \(result.stderr)")) }
                return .success(folder)
            } catch {
                return .failure(FixtureError(description: "\(error)"))
            }
        }()

        /// The WebVTT files ffmpeg wrote, in order: their cue times, which count from the
        /// presentation's start (the files have no timestamp map).
        static func authoredTimes(_ folder: String) throws -> [(Double, Double)] {
            try (0..<3).flatMap { index -> [(Double, Double)] in
                let text = try String(contentsOfFile: "\(folder)/out_0\(index).vtt", encoding: .utf8)
                return text.split(separator: "\n").filter { $0.contains("-->") }.map { line in
                    let parts = line.components(separatedBy: " --> ")
                    return (WebVTTDocument.timestamp(Substring(parts[0]))!, WebVTTDocument.timestamp(Substring(parts[1]))!)
                }
            }
        }

        /// The earliest stream start of the first segment: the presentation's start.
        static func startTime(_ folder: String) throws -> Double {
            let probe = try Command.run(["ffprobe", "-v", "error", "-show_entries", "stream=start_time", "-of", "csv=p=0", folder + "/seg_0_0.ts"])
            return probe.stdout.split(separator: "\n").compactMap { Double($0) }.min() ?? 0
        }

        @Test("ffmpeg's WebVTT rendition comes on screen at its cues' times from the presentation's start, through our client (every .vtt fetched), and is listed with its name")
        func ffmpegSet() async throws {
            let folder = try Self.set.get()
            let server = try FaultServer(root: folder)
            var options = PlayerOptions()
            options.isUntimed = true
            let session = PlayerSession(url: server.url("master.m3u8"), options: options, name: "hls-text", pacedAudio: false)
            try await session.playToEnd(timeout: 30)
            let cues = try RecordedCue.read(session.folder)
            #expect(cues.map(\.text) == Self.texts, "\(cues)")
            let start = try Self.startTime(folder)
            for (cue, authored) in zip(cues, try Self.authoredTimes(folder)) {
                #expect(abs(cue.start - (start + authored.0)) < 0.001 && abs(cue.end - (start + authored.1)) < 0.001, "\(cue), authored \(authored)")
            }
            Subtitles.expectShownOnTime(cues, framePts: try Subtitles.framePts(session.folder))
            let tracks = session.player.subtitleTracks.map(\.description)
            #expect(tracks.map(\.codec) == ["webvtt"] && tracks.map(\.title) == ["subtitle_0"], "\(tracks)")
            let paths = server.requests.map(\.path)
            #expect(["/out_00.vtt", "/out_01.vtt", "/out_02.vtt"].allSatisfy(paths.contains), "requests: \(paths)")
        }

        @Test("hplayer lists the rendition and, started past the first cues, shows the later ones on time and none before")
        func commandLineStart() throws {
            let folder = try Self.set.get()
            let server = try FaultServer(root: folder)
            let output = Fixtures.newFolder("hls-text-cli")
            let result = try Command.run([Command.hplayer, server.url("master.m3u8"), "--start=3.2", "--untimed",
                                          "--vo", "record:\(output)", "--ao", "null", "--no-status"], timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains(" (+) Subs  --sid=1 (*) 'subtitle_0' (webvtt)"), "\(result.stdout)")
            let cues = try RecordedCue.read(output)
            #expect(cues.map(\.text) == ["Two\nlines"], "\(cues)")
            Subtitles.expectShownOnTime(cues, framePts: try Subtitles.framePts(output))
        }

        @Test("hplayer cache prefetch keeps the subtitle rendition too: with the server gone, its cues still come on screen, with no request made")
        func prefetchedForOffline() async throws {
            let cache = Fixtures.newFolder("hls-text-cache")
            let server = try FaultServer(root: try Self.set.get())
            let url = server.url("master.m3u8")
            let fetched = try Command.run([Command.hplayer, "cache", "prefetch", url, "--cache-dir", cache], timeout: 60)
            #expect(fetched.status == 0, "\(fetched.stdout)\(fetched.stderr)")
            #expect(server.requests.map(\.path).contains("/out_02.vtt"), "requests: \(server.requests.map(\.path))")
            server.stop()
            let offline = CachePlayback.RequestLog()
            let options = try CachePlayback.options(cache: cache, requests: offline)
            let session = PlayerSession(url: url, options: options, name: "hls-text-offline", pacedAudio: false)
            try await session.playToEnd()
            let cues = try RecordedCue.read(session.folder)
            #expect(cues.map(\.text) == Self.texts, "\(cues)")
            Subtitles.expectShownOnTime(cues, framePts: try Subtitles.framePts(session.folder))
            #expect(offline.urls.withLock { $0 } == [])
        }

        /// The sound packets of a transport stream segment: pts and duration, seconds.
        static func packets(_ path: String) throws -> [(pts: Double, duration: Double)] {
            let probe = try Command.run(["ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "packet=pts_time,duration_time",
                                         "-of", "csv=p=0", path])
            return probe.stdout.split(separator: "\n").compactMap { line in
                let fields = line.split(separator: ",").compactMap { Double($0) }
                return fields.count == 2 ? (fields[0], fields[1]) : nil
            }
        }

        @Test("The corpus's set: the cues before the discontinuity on their timestamp map, the one after it moved with the media's timestamps where the timeline jumps, not where the text playlist's own times would put it",
              .enabled(if: Corpus.folder != nil, "../shared/corpus is not here"))
        func corpusTimestampMapAndDiscontinuity() async throws {
            let server = try FaultServer(root: Corpus.folder! + "/hls/hls-text-offset")
            var options = PlayerOptions()
            options.isUntimed = true
            let session = PlayerSession(url: server.url("index.m3u8"), options: options, name: "hls-text-corpus", pacedAudio: false)
            try await session.playToEnd(timeout: 30)
            let cues = try RecordedCue.read(session.folder)
            // The files' text as written (one ends in a space).
            #expect(cues.map(\.text) == ["You're a jerk Tom!", "You're jealous of my robot hand! ", "cues after discontinuity"], "\(cues)")
            guard cues.count == 3 else { return }
            // Before the discontinuity the map is the identity: the video's own timestamps.
            #expect(abs(cues[0].start - 140) < 0.001 && abs(cues[0].end - 142) < 0.001 && abs(cues[1].start - 142) < 0.001, "\(cues)")
            // After it, the media's timestamps start over (the sound's at 3.102 s), and the
            // sound, read first, is placed where its last packet before ended: the cue, at 3.5 s
            // on those timestamps, is 0.398 s after that. The text playlist's own times (its
            // discontinuity 1.583 s earlier than the video's) have no say.
            let folder = Corpus.folder! + "/hls/hls-text-offset"
            let soundEnd = try Self.packets(folder + "/video-071.ts").map { $0.pts + $0.duration }.max() ?? 0
            let soundStart = try Self.packets(folder + "/video-072.ts").map(\.pts).min() ?? 0
            #expect(abs(cues[2].start - (soundEnd + 3.5 - soundStart)) < 0.002 && abs(cues[2].end - cues[2].start - 2) < 0.001,
                    "\(cues); the sound ends at \(soundEnd) and starts over at \(soundStart)")
            let frames = try Subtitles.framePts(session.folder)
            Subtitles.expectShownOnTime(cues, framePts: frames)
            #expect(server.requests.map(\.path).contains("/vtt-073.vtt"))
        }
    }
}
