import Foundation
import HPlayerKit
import Testing

extension Playback {
    /// Our DASH client (docs/dash.md), against the fault server (its log shows every request):
    /// one 6 s ladder (three video Representations, one audio) packaged by ffmpeg four ways:
    /// SegmentTemplate with a SegmentTimeline, SegmentTemplate with @duration, SegmentList with
    /// byte ranges of one file, and SegmentBase with a sidx (that MPD written here, over
    /// ffmpeg's single files). About 25 s in all.
    @Suite(.timeLimit(.minutes(2))) struct DASHPlayback {
        /// The ladder, encoded once: 480x360, 320x240, 160x120 video (key frames every second)
        /// and a 440 Hz tone.
        static func source() throws -> String {
            try Fixtures.clip("dash-source.mkv", [
                "-f", "lavfi", "-i", "testsrc2=size=480x360:rate=25:duration=6", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=6",
                "-map", "0:v", "-map", "0:v", "-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-g", "25", "-keyint_min", "25", "-sc_threshold", "0",
                "-s:v:0", "480x360", "-b:v:0", "600k", "-s:v:1", "320x240", "-b:v:1", "300k", "-s:v:2", "160x120", "-b:v:2", "150k",
                "-c:a", "aac", "-b:a", "64k"])
        }

        enum Layout: String, CaseIterable, Sendable {
            case timeline, template, list, base

            var ffmpegOptions: [String] {
                switch self {
                case .timeline: ["-use_template", "1", "-use_timeline", "1"]
                case .template: ["-use_template", "1", "-use_timeline", "0"]
                case .list, .base: ["-use_template", "0", "-use_timeline", "0", "-single_file", "1", "-global_sidx", "1"]
                }
            }
        }

        /// FOLDER/manifest.mpd of `layout`, packaged (not encoded again) from the source.
        static func set(_ layout: Layout) throws -> String {
            let folder = Fixtures.directory.appendingPathComponent("dash-\(layout.rawValue)").path
            if FileManager.default.fileExists(atPath: folder + "/manifest.mpd") { return folder }
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let made = try Command.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", try source(), "-map", "0", "-c", "copy",
                                        "-f", "dash", "-seg_duration", "2", "-adaptation_sets", "id=0,streams=v id=1,streams=a"]
                                       + layout.ffmpegOptions + [folder + "/ffmpeg.mpd"], timeout: 120)
            guard made.status == 0 else { throw FixtureError(description: "ffmpeg -f dash: \(made.stderr)") }
            let mpd = layout == .base ? try segmentBaseMPD(folder) : try String(contentsOfFile: folder + "/ffmpeg.mpd", encoding: .utf8)
            try mpd.write(toFile: folder + "/manifest.mpd", atomically: true, encoding: .utf8)
            return folder
        }

        /// An MPD of SegmentBase Representations over ffmpeg's single files, each indexed by its
        /// sidx: the byte ranges found by walking the files' top-level boxes.
        static func segmentBaseMPD(_ folder: String) throws -> String {
            func representation(_ index: Int, _ attributes: String) throws -> String {
                let file = "ffmpeg-stream\(index).mp4"
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(file)")))
                var offset = 0
                var sidx: Range<Int>?
                while offset + 8 <= bytes.count {
                    let size = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
                    if String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self) == "sidx" { sidx = offset..<(offset + size) }
                    guard size >= 8 else { break }
                    offset += size
                }
                guard let sidx else { throw FixtureError(description: "\(file) has no sidx") }
                return """
                      <Representation id="r\(index)" \(attributes)><BaseURL>\(file)</BaseURL>
                        <SegmentBase indexRange="\(sidx.lowerBound)-\(sidx.upperBound - 1)"><Initialization range="0-\(sidx.lowerBound - 1)"/></SegmentBase>
                      </Representation>
                """
            }
            return """
                <?xml version="1.0" encoding="utf-8"?>
                <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" profiles="urn:mpeg:dash:profile:isoff-on-demand:2011" type="static"
                     mediaPresentationDuration="PT6.0S" minBufferTime="PT2.0S">
                  <Period>
                    <AdaptationSet contentType="video" mimeType="video/mp4">
                \(try representation(0, #"codecs="avc1.64001e" bandwidth="600000" width="480" height="360""#))
                \(try representation(1, #"codecs="avc1.64000d" bandwidth="300000" width="320" height="240""#))
                \(try representation(2, #"codecs="avc1.64000c" bandwidth="150000" width="160" height="120""#))
                    </AdaptationSet>
                    <AdaptationSet contentType="audio" mimeType="audio/mp4" lang="en">
                \(try representation(3, #"codecs="mp4a.40.2" bandwidth="64000""#))
                    </AdaptationSet>
                  </Period>
                </MPD>
                """
        }

        /// ffmpeg's frames of video Representation `index` (the source's video stream `index`:
        /// packaging copies the packets).
        static func reference(_ index: Int) throws -> [String] {
            let result = try Command.run(["ffmpeg", "-nostdin", "-v", "error", "-i", try source(), "-map", "0:v:\(index)", "-f", "framemd5", "-"])
            guard result.status == 0 else { throw FixtureError(description: "framemd5 failed: \(result.stderr)") }
            return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
                $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
            }
        }

        /// The files of Representation `index` in `layout` (ffmpeg's names).
        static func isOfStream(_ path: String, _ index: Int) -> Bool {
            path.contains("stream\(index)-") || path.contains("stream\(index).")
        }

        static func untimed(_ bitrate: HLSBitrate) -> PlayerOptions {
            var options = PlayerOptions()
            options.isUntimed = true
            options.source.network.hlsBitrate = bitrate
            return options
        }

        static let choices: [(HLSBitrate, Int)] = [(.max, 0), (.min, 2), (.atMost(400_000), 1)]

        @Test("Each MPD layout, with --hls-bitrate max, min and a middle BITS: the frames are ffmpeg's of the Representation chosen, the sound plays, and no byte is fetched of another Representation",
              arguments: Layout.allCases, 0..<3)
        func representationChoice(layout: Layout, choice: Int) async throws {
            let (bitrate, video) = Self.choices[choice]
            let server = try FaultServer(root: try Self.set(layout))
            let session = PlayerSession(url: server.url("manifest.mpd"), options: Self.untimed(bitrate), name: "dash-\(layout.rawValue)", pacedAudio: false)
            try await session.playToEnd()
            #expect(session.presentedFrames.map(\.md5) == (try Self.reference(video)))
            #expect(try session.recordedAudio().samples.count > 48_000 * 5)
            let paths = server.requests.map(\.path).filter { $0 != "/manifest.mpd" }
            #expect(!paths.isEmpty && paths.allSatisfy { Self.isOfStream($0, video) || Self.isOfStream($0, 3) }, "requests: \(paths)")
            #expect(paths.contains { Self.isOfStream($0, video) } && paths.contains { Self.isOfStream($0, 3) }, "requests: \(paths)")
        }

        @Test("A local MPD, by a path with a space in it, plays through our DASH client: --hls-bitrate min gives ffmpeg's frames of the lowest Representation (libavformat's client would show the first)")
        func localManifest() async throws {
            let folder = try Self.set(.template)
            let spaced = Fixtures.newFolder("dash local") + "/set"
            try FileManager.default.createSymbolicLink(atPath: spaced, withDestinationPath: folder)
            let session = PlayerSession(url: spaced + "/manifest.mpd", options: Self.untimed(.min), name: "dash-local", pacedAudio: false)
            try await session.playToEnd()
            #expect(session.presentedFrames.map(\.md5) == (try Self.reference(2)))
            #expect(try session.recordedAudio().samples.count > 48_000 * 5)
        }

        @Test("A 500 on a segment, and a connection dropped in the middle of one: the I/O layer's retries give ffmpeg's frames all the same",
              arguments: [["--status", "500", "--status-path", "chunk-stream0-00002.m4s"], ["--drop-after", "20000", "--drop-path", "chunk-stream0-00002.m4s"]])
        func faults(faults: [String]) async throws {
            let server = try FaultServer(faults, root: try Self.set(.template))
            let session = PlayerSession(url: server.url("manifest.mpd"), options: Self.untimed(.max), name: "dash-faults", pacedAudio: false)
            try await session.playToEnd(timeout: 60)
            #expect(session.presentedFrames.map(\.md5) == (try Self.reference(0)))
            #expect(server.requests.contains { $0.status == 500 || $0.outcome == "dropped" }, "the fault did not happen: \(server.requests)")
        }

        @Test("Exact seeks back and forth, paused (each a new section: a new demuxer on the initialization section, a new decoder): after each, the frame shown is ffmpeg's first at or after the target",
              .timeLimit(.minutes(1)))
        func exactSeeksBackAndForth() async throws {
            let server = try FaultServer(root: try Self.set(.timeline))
            var options = PlayerOptions()
            options.source.network.hlsBitrate = .max
            let session = PlayerSession(url: server.url("manifest.mpd"), options: options, name: "dash-seeks")
            session.player.prepare()
            session.player.pause()
            try await session.waitForPrepared()
            try await session.waitFor("the preview frame") { _ in session.presentedFrames.count == 1 }
            let reference = try Self.reference(0)
            let pts = try Fixtures.framePts(try Self.source())
            let start = try #require(session.player.mediaInfo).startTime
            for target in [3.0, 1.0, 2.0, 4.0] {
                let (before, presented) = (session.eventCount, session.presentedFrames.count)
                session.player.seek(to: target, mode: .exact)
                try await session.waitForSeekDone(after: before)
                try await session.waitFor("the frame the seek to \(target) s presents", timeout: 10) { _ in session.presentedFrames.count > presented }
                let shown = session.presentedFrames.last
                let expected = pts.firstIndex { $0 >= start + target - 0.001 }.map { reference[$0] }
                #expect(shown?.md5 != nil && shown?.md5 == expected, "seek to \(target) s: shown pts \(shown?.pts ?? -1)")
            }
            session.close()
        }

        @Test("Offline replay: a DASH presentation played once plays again from the disk cache with the server gone, frame-exact, with no request made")
        func offlineReplay() async throws {
            let cache = Fixtures.newFolder("dash-cache")
            let server = try FaultServer(root: try Self.set(.timeline))
            let url = server.url("manifest.mpd")
            let configure: (inout NetworkOptions) -> Void = { $0.hlsBitrate = .min }
            try await PlayerSession(url: url, options: CachePlayback.options(cache: cache, requests: .init(), configure: configure), name: "dash-online", pacedAudio: false).playToEnd()
            server.stop()
            let offline = CachePlayback.RequestLog()
            let session = PlayerSession(url: url, options: try CachePlayback.options(cache: cache, requests: offline, configure: configure), name: "dash-offline", pacedAudio: false)
            try await session.playToEnd()
            #expect(session.presentedFrames.map(\.md5) == (try Self.reference(2)))
            #expect(offline.urls.withLock { $0 } == [])
        }

        @Test("BaseURL failover: the first host answers 404 to everything, and the initialization sections and segments come from the second")
        func baseURLFailover() async throws {
            let folder = try Self.set(.template)
            let dead = try FaultServer(["--status", "404", "--status-times", "-1"], root: folder)
            let server = try FaultServer(root: folder)
            let original = try String(contentsOfFile: folder + "/manifest.mpd", encoding: .utf8)
            let failover = original.replacingOccurrences(of: "<Period id=\"0\" start=\"PT0.0S\">",
                                                         with: "<BaseURL>\(dead.url(""))</BaseURL><BaseURL>\(server.url(""))</BaseURL>\n<Period id=\"0\" start=\"PT0.0S\">")
            try #require(failover != original)
            try failover.write(toFile: folder + "/failover.mpd", atomically: true, encoding: .utf8)
            let session = PlayerSession(url: server.url("failover.mpd"), options: Self.untimed(.max), name: "dash-failover", pacedAudio: false)
            try await session.playToEnd(timeout: 60)
            #expect(session.presentedFrames.map(\.md5) == (try Self.reference(0)))
            #expect(!dead.requests.isEmpty && dead.requests.allSatisfy { $0.status == 404 })
            let served = server.requests.map(\.path).filter { $0 != "/failover.mpd" }
            #expect(served.contains("/init-stream0.m4s") && served.filter { $0.hasPrefix("/chunk-stream0-") }.count == 3, "requests: \(served)")
        }

        /// Two Periods: the timeline set's 6 s (FOLDER/p1), then 4 s of another picture and
        /// tone encoded apart (FOLDER/p2: its own codec configuration, its media times from 0),
        /// in FOLDER/manifest.mpd; each Period's Representations are those ffmpeg packaged.
        static func twoPeriods() throws -> String {
            let folder = Fixtures.directory.appendingPathComponent("dash-periods").path
            if FileManager.default.fileExists(atPath: folder + "/manifest.mpd") { return folder }
            try FileManager.default.createDirectory(atPath: folder + "/p2", withIntermediateDirectories: true)
            let first = try set(.timeline)
            try? FileManager.default.removeItem(atPath: folder + "/p1")
            try FileManager.default.createSymbolicLink(atPath: folder + "/p1", withDestinationPath: first)
            let second = try Fixtures.clip("dash-source-2.mkv", [
                "-f", "lavfi", "-i", "smptebars=size=480x360:rate=25:duration=4", "-f", "lavfi", "-i", "sine=f=660:r=48000:d=4",
                "-map", "0:v", "-map", "0:v", "-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-g", "25", "-keyint_min", "25", "-sc_threshold", "0",
                "-s:v:0", "480x360", "-b:v:0", "600k", "-s:v:1", "320x240", "-b:v:1", "300k", "-s:v:2", "160x120", "-b:v:2", "150k",
                "-c:a", "aac", "-b:a", "64k"])
            let made = try Command.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", second, "-map", "0", "-c", "copy",
                                        "-f", "dash", "-seg_duration", "2", "-adaptation_sets", "id=0,streams=v id=1,streams=a"]
                                       + Layout.timeline.ffmpegOptions + [folder + "/p2/ffmpeg.mpd"], timeout: 120)
            guard made.status == 0 else { throw FixtureError(description: "ffmpeg -f dash: \(made.stderr)") }
            func period(_ mpd: String, attributes: String, base: String) throws -> String {
                let text = try String(contentsOfFile: mpd, encoding: .utf8)
                guard let open = text.range(of: "<Period"), let close = text.range(of: "</Period>"),
                      let openEnd = text[open.upperBound...].firstIndex(of: ">") else { throw FixtureError(description: "no Period in \(mpd)") }
                return "<Period \(attributes)><BaseURL>\(base)</BaseURL>" + text[text.index(after: openEnd)..<close.lowerBound] + "</Period>"
            }
            let mpd = """
                <?xml version="1.0" encoding="utf-8"?>
                <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT10S" minBufferTime="PT2S">
                \(try period(first + "/ffmpeg.mpd", attributes: #"id="a" start="PT0S""#, base: "p1/"))
                \(try period(folder + "/p2/ffmpeg.mpd", attributes: #"id="b" start="PT6S""#, base: "p2/"))
                </MPD>
                """
            try mpd.write(toFile: folder + "/manifest.mpd", atomically: true, encoding: .utf8)
            return folder
        }

        @Test("Two Periods, the second of another codec configuration and media times from 0: ffmpeg's frames of each in turn, their times one frame apart throughout (no gap, no frame repeated), and the sound of both")
        func twoPeriodsPlayThrough() async throws {
            let folder = try Self.twoPeriods()
            let server = try FaultServer(root: folder)
            let session = PlayerSession(url: server.url("manifest.mpd"), options: Self.untimed(.atMost(400_000)), name: "dash-periods", pacedAudio: false)
            try await session.playToEnd()
            let frames = session.presentedFrames
            // The second clip's video stream 1 is the 320x240 Representation's: compare that one.
            let secondMiddle = try Command.run(["ffmpeg", "-nostdin", "-v", "error", "-i", try Fixtures.clip("dash-source-2.mkv", []),
                                                "-map", "0:v:1", "-f", "framemd5", "-"]).stdout
                .split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
            #expect(secondMiddle.count == 100)
            #expect(frames.map(\.md5) == (try Self.reference(1)) + secondMiddle)
            let steps = zip(frames.dropFirst(), frames).map { $0.pts - $1.pts }
            #expect(frames.count == 250 && steps.allSatisfy { abs($0 - 0.04) < 0.001 }, "steps: \(Set(steps.map { ($0 * 1000).rounded() }))")
            let played = session.audioCallbacks.compactMap(\.firstPts)
            #expect((played.max() ?? 0) > 9.9 && (played.max() ?? 0) < 10.1, "the sound's last time: \(played.max() ?? 0)")
            let paths = server.requests.map(\.path)
            #expect(paths.contains("/p2/init-stream1.m4s") && paths.contains("/p2/init-stream3.m4s") && !paths.contains { $0.contains("stream0") || $0.contains("stream2") },
                    "requests: \(paths)")
        }

        @Test("--alang picks the audio AdaptationSet of the language asked for, and nothing of the other is fetched; without it, the one whose Role is main",
              arguments: [(["de"], true), ([], false), (["ja", "en"], false)])
        func audioLanguage(languages: [String], german: Bool) async throws {
            let folder = try Self.set(.template)
            try? FileManager.default.createSymbolicLink(atPath: folder + "/de", withDestinationPath: folder)
            let original = try String(contentsOfFile: folder + "/manifest.mpd", encoding: .utf8)
            guard let audio = original.range(of: "<AdaptationSet id=\"1\""), let end = original.range(of: "</AdaptationSet>", range: audio.upperBound..<original.endIndex) else {
                throw FixtureError(description: "no audio AdaptationSet")
            }
            let englishSet = String(original[audio.lowerBound..<end.upperBound])
                .replacingOccurrences(of: "contentType=\"audio\"", with: "contentType=\"audio\" lang=\"en\"")
                .replacingOccurrences(of: "<Representation", with: "<Role schemeIdUri=\"urn:mpeg:dash:role:2011\" value=\"main\"/><Representation")
            let germanSet = englishSet.replacingOccurrences(of: "lang=\"en\"", with: "lang=\"de\"").replacingOccurrences(of: "value=\"main\"", with: "value=\"dub\"")
                .replacingOccurrences(of: "media=\"chunk", with: "media=\"de/chunk").replacingOccurrences(of: "initialization=\"init", with: "initialization=\"de/init")
            try original.replacingCharacters(in: audio.lowerBound..<end.upperBound, with: germanSet + "\n" + englishSet)
                .write(toFile: folder + "/languages.mpd", atomically: true, encoding: .utf8)
            let server = try FaultServer(root: folder)
            var options = Self.untimed(.min)
            options.source.network.audioLanguages = languages
            let session = PlayerSession(url: server.url("languages.mpd"), options: options, name: "dash-alang", pacedAudio: false)
            try await session.playToEnd()
            let audioPaths = server.requests.map(\.path).filter { $0.contains("stream3") }
            // The German set's files are under /de/, the English one's not.
            let underDe = audioPaths.map { $0.hasPrefix("/de/") }
            #expect(!underDe.isEmpty && !underDe.contains(!german), "audio requests: \(audioPaths)")
            #expect(try session.recordedAudio().samples.count > 48_000 * 5)
        }

        @Test("hplayer abr-sim --ladder takes an MPD of each layout: its video Representations' bandwidths, its segments and their durations", arguments: Layout.allCases)
        func simulatorLadder(layout: Layout) throws {
            let folder = try Self.set(layout)
            let trace = folder + "/steady"
            try "0\t2.0\n1\t2.0\n".write(toFile: trace, atomically: true, encoding: .utf8)
            let result = try Command.run([Command.hplayer, "abr-sim", trace, "--ladder", folder + "/manifest.mpd", "--policy", "seed"], timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            let mpd = try MPDParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/manifest.mpd"))), url: "file://" + folder + "/manifest.mpd")
            let rates = mpd.periods[0].adaptationSets[0].representations.map(\.bandwidth).sorted().map { "\($0 / 1000)" }.joined(separator: " ")
            #expect(rates.split(separator: " ").count == 3)
            #expect(result.stdout.split(separator: "\n").first == "ladder dash-\(layout.rawValue): \(rates) kb/s, 3 segments of 2.0 s", "\(result.stdout)")
        }

        /// `hplayer play` with no outputs; its exit status and error lines.
        static func play(_ url: String) throws -> (status: Int32, errors: [String]) {
            let result = try Command.run([Command.hplayer, "play", url, "--vo", "null", "--ao", "null", "--untimed", "--no-status"], timeout: 60)
            return (result.status, result.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("hplayer: error: ") })
        }

        @Test("Bad manifests: one error line naming the input and the reason, exit 1",
              arguments: [("malformed", "<MPD><Period>", "not well-formed XML"),
                          ("no-representation", "<MPD type=\"static\" mediaPresentationDuration=\"PT6S\"><Period><AdaptationSet contentType=\"video\"/></Period></MPD>",
                           "no video or audio Representation"),
                          ("undefined-identifier", "<MPD type=\"static\" mediaPresentationDuration=\"PT6S\"><Period><AdaptationSet contentType=\"video\"><Representation id=\"0\" bandwidth=\"1\"><SegmentTemplate media=\"$Segment$.m4s\" duration=\"2\"/></Representation></AdaptationSet></Period></MPD>",
                           "names an undefined identifier $Segment$"),
                          ("widevine", "<MPD type=\"static\" mediaPresentationDuration=\"PT6S\"><Period><AdaptationSet contentType=\"video\"><ContentProtection schemeIdUri=\"urn:mpeg:dash:mp4protection:2011\" value=\"cenc\"/><ContentProtection schemeIdUri=\"urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed\"/><Representation id=\"0\" bandwidth=\"1\"><SegmentTemplate media=\"$Number$.m4s\" duration=\"2\"/></Representation></AdaptationSet></Period></MPD>",
                           "protected with Widevine: not supported"),
                          ("missing-init", "<MPD type=\"static\" mediaPresentationDuration=\"PT6S\"><Period><AdaptationSet contentType=\"video\"><Representation id=\"0\" bandwidth=\"1\"><SegmentTemplate media=\"chunk-stream0-$Number%05d$.m4s\" initialization=\"missing.m4s\" duration=\"2\"/></Representation></AdaptationSet></Period></MPD>",
                           "HTTP 404")])
        func badManifests(name: String, manifest: String, reason: String) throws {
            let folder = try Self.set(.template)
            try manifest.write(toFile: "\(folder)/\(name).mpd", atomically: true, encoding: .utf8)
            let server = try FaultServer(root: folder)
            let (status, errors) = try Self.play(server.url("\(name).mpd"))
            #expect(status == 1 && errors.count == 1 && errors.first?.contains(reason) == true && errors.first?.contains("127.0.0.1") == true,
                    "exit \(status): \(errors)")
        }
    }
}

