import Foundation
import HPlayerKit
import HPlayerTestSupport
import Testing

extension Playback {
    /// Text AdaptationSets in DASH (docs/dash.md, "Text"): WebVTT in MP4 (`wvtt`) and TTML in MP4
    /// (`stpp`) beside the video of the DASH ladder ffmpeg packaged (DASHPlayback's), their
    /// segments written by TextFragmentWriter (ffmpeg 5.1 writes neither) and checked with
    /// ffprobe, served by the fault server. About 10 s in all.
    @Suite(.timeLimit(.minutes(2))) struct DASHText {
        /// The cues as authored, for WebVTT and for TTML: one within the first 2 s segment, one
        /// across the first boundary, one with a character reference, one of two lines.
        static let cues: [(start: Double, end: Double, webVTT: String, ttml: String, shown: String)] = [
            (0.5, 1.5, "First <i>words</i>", "First <span>words</span>", "First words"),
            (1.8, 2.6, "Across the segments", "Across the segments", "Across the segments"),
            (3.0, 3.4, "Fish &amp; chips", "Fish &amp; chips", "Fish & chips"),
            (4.2, 5.0, "Two\nlines", "Two<br/>lines", "Two\nlines"),
        ]

        /// FOLDER/text.mpd: the template layout's MPD with an English WebVTT set (a
        /// SegmentTemplate with @duration) and a French TTML one (a SegmentTimeline) added.
        static func set() throws -> String {
            let folder = try DASHPlayback.set(.template)
            if FileManager.default.fileExists(atPath: folder + "/text.mpd") { return folder }
            for format in [TextFragmentWriter.Format.webVTT, .ttml] {
                let writer = TextFragmentWriter(format: format)
                let directory = folder + "/text-\(format.rawValue)"
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                try Data(writer.initialization()).write(to: URL(fileURLWithPath: directory + "/init.mp4"))
                let authored = cues.map { TextFragmentWriter.Cue(start: $0.start, end: $0.end, text: format == .webVTT ? $0.webVTT : $0.ttml) }
                for number in 1...3 {
                    let start = Double(number - 1) * 2
                    try Data(writer.segment(number: UInt32(number), span: start..<(start + 2), cues: authored))
                        .write(to: URL(fileURLWithPath: directory + "/\(number).m4s"))
                }
            }
            let textSets = """
                <AdaptationSet id="10" contentType="text" mimeType="application/mp4" codecs="wvtt" lang="en">
                  <Role schemeIdUri="urn:mpeg:dash:role:2011" value="subtitle"/>
                  <Label>English</Label>
                  <SegmentTemplate timescale="1000" duration="2000" startNumber="1" initialization="text-wvtt/init.mp4" media="text-wvtt/$Number$.m4s"/>
                  <Representation id="wvtt" bandwidth="800"/>
                </AdaptationSet>
                <AdaptationSet id="11" contentType="text" mimeType="application/mp4" codecs="stpp" lang="fr">
                  <Role schemeIdUri="urn:mpeg:dash:role:2011" value="subtitle"/>
                  <SegmentTemplate timescale="1000" startNumber="1" initialization="text-stpp/init.mp4" media="text-stpp/$Number$.m4s">
                    <SegmentTimeline><S t="0" d="2000" r="2"/></SegmentTimeline>
                  </SegmentTemplate>
                  <Representation id="stpp" bandwidth="1200"/>
                </AdaptationSet>

                """
            let mpd = try String(contentsOfFile: folder + "/manifest.mpd", encoding: .utf8)
            guard let end = mpd.range(of: "</Period>") else { throw FixtureError(description: "no Period in ffmpeg's MPD") }
            try mpd.replacingCharacters(in: end.lowerBound..<end.lowerBound, with: textSets)
                .write(toFile: folder + "/text.mpd", atomically: true, encoding: .utf8)
            return folder
        }

        @Test("The text segments written for these tests are read by ffprobe: a subtitle or data stream whose packets start and last as the samples were cut (ffmpeg's check of the fixture, not ours)",
              arguments: [TextFragmentWriter.Format.webVTT, .ttml])
        func fixtureReadByFFprobe(format: TextFragmentWriter.Format) throws {
            let folder = try Self.set() + "/text-\(format.rawValue)"
            var whole = Data()
            for name in ["init.mp4", "1.m4s", "2.m4s", "3.m4s"] { whole += try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)) }
            let file = Fixtures.newFolder("dash-text-probe") + "/whole.mp4"
            try whole.write(to: URL(fileURLWithPath: file))
            let probe = try Command.run(["ffprobe", "-v", "error", "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", file], timeout: 30)
            #expect(probe.status == 0, "\(probe.stderr)")
            let packets = probe.stdout.split(separator: "\n").map { $0.split(separator: ",").compactMap { Double($0) } }
            // WebVTT: a sample between each change of the cues showing, each segment's edges
            // included; TTML: a document per segment.
            let edges = format == .webVTT ? [0, 0.5, 1.5, 1.8, 2, 2.6, 3, 3.4, 4, 4.2, 5, 6] : [0, 2, 4, 6]
            let expected = zip(edges, edges.dropFirst()).map { [$0, $1 - $0] }
            #expect(packets.count == expected.count && zip(packets, expected).allSatisfy { zip($0, $1).allSatisfy { abs($0 - $1) < 1e-6 } },
                    "ffprobe's packets: \(probe.stdout)")
        }

        @Test("Each text AdaptationSet, chosen with --sid, comes on screen at its cues' times as plain text, a cue across two segments once; the other set is listed too, both fetched through our client",
              arguments: [1, 2])
        func cuesShown(number: Int) async throws {
            let server = try FaultServer(root: try Self.set())
            var options = DASHPlayback.untimed(.min)
            options.subtitleTrack = .number(number)
            let session = PlayerSession(url: server.url("text.mpd"), options: options, name: "dash-text-\(number)", pacedAudio: false)
            try await session.playToEnd()
            let cues = try RecordedCue.read(session.folder)
            #expect(cues.map(\.text) == Self.cues.map(\.shown), "\(cues)")
            for (cue, authored) in zip(cues, Self.cues) {
                #expect(abs(cue.start - authored.start) < 0.001 && abs(cue.end - authored.end) < 0.001, "\(cue)")
            }
            Subtitles.expectShownOnTime(cues, framePts: try Subtitles.framePts(session.folder))
            let tracks = session.player.subtitleTracks.map(\.description)
            #expect(tracks.map(\.codec) == ["webvtt", "ttml"] && tracks.map(\.language) == ["en", "fr"] && tracks.map(\.title) == ["English", "text 2"],
                    "\(tracks)")
            let paths = server.requests.map(\.path)
            for format in ["wvtt", "stpp"] {
                #expect(["init.mp4", "1.m4s", "2.m4s", "3.m4s"].allSatisfy { paths.contains("/text-\(format)/\($0)") }, "requests: \(paths)")
            }
        }

        @Test("hplayer lists the text sets after the file's streams with their language, label and format, and shows --sid's; a start past the first cues shows the later ones on time and none before")
        func commandLine() throws {
            let server = try FaultServer(root: try Self.set())
            let folder = Fixtures.newFolder("dash-text-cli")
            let result = try Command.run([Command.hplayer, server.url("text.mpd"), "--sid=1", "--start=3", "--hls-bitrate=min", "--untimed",
                                          "--vo", "record:\(folder)", "--ao", "null", "--no-status"], timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains(" (+) Subs  --sid=1 --slang=en 'English' (webvtt)"), "\(result.stdout)")
            #expect(result.stdout.contains("     Subs  --sid=2 --slang=fr 'text 2' (ttml)"), "\(result.stdout)")
            let cues = try RecordedCue.read(folder)
            #expect(cues.map(\.text) == ["Fish & chips", "Two\nlines"], "\(cues)")
            Subtitles.expectShownOnTime(cues, framePts: try Subtitles.framePts(folder))
        }

        @Test("hplayer cache prefetch keeps the text sets too: with the server gone, the cues still come on screen on time, with no request made")
        func prefetchedForOffline() async throws {
            let cache = Fixtures.newFolder("dash-text-cache")
            let server = try FaultServer(root: try Self.set())
            let url = server.url("text.mpd")
            let fetched = try Command.run([Command.hplayer, "cache", "prefetch", url, "--hls-bitrate", "min", "--cache-dir", cache], timeout: 60)
            #expect(fetched.status == 0, "\(fetched.stdout)\(fetched.stderr)")
            let paths = server.requests.map(\.path)
            #expect(paths.contains("/text-wvtt/3.m4s") && paths.contains("/text-stpp/3.m4s"), "requests: \(paths)")
            server.stop()
            let offline = CachePlayback.RequestLog()
            var options = try CachePlayback.options(cache: cache, requests: offline) { $0.hlsBitrate = .min }
            options.subtitleTrack = .number(2)
            let session = PlayerSession(url: url, options: options, name: "dash-text-offline", pacedAudio: false)
            try await session.playToEnd()
            let cues = try RecordedCue.read(session.folder)
            #expect(cues.map(\.text) == Self.cues.map(\.shown), "\(cues)")
            Subtitles.expectShownOnTime(cues, framePts: try Subtitles.framePts(session.folder))
            #expect(offline.urls.withLock { $0 } == [])
        }
    }
}
