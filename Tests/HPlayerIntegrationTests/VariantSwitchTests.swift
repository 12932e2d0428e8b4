import Foundation
import HPlayerIPC
import HPlayerKit
import HPlayerTestSupport
import Testing

extension Playback {
    /// Variant switches as a viewer meets them: the real player at 1x, the fault server replaying
    /// a trace that forces them (fast, slow, fast again).
    @Suite(.timeLimit(.minutes(3)), .realTime) struct VariantSwitching {
        /// The 3-variant ladder of NetworkPlayback, 36 s long: room for a switch down and, past
        /// auto's 20 s hold, one back up.
        static let ladder = HLSPlayback.makeLadder("hls-ladder-36s", fragmented: false, seconds: 36)

        /// Per presented frame, its pts less the pts of the sound heard as it was presented (from
        /// the callback before it, at 1x); nil where no sound was playing then (a stall).
        static func avOffsets(_ session: PlayerSession) -> [(pts: Double, offset: Double?)] {
            let callbacks = session.audioCallbacks.filter { $0.firstPts != nil }
            return session.presentedFrames.map { frame in
                guard let heard = callbacks.last(where: { $0.playedAt <= frame.presentedAt }),
                      let first = heard.firstPts, frame.presentedAt - heard.playedAt < 0.1 else { return (frame.pts, nil) }
                return (frame.pts, frame.pts - (first + frame.presentedAt - heard.playedAt))
            }
        }

        @Test("High, low, high (nginx behind a 16 Mb/s link that falls to 480 kb/s for 8 s): every frame is its variant's own, the sound has no gap over 20 ms, and A/V stays within a frame across each switch")
        func highLowHigh() async throws {
            let folder = try Self.ladder.get()
            // nginx serves the ladder; the fault server between it and the player is the link.
            let nginx = try NginxServer(root: folder)
            let server = try FaultServer(["--trace-clock", "--rate-schedule", "4:2000000,8:60000,0:2000000"], upstream: nginx)
            let log = HLSPlayback.VariantLog()
            var options = PlayerOptions()
            options.source.network.monitor = log.monitor
            // A short read-ahead, so that segments are fetched as they are played.
            options.source.readAhead = ReadAhead(seconds: 4)
            let session = PlayerSession(url: server.url("master.m3u8"), options: options, name: "abr-high-low-high")
            try await session.playToEnd(timeout: 150)

            let whole = server.requests.filter { $0.path.hasSuffix(".ts") && $0.outcome == "complete" }.map { String($0.path.dropFirst()) }
            let variants = whole.map { Int($0.dropFirst().prefix { $0 != "/" })! }
            let chosen = log.bandwidths.withLock { $0 }
            try #require(whole.count == 18, "\(whole)")
            // Up, down and up again, as the trace forces.
            let changes = zip(variants, variants.dropFirst()).enumerated().filter { $1.0 != $1.1 }
            let directions = changes.map { $1.1 > $1.0 }
            let firstUp = directions.firstIndex(of: true)
            let downAfter = firstUp.flatMap { directions[($0 + 1)...].firstIndex(of: false) }
            let upAgain = downAfter.flatMap { directions[($0 + 1)...].firstIndex(of: true) }
            #expect(upAgain != nil, "variants \(variants); announced \(chosen)")

            // Every frame is its segment's variant's own, none repeated or missing.
            #expect(session.presentedFrames.map(\.md5) == (try HLSPlayback.frameMD5s(ofSegments: whole, in: Self.ladder)))

            // No gap in the sound: the tone never falls silent for 20 ms (from its start to its
            // end: the output's silence after the end is not the stream's).
            let audio = try session.recordedAudio()
            var left = stride(from: 0, to: audio.samples.count, by: audio.channels).map { audio.samples[$0] }
            left.removeLast(left.count - 1 - (left.lastIndex { abs($0) >= 0.002 } ?? left.count - 1))
            var longestSilence = 0, run = 0
            for sample in left.dropFirst(audio.rate / 2) {
                run = abs(sample) < 0.002 ? run + 1 : 0
                longestSilence = max(longestSilence, run)
            }
            #expect(Double(longestSilence) / Double(audio.rate) < 0.020, "a silence of \(longestSilence) samples")
            #expect(Double(left.count) / Double(audio.rate) > 35.5, "\(left.count) samples of sound")

            // A/V within a frame over the second on each side of every switch (2 s segments,
            // from the first frame's pts).
            let offsets = Self.avOffsets(session)
            let start = session.presentedFrames.first?.pts ?? 0
            for (index, _) in changes {
                let boundary = start + Double(index + 1) * 2
                let near = offsets.filter { abs($0.pts - boundary) <= 1 }
                let measured = near.compactMap(\.offset)
                #expect(measured.count >= near.count / 2, "little sound around the switch at \(boundary) s")
                let worst = measured.map(abs).max() ?? 0
                #expect(worst < 0.040, "A-V up to \(worst) s around the switch at \(boundary) s")
            }
        }
    }
}