extension Playback {
    /// Live DASH: ffmpeg (`-f dash -streaming 1 -re`, 1 s segments of a SegmentTemplate with
    /// @duration) writes a dynamic MPD, served by nginx; hplayer joins mid-stream. Real time:
    /// the latency is measured against the wall clock. About 20 s, the encoder shared.
    @Suite(.realTime, .timeLimit(.minutes(2))) struct DASHLive {
        /// The encoder, started once: 60 s of testsrc2 and a tone into FOLDER/manifest.mpd, every
        /// segment kept (a window of 60).
        static let encoder: Result<(folder: String, process: BackgroundProcess), FixtureError> = {
            let folder = Fixtures.newFolder("dash-live")
            do {
                let process = try BackgroundProcess([
                    "ffmpeg", "-nostdin", "-v", "error", "-re", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=60",
                    "-f", "lavfi", "-i", "sine=f=440:r=48000:d=60", "-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-g", "25", "-keyint_min", "25",
                    "-sc_threshold", "0", "-b:v", "300k", "-c:a", "aac", "-b:a", "64k", "-f", "dash", "-seg_duration", "1", "-streaming", "1",
                    "-use_template", "1", "-use_timeline", "0", "-window_size", "60", "-extra_window_size", "60",
                    "-adaptation_sets", "id=0,streams=v id=1,streams=a", folder + "/manifest.mpd"])
                return .success((folder, process))
            } catch {
                return .failure(FixtureError(description: "\(error)"))
            }
        }()

        /// The encoder's folder once it has written `segments` video segments.
        static func live(segments: Int) async throws -> String {
            let folder = try encoder.get().folder
            let deadline = MonotonicClock.now() + 30
            while !FileManager.default.fileExists(atPath: String(format: "%@/chunk-stream0-%05d.m4s", folder, segments)) {
                guard MonotonicClock.now() < deadline else { throw FixtureError(description: "the live encoder wrote no segment \(segments)") }
                try await Task.sleep(nanoseconds: 50_000_000)
            }
            return folder
        }

        /// `name`.mpd in `folder`: the encoder's MPD with a latency target of 3 s, its
        /// availability start moved by `shift` seconds and a UTCTiming naming `clock` (read by `scheme`).
        static func manifest(_ folder: String, name: String, shift: Double = 0, clock: String? = nil, scheme: String = "http-xsdate") throws -> MPD {
            var text = try String(contentsOfFile: folder + "/manifest.mpd", encoding: .utf8)
            let parsed = try MPDParser.parse(Array(text.utf8), url: "http://127.0.0.1/manifest.mpd")
            guard let start = parsed.availabilityStartTime, let open = text.range(of: "availabilityStartTime=\""),
                  let close = text[open.upperBound...].firstIndex(of: "\"") else { throw FixtureError(description: "no availabilityStartTime") }
            let moved = Date(timeIntervalSince1970: start + shift)
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            text.replaceSubrange(open.upperBound..<close, with: formatter.string(from: moved))
            text = text.replacingOccurrences(of: "<ServiceDescription id=\"0\">", with: "<ServiceDescription id=\"0\"><Latency target=\"3000\"/>")
            if let clock {
                text = text.replacingOccurrences(of: "</MPD>", with: "<UTCTiming schemeIdUri=\"urn:mpeg:dash:utc:\(scheme):2014\" value=\"\(clock)\"/></MPD>")
            }
            try text.write(toFile: "\(folder)/\(name).mpd", atomically: true, encoding: .utf8)
            return try MPDParser.parse(Array(text.utf8), url: "http://127.0.0.1/\(name).mpd")
        }

        /// ffmpeg's frames of every video segment written so far, in order.
        static func reference(_ folder: String) throws -> [String] {
            var bytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/init-stream0.m4s"))
            var number = 1
            while case let path = String(format: "%@/chunk-stream0-%05d.m4s", folder, number), FileManager.default.fileExists(atPath: path) {
                bytes += try Data(contentsOf: URL(fileURLWithPath: path))
                number += 1
            }
            let joined = Fixtures.newFolder("dash-live-reference") + "/joined.mp4"
            try bytes.write(to: URL(fileURLWithPath: joined))
            return try Fixtures.frameMD5s(joined)
        }

        /// Plays `url` until 100 frames are shown; the frames, and each one's latency: the wall
        /// time it was shown at, on the server's clock (`serverAhead` seconds ahead), less the
        /// time it was made available from (the availability start plus its pts).
        static func play(_ url: String, availabilityStart: Double, serverAhead: Double, name: String) async throws -> ([PresentedFrame], [Double]) {
            let session = PlayerSession(url: url, name: name)
            session.player.prepare()
            session.player.play()
            try await session.waitFor("100 frames shown", timeout: 30) { _ in session.presentedFrames.count >= 100 }
            session.close()
            // The monotonic clock the frames are stamped with, onto the wall clock.
            let wallLessMonotonic = Date().timeIntervalSince1970 - MonotonicClock.now()
            let frames = session.presentedFrames
            return (frames, frames.map { $0.presentedAt + wallLessMonotonic + serverAhead - (availabilityStart + $0.pts) })
        }

        /// The frames are ffmpeg's, in a run from mid-stream, at the 3 s target: within half a
        /// second (the start-up's own delay), and half `clockResolution` more (a Date field's whole
        /// seconds leave the server's clock half a second unknown either way).
        static func check(_ frames: [PresentedFrame], latencies: [Double], folder: String, clockResolution: Double = 0) throws {
            let steps = zip(frames.dropFirst(), frames).map { $0.pts - $1.pts }
            #expect(frames.count >= 100 && steps.allSatisfy { abs($0 - 0.04) < 0.001 }, "steps: \(Set(steps.map { ($0 * 1000).rounded() }))")
            let reference = try reference(folder)
            let first = try #require(reference.firstIndex(of: frames[0].md5), "the first frame shown is none of ffmpeg's")
            #expect(Array(reference[first...].prefix(frames.count)) == frames.map(\.md5))
            // Joined mid-stream, not at the start.
            #expect(frames[0].pts >= 1)
            let median = latencies.sorted()[latencies.count / 2]
            #expect(abs(median - 3) < 0.5 + clockResolution / 2, "latency: median \(median) s, from \(latencies.min() ?? 0) to \(latencies.max() ?? 0) s; the target is 3 s")
        }

        @Test("Joined mid-stream: a contiguous run of ffmpeg's frames, shown at the MPD's 3 s latency target", .timeLimit(.minutes(1)))
        func joinsAtTheLatencyTarget() async throws {
            let folder = try await Self.live(segments: 5)
            let nginx = try NginxServer(root: folder)
            let mpd = try Self.manifest(folder, name: "target")
            let (frames, latencies) = try await Self.play(nginx.url("target.mpd"), availabilityStart: mpd.availabilityStartTime!, serverAhead: 0, name: "dash-live")
            try Self.check(frames, latencies: latencies, folder: folder)
        }

        @Test("A server clock an hour ahead, told through UTCTiming (http-xsdate: the body; http-head: a HEAD's Date): segments worked out on the server's clock, ffmpeg's frames at the latency target",
              .timeLimit(.minutes(1)), arguments: ["http-xsdate", "http-head"])
        func serverClockFromUTCTiming(scheme: String) async throws {
            let folder = try await Self.live(segments: 5)
            let nginx = try NginxServer(root: folder)
            let server = try FaultServer(["--clock-offset", "3600"], upstream: nginx)
            let mpd = try Self.manifest(folder, name: "shifted-\(scheme)", shift: 3600, clock: server.url("_clock"), scheme: scheme)
            let (frames, latencies) = try await Self.play(server.url("shifted-\(scheme).mpd"), availabilityStart: mpd.availabilityStartTime!, serverAhead: 3600,
                                                          name: "dash-live-clock")
            try Self.check(frames, latencies: latencies, folder: folder, clockResolution: scheme == "http-head" ? 1 : 0)
            #expect(server.requests.contains { $0.path == "/_clock" })
        }
    }
}