extension Playback {
    /// A ladder whose variants' sound are audio renditions of two AUDIO groups: the sound follows
    /// the variant to its group's rendition of the language playing.
    @Suite(.timeLimit(.minutes(2))) struct AudioGroupSwitching {
        /// Video-only variants v0 (320x180, AUDIO "lo") and v1 (640x360, AUDIO "hi"), 6 s; audio
        /// renditions a-GROUP-LANGUAGE, English a 440 Hz tone and French 660 Hz, at 64 kb/s in
        /// "lo" and 128 kb/s in "hi", where French is the default. master.m3u8 lists them;
        /// master-shared.m3u8 has both groups' English be one rendition (one URI).
        static let ladder: Result<String, FixtureError> = {
            let folder = Fixtures.directory.appendingPathComponent("hls-audio-groups").path
            var jobs: [(String, [String])] = [
                ("v0", ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=6", "-c:v", "libx264", "-b:v", "300k", "-g", "50"]),
                ("v1", ["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=6", "-c:v", "libx264", "-b:v", "800k", "-g", "50"]),
            ]
            for (group, rate) in [("lo", "64k"), ("hi", "128k")] {
                for (language, frequency) in [("en", 440), ("fr", 660)] {
                    jobs.append(("a-\(group)-\(language)", ["-f", "lavfi", "-i", "sine=f=\(frequency):d=6", "-c:a", "aac", "-b:a", rate]))
                }
            }
            for (name, input) in jobs {
                try? FileManager.default.createDirectory(atPath: "\(folder)/\(name)", withIntermediateDirectories: true)
                guard let made = try? Command.run(["ffmpeg", "-nostdin", "-v", "error", "-y"] + input
                                                  + ["-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", "\(folder)/\(name)/index.m3u8"], timeout: 300),
                      made.status == 0 else { return .failure(FixtureError(description: "ffmpeg could not make \(name)")) }
            }
            func master(hiEnglish: String) -> String {
                """
                #EXTM3U
                #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="lo",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="a-lo-en/index.m3u8"
                #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="lo",NAME="French",LANGUAGE="fr",AUTOSELECT=YES,URI="a-lo-fr/index.m3u8"
                #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="hi",NAME="French",LANGUAGE="fr",DEFAULT=YES,AUTOSELECT=YES,URI="a-hi-fr/index.m3u8"
                #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="hi",NAME="English",LANGUAGE="en",AUTOSELECT=YES,URI="\(hiEnglish)"
                #EXT-X-STREAM-INF:BANDWIDTH=400000,RESOLUTION=320x180,AUDIO="lo"
                v0/index.m3u8
                #EXT-X-STREAM-INF:BANDWIDTH=1000000,RESOLUTION=640x360,AUDIO="hi"
                v1/index.m3u8

                """
            }
            do {
                try master(hiEnglish: "a-hi-en/index.m3u8").write(toFile: "\(folder)/master.m3u8", atomically: true, encoding: .utf8)
                try master(hiEnglish: "a-lo-en/index.m3u8").write(toFile: "\(folder)/master-shared.m3u8", atomically: true, encoding: .utf8)
            } catch {
                return .failure(FixtureError(description: "\(error)"))
            }
            return .success(folder)
        }()

        /// The recorded samples of the callbacks that played sound (untimed, the output may be
        /// called before the first packet and after the last: silence, with no pts).
        static func soundPlayed(_ session: PlayerSession) throws -> (samples: [Float], channels: Int) {
            let recorded = try session.recordedAudio()
            var samples: [Float] = []
            var offset = 0
            for callback in session.audioCallbacks {
                let count = callback.samples * recorded.channels
                if callback.firstPts != nil { samples += recorded.samples[offset..<min(offset + count, recorded.samples.count)] }
                offset += count
            }
            return (samples, recorded.channels)
        }

        /// Plays `master` from nginx untimed under auto (v0 first, then v1: the server is local
        /// and fast); returns the session and the paths of the audio segments fetched, in order
        /// (the fault server in front of nginx, adding no fault, logs them).
        static func play(_ master: String, name: String) async throws -> (PlayerSession, [String], FaultServer) {
            let server = try FaultServer(upstream: try NginxServer(root: try ladder.get()))
            var options = PlayerOptions()
            options.isUntimed = true
            let session = PlayerSession(url: server.url(master), options: options, name: name)
            try await session.playToEnd(timeout: 60)
            return (session, server.requests.map(\.path).filter { $0.hasPrefix("/a-") && $0.hasSuffix(".ts") }, server)
        }

        @Test("Moving to a variant of another AUDIO group: the sound follows to that group's English rendition (not its French default), each audio segment fetched once, and the samples are the first rendition's, then the second's, with no gap")
        func soundFollowsTheLanguage() async throws {
            let folder = try Self.ladder.get()
            let (session, audioSegments, server) = try await Self.play("master.m3u8", name: "hls-audio-groups")
            let video = server.requests.map(\.path).filter { $0.hasPrefix("/v") && $0.hasSuffix(".ts") }
            try #require(video == ["/v0/index0.ts", "/v1/index1.ts", "/v1/index2.ts"], "\(video)")
            #expect(session.presentedFrames.map(\.md5) == (try HLSPlayback.frameMD5s(ofSegments: video.map { String($0.dropFirst()) },
                                                                                      in: .success(folder))))
            // English throughout, from "lo" then "hi"; every segment once, none fetched again.
            let renditions = audioSegments.map { $0.split(separator: "/")[0] }
            let numbers = audioSegments.map { Int($0.split(separator: "/")[1].dropFirst(5).prefix { $0.isNumber })! }
            #expect(renditions.first == "a-lo-en" && renditions.last == "a-hi-en"
                    && renditions.allSatisfy { $0 == "a-lo-en" || $0 == "a-hi-en" }
                    && renditions == renditions.sorted { $0 == "a-lo-en" && $1 == "a-hi-en" }, "\(audioSegments)")
            let segmentCount = try String(contentsOfFile: "\(folder)/a-lo-en/index.m3u8", encoding: .utf8).split(separator: "\n").filter { $0.hasSuffix(".ts") }.count
            #expect(numbers == Array(0..<segmentCount), "\(audioSegments)")

            // The samples: lo's decode up to the switch, hi's from a frame after it (the first
            // frame after it overlaps the last before), and as many as either has.
            let recorded = try Self.soundPlayed(session)
            let low = try Fixtures.decodedSamples("\(folder)/a-lo-en/index.m3u8", channels: recorded.channels)
            let high = try Fixtures.decodedSamples("\(folder)/a-hi-en/index.m3u8", channels: recorded.channels)
            #expect(recorded.samples.count == low.count && low.count == high.count, "\(recorded.samples.count) samples, \(low.count) and \(high.count) decoded")
            let switchAt = (0..<min(recorded.samples.count, low.count)).first { abs(recorded.samples[$0] - low[$0]) >= 1e-6 }
                ?? recorded.samples.count
            let rejoined = (switchAt..<min(recorded.samples.count, high.count)).first { index in
                recorded.samples[index...].elementsEqual(high[index...]) { abs($0 - $1) < 1e-6 }
            }
            #expect(switchAt > 0 && switchAt < recorded.samples.count, "the sound never left the first rendition")
            #expect(rejoined.map { $0 - switchAt <= 2048 * recorded.channels } == true,
                    "from sample \(switchAt) on, the second rendition's samples from \(rejoined.map(String.init) ?? "nowhere")")
        }

        @Test("Where both groups list one English rendition (one URI), it plays on unchanged: each of its segments fetched once, its samples exactly")
        func sharedRenditionIsNotRestarted() async throws {
            let folder = try Self.ladder.get()
            let (session, audioSegments, server) = try await Self.play("master-shared.m3u8", name: "hls-audio-shared")
            #expect(server.requests.map(\.path).contains("/v1/index2.ts"), "no move to v1")
            let segmentCount = try String(contentsOfFile: "\(folder)/a-lo-en/index.m3u8", encoding: .utf8).split(separator: "\n").filter { $0.hasSuffix(".ts") }.count
            #expect(audioSegments == (0..<segmentCount).map { "/a-lo-en/index\($0).ts" })
            let recorded = try Self.soundPlayed(session)
            let low = try Fixtures.decodedSamples("\(folder)/a-lo-en/index.m3u8", channels: recorded.channels)
            #expect(recorded.samples.count == low.count && zip(recorded.samples, low).allSatisfy { abs($0 - $1) < 1e-6 })
        }
    }
}

extension Playback.VariantSwitching {
    @Test("Over the IPC, a switch up shows in hls-bitrate, video-params and the selected video track of track-list alike", .timeLimit(.minutes(1)))
    func switchShowsOverTheIPC() throws {
        let server = try FaultServer(root: try Self.ladder.get())
        let socket = Fixtures.newFolder("ipc-variant") + "/hplayer.sock"
        let process = try BackgroundProcess([Command.hplayer, server.url("master.m3u8"), "--vo", "null", "--ao", "null", "--no-status",
                                             "--cache=no", "--input-ipc-server", socket])
        let client = try IPCClient(path: socket)
        func property(_ name: String) -> JSONValue? {
            client.request([.string("get_property"), .string(name)]).flatMap { $0["error"] == .string("success") ? $0["data"] : nil }
        }
        // The first segment is the lowest variant's (no estimate saved); a local server carries the highest.
        let deadline = MonotonicClock.now() + 30
        var seen: [JSONValue] = []
        while MonotonicClock.now() < deadline, property("video-params")?["w"] != .number(960) {
            if let bitrate = property("hls-bitrate"), seen.last != bitrate { seen.append(bitrate) }
            MonotonicClock.sleep(until: MonotonicClock.now() + 0.05)
        }
        // The start at the lowest is read from the server's log: a poll may come after the
        // switch, as the first segment of a local server arrives in a few milliseconds.
        #expect(server.requests.first { $0.path.hasSuffix(".ts") }?.path == "/v0/index0.ts", "requests: \(server.requests.map(\.path))")
        #expect(seen.allSatisfy { [.number(400_000), .number(1_000_000), .number(1_800_000)].contains($0) }, "hls-bitrate read \(seen)")
        #expect(property("video-params") == .object(["w": .number(960), "h": .number(540)]))
        #expect(property("hls-bitrate") == .number(1_800_000))
        guard case let .array(tracks)? = property("track-list") else {
            Issue.record("no track-list")
            return
        }
        let video = tracks.filter { $0["type"] == .string("video") }
        #expect(video.count == 1 && video.first?["selected"] == .bool(true) && video.first?["hls-bitrate"] == .number(1_800_000)
                && video.first?["demux-w"] == .number(960) && video.first?["demux-h"] == .number(540), "\(video)")
        #expect(tracks.filter { $0["type"] == .string("audio") }.count == 1)
        #expect(client.request([.string("quit")])?["error"] == .string("success"))
        #expect(process.wait(timeout: 10) == 0)
    }
}

extension Playback.AudioGroupSwitching {
    /// v0 (320x180, a key frame every 2 s, segments of 2 s) and v1 (640x360, key frames every
    /// 3 s, cut every 2 s all the same: its second and third segments start between key frames),
    /// MPEG-TS or fMP4.
    static func unalignedLadder(fragmented: Bool) -> Result<String, FixtureError> {
        let folder = Fixtures.directory.appendingPathComponent(fragmented ? "hls-unaligned-fmp4" : "hls-unaligned").path
        let format = fragmented ? ["-hls_segment_type", "fmp4"] : []
        for (name, size, rate, keyInterval, flags) in [("v0", "320x180", "300k", 50, [String]()),
                                                      ("v1", "640x360", "800k", 75, ["-hls_flags", "split_by_time"])] {
            try? FileManager.default.createDirectory(atPath: "\(folder)/\(name)", withIntermediateDirectories: true)
            guard let made = try? Command.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=25:duration=6",
                                               "-c:v", "libx264", "-b:v", rate, "-g", "\(keyInterval)", "-sc_threshold", "0",
                                               "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod"] + format + flags + ["\(folder)/\(name)/index.m3u8"],
                                              timeout: 300),
                  made.status == 0 else { return .failure(FixtureError(description: "ffmpeg could not make \(name)")) }
        }
        let master = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=400000,RESOLUTION=320x180\nv0/index.m3u8\n"
            + "#EXT-X-STREAM-INF:BANDWIDTH=1000000,RESOLUTION=640x360\nv1/index.m3u8\n"
        do {
            try master.write(toFile: "\(folder)/master.m3u8", atomically: true, encoding: .utf8)
        } catch {
            return .failure(FixtureError(description: "\(error)"))
        }
        return .success(folder)
    }

    static let unalignedTS = unalignedLadder(fragmented: false)
    static let unalignedFMP4 = unalignedLadder(fragmented: true)

    /// Plays the ladder in `folder` untimed under auto (v0 first, then v1: the server is local
    /// and fast); returns the session and the paths of the segments ending in `suffix` fetched.
    static func playUnaligned(_ folder: String, name: String, segmentSuffix suffix: String) async throws -> (PlayerSession, [String]) {
        let server = try FaultServer(root: folder)
        var options = PlayerOptions()
        options.isUntimed = true
        let session = PlayerSession(url: server.url("master.m3u8"), options: options, name: name)
        try await session.playToEnd(timeout: 60)
        return (session, server.requests.map(\.path).filter { $0.hasSuffix(suffix) })
    }

    @Test("A switch to a segment that does not start with a key frame decodes it from the key frame in the segment before it: every picture shown once, each its variant's own")
    func segmentWithoutKeyFrameIsDecodedFromTheKeyFrameBefore() async throws {
        let folder = try Self.unalignedTS.get()
        let (session, segments) = try await Self.playUnaligned(folder, name: "hls-unaligned", segmentSuffix: ".ts")
        // v1's second segment, then its first for the key frame at 0 s, then on with v1.
        #expect(segments == ["/v0/index0.ts", "/v1/index1.ts", "/v1/index0.ts", "/v1/index2.ts"])
        let low = try Fixtures.frameMD5s("\(folder)/v0/index.m3u8"), high = try Fixtures.frameMD5s("\(folder)/v1/index.m3u8")
        try #require(low.count == 150 && high.count == 150)
        #expect(session.presentedFrames.map(\.md5) == Array(low[..<50] + high[50...]))
    }

    @Test("An fMP4 segment that does not start with a sync sample is not switched to: it comes from the variant before, every frame is its own, and the policy keeps off it")
    func fragmentWithoutSyncSampleIsNotSwitchedTo() async throws {
        let folder = try Self.unalignedFMP4.get()
        let (session, segments) = try await Self.playUnaligned(folder, name: "hls-unaligned-fmp4", segmentSuffix: ".m4s")
        #expect(segments == ["/v0/index0.m4s", "/v1/index1.m4s", "/v0/index1.m4s", "/v0/index2.m4s"])
        #expect(session.presentedFrames.map(\.md5) == (try Fixtures.frameMD5s("\(folder)/v0/index.m3u8")))
    }
}
