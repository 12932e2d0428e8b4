import Foundation
@testable import HPlayerKit
import HPlayerTestSupport
import Testing

extension Playback {
    /// http(s) inputs through the I/O layer (libcurl), against nginx and the project's
    /// fault-injecting server, both started by the tests on free ports.
    @Suite(.timeLimit(.minutes(2))) struct NetworkPlayback {
        /// 6 s of picture and sound; an MP4's index at its end, so reading it needs a range request.
        static func clip(_ container: String) throws -> String {
            let codecs = container == "webm" ? ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-c:a", "libopus"]
                : ["-c:v", "libx264", "-g", "50", "-c:a", "aac"]
            return try Fixtures.clip("network-6s.\(container)", [
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=6", "-f", "lavfi", "-i", "sine=d=6"] + codecs)
        }

        static func untimed(_ configure: (inout NetworkOptions) -> Void = { _ in }) -> PlayerOptions {
            var options = PlayerOptions()
            options.isUntimed = true
            configure(&options.source.network)
            return options
        }

        func bytes(_ path: String) throws -> Int { try Data(contentsOf: URL(fileURLWithPath: path)).count }

        @Test("MP4 (its index at the end), MKV and WebM over nginx: the frames presented are ffmpeg's", arguments: ["mp4", "mkv", "webm"])
        func progressiveOverNginx(container: String) async throws {
            let clip = try Self.clip(container)
            let server = try NginxServer()
            let session = PlayerSession(url: server.url((clip as NSString).lastPathComponent), options: Self.untimed(), name: "nginx-\(container)")
            try await session.playToEnd()
            #expect(session.presentedFrames.map(\.md5) == (try Fixtures.frameMD5s(clip)))
            #expect(session.events.contains { if case .finished(nil) = $0 { return true } else { return false } })
        }

        @Test("A connection dropped mid-body is reopened with a Range from the byte where it stopped: every frame presented")
        func dropMidBody() async throws {
            let clip = try Self.clip("mkv")
            let dropAt = try bytes(clip) / 3
            let server = try FaultServer(["--drop-after", "\(dropAt)"])
            let session = PlayerSession(url: server.url("network-6s.mkv"), options: Self.untimed(), name: "drop")
            try await session.playToEnd()
            #expect(session.presentedFrames.map(\.md5) == (try Fixtures.frameMD5s(clip)))
            let requests = server.requests
            #expect(requests.first?.outcome == "dropped" && requests.first?.bytes == dropAt)
            #expect(requests.dropFirst().first?.range == "bytes=\(dropAt)-", "requests: \(requests.map { ($0.range, $0.outcome) })")
        }

        @Test("A transfer that stalls past --network-timeout is reopened where it stopped: every frame presented")
        func stallPastTimeout() async throws {
            let clip = try Self.clip("mkv")
            let stallAt = try bytes(clip) / 2
            let server = try FaultServer(["--stall-after", "\(stallAt)", "--stall-seconds", "6"])
            let options = Self.untimed { $0.timeout = 1 }
            let session = PlayerSession(url: server.url("network-6s.mkv"), options: options, name: "stall")
            try await session.playToEnd()
            #expect(session.presentedFrames.map(\.md5) == (try Fixtures.frameMD5s(clip)))
            #expect(server.requests.contains { $0.range == "bytes=\(stallAt)-" }, "requests: \(server.requests.map(\.range))")
        }

        @Test("A 503 at the opening is asked again after a wait, and the file then plays whole")
        func serviceUnavailableIsRetried() async throws {
            let clip = try Self.clip("mkv")
            let server = try FaultServer(["--status", "503", "--status-times", "2"])
            let session = PlayerSession(url: server.url("network-6s.mkv"), options: Self.untimed(), name: "503")
            try await session.playToEnd()
            #expect(session.presentedFrames.map(\.md5) == (try Fixtures.frameMD5s(clip)))
            #expect(server.requests.prefix(3).map(\.status) == [503, 503, 200])
        }

        @Test("--user-agent, --referrer and --http-header-fields are sent with the request")
        func requestHeaders() throws {
            _ = try Self.clip("mkv")
            let server = try FaultServer()
            let result = try Command.run([Command.hplayer, "play", server.url("network-6s.mkv"), "--vo", "null", "--ao", "null", "--untimed",
                                          "--no-status", "--user-agent", "TestAgent/1", "--referrer", "http://example.test/page",
                                          "--http-header-fields", "X-One: 1,X-Two: two"], timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            let headers = try #require(server.requests.first).headers
            #expect(headers["user-agent"] == "TestAgent/1")
            #expect(headers["referer"] == "http://example.test/page")
            #expect(headers["x-one"] == "1" && headers["x-two"] == "two")
        }

        @Test("hplayer probe, snapshot and bench take the network options too: every request they make carries --user-agent")
        func otherCommandsTakeNetworkOptions() throws {
            _ = try Self.clip("mkv")
            let server = try FaultServer()
            let url = server.url("network-6s.mkv")
            let png = Fixtures.newFolder("network-snapshot") + "/frame.png"
            for command in [["probe", url], ["snapshot", url, "--at", "2", "-o", png], ["bench", url]] {
                let result = try Command.run([Command.hplayer] + command + ["--user-agent", "TestAgent/2"], timeout: 60)
                #expect(result.status == 0, "\(command[0]): \(result.stderr)")
            }
            let agents = Set(server.requests.map { $0.headers["user-agent"] ?? "" })
            #expect(!server.requests.isEmpty && agents == ["TestAgent/2"], "user agents: \(agents)")
        }

        @Test("404, a refused connection and an unknown host: one error line naming the URL and the reason, exit 1")
        func errorsAreOneLine() throws {
            let server = try NginxServer()
            let refused = "http://127.0.0.1:\(try Network.freePort())/clip.mp4"
            let cases = [
                (server.url("missing.mp4"), "HTTP 404 Not Found"),
                (refused, "Couldn't connect to server"),
                ("http://no-such-host.invalid/clip.mp4", "Could not resolve host"),
            ]
            for (url, reason) in cases {
                let result = try Command.run([Command.hplayer, "play", url, "--vo", "null", "--ao", "null", "--no-status"], timeout: 60)
                let lines = result.stderr.split(separator: "\n")
                #expect(result.status == 1)
                #expect(lines.count == 1 && lines[0].hasPrefix("hplayer: error: \(url): ") && lines[0].contains(reason), "\(result.stderr)")
            }
        }

        @Test("A self-signed HTTPS server fails with a TLS error, and plays with its CA given or with --tls-verify=no")
        func selfSignedTLS() throws {
            _ = try Self.clip("mkv")
            let server = try NginxServer()
            let url = server.tlsURL("network-6s.mkv")
            let play = [Command.hplayer, "play", url, "--vo", "null", "--ao", "null", "--untimed", "--no-status"]
            let refused = try Command.run(play, timeout: 60)
            #expect(refused.status == 1)
            #expect(refused.stderr.hasPrefix("hplayer: error: \(url): TLS: ") && refused.stderr.contains("certificate"), "\(refused.stderr)")
            let trusted = try Command.run(play + ["--tls-ca-file", server.certificate], timeout: 60)
            #expect(trusted.status == 0, "\(trusted.stderr)")
            let unverified = try Command.run(play + ["--tls-verify=no"], timeout: 60)
            #expect(unverified.status == 0, "\(unverified.stderr)")
        }

        /// The rows of a `--stats-dir` file, its header left out.
        static func statsRows(_ path: String) throws -> [[String]] {
            try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst()
                .map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        }

        /// Prepares `url` paused and waits until reading has stopped (the queued bytes stay put
        /// for 1.5 s, or everything is read); the status then. A wall-clock judgement: the tests
        /// that use it are real-time ones.
        static func readAheadStatus(url: String, options: PlayerOptions, name: String) async throws -> PlayerStatus {
            let session = PlayerSession(url: url, options: options, name: name)
            defer { session.close() }
            session.player.prepare()
            try await session.waitForPrepared()
            let deadline = MonotonicClock.now() + 30
            var last = (bytes: -1, since: MonotonicClock.now())
            while MonotonicClock.now() < deadline {
                let status = session.player.status
                if status.isInputFinished { return status }
                if status.bufferedBytes != last.bytes {
                    last = (status.bufferedBytes, MonotonicClock.now())
                } else if MonotonicClock.now() - last.since > 1.5 {
                    return status
                }
                try await Task.sleep(nanoseconds: 50_000_000)
            }
            throw FixtureError(description: "\(name): reading never settled")
        }

        @Test("Paused, network media is read ahead as far as --cache-secs and --demuxer-max-bytes allow; a local file 2 s",
              .realTime)
        func readAheadLimits() async throws {
            let clip = try Fixtures.clip("network-24s.mkv", [
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=24", "-f", "lavfi", "-i", "sine=d=24",
                "-c:v", "libx264", "-g", "50", "-c:a", "aac"])
            let server = try NginxServer()
            let url = server.url("network-24s.mkv")
            let whole = try await Self.readAheadStatus(url: url, options: PlayerOptions(), name: "read-ahead-default")
            #expect(whole.isInputFinished && whole.bufferedDuration > 23, "default: \(whole.bufferedDuration) s buffered")

            var options = PlayerOptions()
            options.source.readAhead.seconds = 10
            let byTime = try await Self.readAheadStatus(url: url, options: options, name: "read-ahead-10s")
            #expect(!byTime.isInputFinished && byTime.bufferedDuration >= 9 && byTime.bufferedDuration < 12,
                    "--cache-secs 10: \(byTime.bufferedDuration) s buffered")

            let limit = try bytes(clip) / 4
            options = PlayerOptions()
            options.source.readAhead.bytes = limit
            let byBytes = try await Self.readAheadStatus(url: url, options: options, name: "read-ahead-bytes")
            // Reading stops at the first packet past the limit.
            #expect(!byBytes.isInputFinished && byBytes.bufferedBytes <= limit + 64 << 10 && byBytes.bufferedBytes >= limit * 9 / 10,
                    "--demuxer-max-bytes \(limit): \(byBytes.bufferedBytes) bytes buffered")

            let local = try await Self.readAheadStatus(url: clip, options: PlayerOptions(), name: "read-ahead-local")
            #expect(!local.isInputFinished && local.bufferedDuration > 1.9 && local.bufferedDuration < 2.2, "local file: \(local.bufferedDuration) s buffered")
        }

        @Test("A server slowing below the media's rate: playback waits (buffering-start and -end in events.tsv), every frame is still presented, and network.tsv has the request the server answered",
              .realTime)
        func slowServerMakesPlaybackWait() throws {
            let clip = try Self.clip("mkv")
            // 1.2x the clip's rate for 2 s, a tenth of it for 3 s: playback runs dry.
            let rate = try bytes(clip) / 6
            let server = try FaultServer(["--rate-schedule", "2:\(rate * 6 / 5),3:\(rate / 10),0:\(rate * 20)"])
            let folder = Fixtures.newFolder("slow-server")
            let result = try Command.run([Command.hplayer, "play", server.url("network-6s.mkv"), "--vo", "record:\(folder)",
                                          "--ao", "null", "--no-status", "--stats-dir", folder + "/stats"], timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            let frames = try String(contentsOfFile: folder + "/video.tsv", encoding: .utf8).split(separator: "\n")
                .compactMap { $0.split(separator: "\t").last.map(String.init) }
            #expect(frames == (try Fixtures.frameMD5s(clip)))
            let events = try Self.statsRows(folder + "/stats/events.tsv").map { $0[1] }
            #expect(events.first == "first-frame" && events.last == "end", "events: \(events)")
            let stalls = events.filter { $0.hasPrefix("buffering-") }
            #expect(!stalls.isEmpty && stalls == Array(repeating: ["buffering-start", "buffering-end"], count: stalls.count / 2).flatMap { $0 },
                    "events: \(events)")
            let requests = try Self.statsRows(folder + "/stats/network.tsv")
            let answered = server.requests
            #expect(requests.count == answered.count && requests.count == 1, "network.tsv: \(requests); server: \(answered)")
            if let request = requests.first, let logged = answered.first {
                #expect(request[1] == server.url("network-6s.mkv") && request[3] == "\(logged.status)" && request[4] == "\(logged.bytes)"
                        && request[6] == "completed", "network.tsv: \(request); server: \(logged)")
            }
        }

        @Test("--stats-dir: a 503 then a 200 are two lines of network.tsv, as the server logged them, and the retry a line of events.tsv")
        func statsDirectoryLogsRetries() throws {
            _ = try Self.clip("mkv")
            let server = try FaultServer(["--status", "503", "--status-times", "1"])
            let folder = Fixtures.newFolder("stats-retry")
            let url = server.url("network-6s.mkv")
            let result = try Command.run([Command.hplayer, "play", url, "--vo", "null", "--ao", "null", "--untimed", "--no-status",
                                          "--stats-dir", folder], timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            let requests = try Self.statsRows(folder + "/network.tsv")
            #expect(requests.map { [$0[1], $0[3]] } == server.requests.map { [url, "\($0.status)"] }, "network.tsv: \(requests)")
            #expect(requests.first?[6].hasPrefix("failed: HTTP 503") == true && requests.last?[6] == "completed", "network.tsv: \(requests)")
            #expect(requests.last?[4] == server.requests.last.map { "\($0.bytes)" })
            let retries = try Self.statsRows(folder + "/events.tsv").filter { $0[1] == "retry" }
            #expect(retries.count == 1 && retries.first?[2].hasPrefix("\(url): HTTP 503") == true, "events: \(retries)")
        }

        @Test("Closing while the server stalls returns at once", .realTime)
        func closeDuringStall() async throws {
            _ = try Self.clip("mkv")
            let server = try FaultServer(["--stall-after", "20000", "--stall-seconds", "30"])
            let session = PlayerSession(url: server.url("network-6s.mkv"), options: Self.untimed { $0.timeout = 60 }, name: "close-stall")
            session.player.prepare()
            // The server has sent its first bytes and stalls: no frame can come.
            try await Task.sleep(nanoseconds: 500_000_000)
            let asked = MonotonicClock.now()
            session.close()
            let waited = MonotonicClock.now() - asked
            #expect(waited < 0.5, "close waited \(waited) s on the stalled transfer")
        }
    }

    /// Our HLS client, against the fault server (its log shows every request) and nginx.
    @Suite(.timeLimit(.minutes(2))) struct HLSPlayback {
        /// A 3-variant ladder of `seconds` (a 440 Hz tone and testsrc2), segments of 2 s: v0
        /// 320x180 (400 kb/s declared), v1 640x360 (1 Mb/s), v2 960x540 (1.8 Mb/s); the master
        /// playlist is FOLDER/master.m3u8. MPEG-TS segments (vN/indexK.ts), or fMP4 ones
        /// (vN/init.mp4, vN/indexK.m4s).
        static func makeLadder(_ name: String, fragmented: Bool, seconds: Int = 6) -> Result<String, FixtureError> {
            let folder = Fixtures.directory.appendingPathComponent(name).path
            let variants = [("320x180", "300k", 400_000), ("640x360", "800k", 1_000_000), ("960x540", "1500k", 1_800_000)]
            var master = "#EXTM3U\n"
            for (index, (size, rate, bandwidth)) in variants.enumerated() {
                try? FileManager.default.createDirectory(atPath: "\(folder)/v\(index)", withIntermediateDirectories: true)
                guard let made = try? Command.run([
                    "ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=25:duration=\(seconds)",
                    "-f", "lavfi", "-i", "sine=d=\(seconds)", "-c:v", "libx264", "-b:v", rate, "-g", "50", "-c:a", "aac",
                    "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod"]
                    + (fragmented ? ["-hls_segment_type", "fmp4"] : []) + ["\(folder)/v\(index)/index.m3u8"], timeout: 300),
                    made.status == 0 else { return .failure(FixtureError(description: "ffmpeg could not make the HLS ladder")) }
                master += "#EXT-X-STREAM-INF:BANDWIDTH=\(bandwidth),RESOLUTION=\(size)\nv\(index)/index.m3u8\n"
            }
            do {
                try master.write(toFile: "\(folder)/master.m3u8", atomically: true, encoding: .utf8)
            } catch {
                return .failure(FixtureError(description: "\(error)"))
            }
            return .success(folder)
        }

        static let ladder = makeLadder("hls-ladder", fragmented: false)
        static let fragmentedLadder = makeLadder("hls-fmp4-ladder", fragmented: true)

        static func untimed() -> PlayerOptions {
            var options = PlayerOptions()
            options.isUntimed = true
            return options
        }

        @Test("--hls-bitrate picks the variant; its frames are ffmpeg's reading of that variant, and nothing is fetched from the others",
              arguments: [(HLSBitrate.max, 2), (.min, 0), (.atMost(1_200_000), 1), (.atMost(100), 0)])
        func variantChoice(bitrate: HLSBitrate, variant: Int) async throws {
            let folder = try Self.ladder.get()
            let server = try FaultServer(root: folder)
            var options = Self.untimed()
            options.source.network.hlsBitrate = bitrate
            let session = PlayerSession(url: server.url("master.m3u8"), options: options, name: "hls-variant")
            try await session.playToEnd()
            #expect(session.presentedFrames.map(\.md5) == (try Fixtures.frameMD5s("\(folder)/v\(variant)/index.m3u8")))
            let paths = server.requests.map(\.path)
            #expect(paths.first == "/master.m3u8")
            #expect(paths.dropFirst().allSatisfy { $0.hasPrefix("/v\(variant)/") }, "requests: \(paths)")
            #expect(paths.filter { $0.hasSuffix(".ts") }.count == 3)
        }

        @Test("hplayer probe and the track list on opening list the variants, the one played marked")
        func variantsAreListed() throws {
            let folder = try Self.ladder.get()
            let server = try NginxServer(root: folder)
            let url = server.url("master.m3u8")
            let probe = try Command.run([Command.hplayer, "probe", url, "--hls-bitrate", "max"], timeout: 60)
            #expect(probe.status == 0, "\(probe.stderr)")
            #expect(probe.stdout.split(separator: "\n").filter { $0.hasPrefix("  variant") } == [
                "  variant 1: 320x180 0.4 Mb/s", "  variant 2: 640x360 1.0 Mb/s", "  variant 3: 960x540 1.8 Mb/s [playing]"])
            let play = try Command.run([Command.hplayer, "play", url, "--hls-bitrate", "min", "--vo", "null", "--ao", "null",
                                        "--untimed", "--no-status"], timeout: 60)
            #expect(play.status == 0, "\(play.stderr)")
            #expect(play.stdout.split(separator: "\n").filter { $0.contains("Variant") } == [
                " (+) Variant --hls-bitrate=400000 (320x180 0.4 Mb/s)",
                "     Variant --hls-bitrate=1000000 (640x360 1.0 Mb/s)",
                "     Variant --hls-bitrate=1800000 (960x540 1.8 Mb/s)"])
        }

        /// The variants the I/O layer's monitor is told of, as they are chosen.
        final class VariantLog: @unchecked Sendable {
            let bandwidths = Locked<[Int]>([])
            lazy var monitor = NetworkMonitor { [bandwidths] event in
                if case let .variant(bandwidth, _, _) = event { bandwidths.withLock { $0.append(bandwidth) } }
            }
        }

        /// ffmpeg's frames of each segment as named ("v0/index0.ts", …), one after another: a
        /// stream that changes variant is checked part by part, as ffmpeg's CLI would scale every
        /// picture to the first size.
        static func frameMD5s(ofSegments segments: [String], in ladder: Result<String, FixtureError> = ladder) throws -> [String] {
            let folder = try ladder.get()
            return try segments.flatMap { try Fixtures.frameMD5s("\(folder)/\($0)") }
        }

        @Test("By default the first segment comes from the lowest variant and the rest from the one its download's throughput picks: the frames are ffmpeg's of each segment fetched, and the status reports that variant and its picture's size")
        func autoVariant() async throws {
            let folder = try Self.ladder.get()
            let server = try FaultServer(root: folder)
            let log = VariantLog()
            var options = Self.untimed()
            options.source.network.monitor = log.monitor
            let session = PlayerSession(url: server.url("master.m3u8"), options: options, name: "hls-auto")
            session.player.prepare()
            session.player.play()
            try await session.waitForFinished()
            let status = session.player.status
            session.close()
            let chosen = log.bandwidths.withLock { $0 }
            let bandwidths = [400_000, 1_000_000, 1_800_000]
            try #require(chosen.first == 400_000 && chosen.count <= 2, "variants: \(chosen)")
            let rest = bandwidths.firstIndex(of: chosen.last!)!
            #expect(session.presentedFrames.map(\.md5) == (try Self.frameMD5s(ofSegments: ["v0/index0.ts", "v\(rest)/index1.ts", "v\(rest)/index2.ts"])))
            let sizes = [PictureSize(width: 320, height: 180), PictureSize(width: 640, height: 360), PictureSize(width: 960, height: 540)]
            #expect(status.variant?.bandwidth == bandwidths[rest] && status.videoSize == sizes[rest], "\(String(describing: status.variant))")
            let segments = server.requests.map(\.path).filter { $0.hasSuffix(".ts") }
            #expect(segments == ["/v0/index0.ts", "/v\(rest)/index1.ts", "/v\(rest)/index2.ts"], "segments: \(segments)")
        }

        /// The 36 s ladder: the policy has time to see the link, whatever the buffer held when
        /// the first segment ended (a decision then, the buffer nearly empty, may well stay low).
        @Test("auto, played in real time over a 2 Mb/s link: the first segment from the lowest variant, then a higher one (1 or 1.8 Mb/s) within 16 s, every frame presented in order", .realTime)
        func autoVariantFollowsThroughput() async throws {
            let folder = try Playback.VariantSwitching.ladder.get()
            let server = try FaultServer(["--rate-schedule", "0:250000"], root: folder)
            let log = VariantLog()
            var options = PlayerOptions()
            options.source.network.monitor = log.monitor
            let session = PlayerSession(url: server.url("master.m3u8"), options: options, name: "hls-auto-2m")
            session.player.prepare()
            session.player.play()
            #expect(await until(timeout: 40) { session.presentedFrames.count >= 400 })
            session.close()
            let chosen = log.bandwidths.withLock { $0 }
            #expect(chosen.first == 400_000 && chosen.contains { [1_000_000, 1_800_000].contains($0) }, "variants: \(chosen)")
            let pts = session.presentedFrames.map(\.pts)
            #expect(zip(pts, pts.dropFirst()).allSatisfy { abs($1 - $0 - 0.04) < 0.001 }, "a frame repeated or missing")
        }

        @Test("auto in real time: a segment of a higher variant too slow to arrive before the buffer runs dry is given up for the lowest's, none of it shown: every frame is ffmpeg's of the segments fetched whole", .realTime)
        func slowSegmentIsGivenUp() async throws {
            let folder = try Self.ladder.get()
            // The second segment of the two higher variants comes at 20 kB/s (its 250 or 450 kB
            // would take 12 or 22 s, with about 2 s buffered); everything else at full speed.
            let server = try FaultServer(["--slow-path", "^/v[12]/index1\\.ts$", "--slow-rate", "20000"], root: folder)
            let log = VariantLog()
            var options = PlayerOptions()
            options.source.network.monitor = log.monitor
            let session = PlayerSession(url: server.url("master.m3u8"), options: options, name: "hls-give-up")
            try await session.playToEnd(timeout: 60)
            let chosen = log.bandwidths.withLock { $0 }
            let segments = server.requests.filter { $0.path.hasSuffix(".ts") }
            try #require(chosen.count >= 3 && chosen.first == 400_000 && chosen[1] > 400_000,
                         "up after the first segment, then down: \(chosen); \(segments.map { "\($0.path) \($0.outcome)" })")
            #expect(chosen[2] == 400_000)
            let givenUp = segments.filter { $0.outcome != "complete" }.map(\.path)
            #expect(givenUp.count == 1 && ["/v1/index1.ts", "/v2/index1.ts"].contains(givenUp.first), "\(givenUp)")
            let whole = segments.filter { $0.outcome == "complete" }.map { String($0.path.dropFirst()) }
            #expect(whole.prefix(2) == ["v0/index0.ts", "v0/index1.ts"] && whole.count == 3 && whole[2].hasSuffix("/index2.ts"), "\(whole)")
            #expect(session.presentedFrames.map(\.md5) == (try Self.frameMD5s(ofSegments: whole)))
        }

        @Test("A segment that cannot be fetched after the retries comes from another variant: the frames are ffmpeg's of each segment fetched")
        func failedSegmentFromAnotherVariant() async throws {
            let folder = try Self.ladder.get()
            // The first request and the I/O layer's five retries.
            let server = try FaultServer(["--status", "500", "--status-path", "v0/index1.ts", "--status-times", "6"], root: folder)
            var options = Self.untimed()
            options.source.network.hlsBitrate = .min
            let session = PlayerSession(url: server.url("master.m3u8"), options: options, name: "hls-failover")
            try await session.playToEnd(timeout: 60)
            #expect(session.presentedFrames.map(\.md5) == (try Self.frameMD5s(ofSegments: ["v0/index0.ts", "v1/index1.ts", "v0/index2.ts"])))
            let paths = server.requests.map(\.path)
            #expect(paths.filter { $0.hasPrefix("/v1/") } == ["/v1/index.m3u8", "/v1/index1.ts"] && !paths.contains { $0.hasPrefix("/v2/") },
                    "requests: \(paths)")
        }

        @Test("A segment answered with 500 is asked again after a wait: every frame presented")
        func segmentErrorIsRetried() async throws {
            let folder = try Self.ladder.get()
            let server = try FaultServer(["--status", "500", "--status-path", "v0/index1.ts", "--status-times", "1"], root: folder)
            var options = Self.untimed()
            options.source.network.hlsBitrate = .min
            let session = PlayerSession(url: server.url("master.m3u8"), options: options, name: "hls-500")
            try await session.playToEnd()
            #expect(session.presentedFrames.map(\.md5) == (try Fixtures.frameMD5s("\(folder)/v0/index.m3u8")))
            #expect(server.requests.filter { $0.path == "/v0/index1.ts" }.map(\.status) == [500, 200])
        }

        /// Plays `url` (its lowest variant), seeks exactly to 3.5 s once it is prepared, and
        /// checks that the frames presented after the seek are ffmpeg's of `reference` from that
        /// time on; returns the paths of the requests that ended after the opening.
        static func checkExactSeek(to url: String, server: FaultServer, reference: String, name: String) async throws -> [String] {
            var options = untimed()
            options.source.network.hlsBitrate = .min
            let session = PlayerSession(url: url, options: options, name: name)
            session.player.prepare()
            try await session.waitForPrepared()
            let fetchedBefore = server.requests.count
            let requested = try await session.playToEnd(seekingTo: 3.5, mode: .exact)
            session.close()
            // Seek positions count from the stream's start (its earliest packet, the sound's);
            // ffmpeg's frames at or after that point are the ones to see.
            let info = try #require(session.player.mediaInfo)
            let expected = try Fixtures.framePts(reference).enumerated().filter { $0.element >= info.startTime + 3.5 - 0.001 }
            let md5s = try Fixtures.frameMD5s(reference)
            #expect(expected.count > 50)
            #expect(session.presentedFrames.filter { $0.presentedAt > requested }.map(\.md5) == expected.map { md5s[$0.offset] })
            return server.requests.dropFirst(fetchedBefore).map(\.path)
        }

        @Test("An exact seek in a VOD stream fetches from the segment holding the target on, and presents ffmpeg's frames from it")
        func exactSeek() async throws {
            let folder = try Self.ladder.get()
            let server = try FaultServer(root: folder)
            let paths = try await Self.checkExactSeek(to: server.url("master.m3u8"), server: server, reference: "\(folder)/v0/index.m3u8", name: "hls-seek")
            // The segment holding 3.5 s is the second: the first is never fetched again after the
            // opening. (Counted over every request: the log holds requests as they end, and the
            // opening's may end after the player is prepared.)
            let all = server.requests.map(\.path)
            #expect(all.filter { $0 == "/v0/index0.ts" }.count == 1 && paths.contains("/v0/index1.ts"), "requests: \(all)")
        }

        @Test("A live stream (ffmpeg writing a sliding window as the test runs) starts three target durations from the live edge and follows the reloads", .realTime)
        func liveFollowsTheReloads() async throws {
            let window = try LiveHLSWindow(name: "hls-live", seconds: 40)
            let folder = window.folder
            @Sendable func listed() -> [Int] { window.listed() }
            try #require(await until(timeout: 20) { listed().count >= 6 }, "the encoder wrote no window of 6 segments")
            let edge = listed().last!
            let server = try FaultServer(root: folder)
            let session = PlayerSession(url: server.url("live.m3u8"), name: "hls-live")
            session.player.prepare()
            session.player.play()
            try await Task.sleep(nanoseconds: 6_000_000_000)
            session.close()
            let segments = server.requests.compactMap { request -> Int? in
                guard request.path.hasSuffix(".ts") else { return nil }
                return Int(request.path.dropFirst("/live".count).dropLast(".ts".count))
            }
            // Three target durations (3 s of 1 s segments) from the edge seen when the player opened.
            let first = try #require(segments.first)
            #expect(first >= edge - 3 && first <= edge + 1, "first segment \(first), edge \(edge)")
            // It went on past the playlist it opened with: the reloads were followed, in order, none skipped.
            #expect(segments.count >= 5 && segments.last! > edge + 2, "segments fetched: \(segments)")
            #expect(zip(segments, segments.dropFirst()).allSatisfy { $1 == $0 + 1 }, "segments fetched: \(segments)")
            let frames = session.presentedFrames
            #expect(frames.count > 100, "\(frames.count) frames in 6 s")
            #expect(zip(frames, frames.dropFirst()).allSatisfy { $1.pts > $0.pts })
        }

        @Test("A live HLS playlist plays in live mode: the status line gives the latency it began at (3 s of 1 s segments); steady, no catch-up; a segment sent slowly makes playback wait, and then it catches up, playing faster than 1x", .realTime)
        func liveCatchesUpAfterAStall() async throws {
            let window = try LiveHLSWindow(name: "hls-live-stall", seconds: 60)
            let folder = window.folder
            @Sendable func listed() -> [Int] { window.listed() }
            try #require(await until(timeout: 20) { listed().count >= 6 }, "the encoder wrote no window of 6 segments")
            // The segment four past the edge, about 4 s into playback, comes at 10 kB/s: 5 s for its 50 kB.
            let slow = listed().last! + 4
            let server = try FaultServer(["--slow-path", "live\(slow)\\.ts$", "--slow-rate", "10000"], root: folder)
            let session = PlayerSession(url: server.url("live.m3u8"), name: "hls-live-stall")
            session.player.prepare()
            session.player.play()
            _ = try await session.waitFor("playing") { if case .started = $0 { true } else { false } }
            try await Task.sleep(nanoseconds: 2_000_000_000)
            let began = try #require(session.player.status.liveLatency, "no latency on the status line")
            // Behind the newest data read: 3 s when a segment has come, down to 2 s before the next.
            #expect(began > 1.5 && began < 4.5, "latency \(began) s at the start")
            let start = session.eventCount
            _ = try await session.waitFor("the stall", after: start, timeout: 20) { $0 == .bufferingStarted }
            let catchUp = session.events.dropFirst(start).contains { if case .liveCatchUp = $0 { true } else { false } }
            #expect(!catchUp, "a catch-up before the stall: \(session.events)")
            _ = try await session.waitFor("the catch-up", after: start, timeout: 20) { if case let .liveCatchUp(speed) = $0 { speed > 1 } else { false } }
            let behind = try #require(session.player.status.liveLatency)
            #expect(behind > began, "latency \(behind) s after the stall, \(began) s before")
            // Catching up: in 4 s of wall time playback moves on further than 4 s.
            let (position, time) = (session.player.status.position, MonotonicClock.now())
            try await Task.sleep(nanoseconds: 4_000_000_000)
            let speed = (session.player.status.position - position) / (MonotonicClock.now() - time)
            #expect(speed > 1.02, "played at \(speed)x while catching up")
            session.close()
        }

        /// The ladder's v0 with its segments encrypted by openssl (AES-128-CBC, the IV each
        /// segment's sequence number, as the playlist gives none) and the key at key.bin.
        static func encryptedVariant(key bytes: [UInt8] = (0..<16).map { UInt8($0) }) throws -> String {
            let ladder = try ladder.get()
            let folder = Fixtures.newFolder("hls-aes")
            let key = bytes.map { String(format: "%02x", $0) }.joined()
            try Data(bytes).write(to: URL(fileURLWithPath: folder + "/key.bin"))
            var playlist = ""
            var sequence = 0
            for line in try String(contentsOfFile: ladder + "/v0/index.m3u8", encoding: .utf8).split(separator: "\n") {
                if line.hasPrefix("#EXTINF") && sequence == 0 && !playlist.contains("EXT-X-KEY") {
                    playlist += "#EXT-X-KEY:METHOD=AES-128,URI=\"key.bin\"\n"
                }
                if !line.hasPrefix("#") {
                    let iv = String(repeating: "0", count: 24) + String(format: "%08x", sequence)
                    let encrypted = try Command.run(["openssl", "aes-128-cbc", "-K", key, "-iv", iv, "-in", "\(ladder)/v0/\(line)",
                                                     "-out", "\(folder)/\(line)"])
                    try #require(encrypted.status == 0, "\(encrypted.stderr)")
                    sequence += 1
                }
                playlist += line + "\n"
            }
            try playlist.write(toFile: folder + "/index.m3u8", atomically: true, encoding: .utf8)
            return folder
        }

        @Test("AES-128 segments are decrypted by our client: the frames are ffmpeg's of the clear variant, and the key is fetched once")
        func encryptedSegments() async throws {
            let folder = try Self.encryptedVariant()
            let server = try FaultServer(root: folder)
            let session = PlayerSession(url: server.url("index.m3u8"), options: Self.untimed(), name: "hls-aes")
            try await session.playToEnd()
            #expect(session.presentedFrames.map(\.md5) == (try Fixtures.frameMD5s("\(try Self.ladder.get())/v0/index.m3u8")))
            let paths = server.requests.map(\.path)
            #expect(paths == ["/index.m3u8", "/key.bin", "/index0.ts", "/index1.ts", "/index2.ts"], "requests: \(paths)")
        }

        @Test("Within an encrypted segment, a seek back decrypts again from the segment's start and a seek forward reads on: the bytes are the clear segment's")
        func encryptedSegmentSeeks() async throws {
            let folder = try Self.encryptedVariant()
            let clear = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(try Self.ladder.get())/v0/index0.ts")))
            let server = try FaultServer(root: folder)
            let stream = SegmentStream(url: server.url("index.m3u8"))
            try stream.open(at: 0)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1000, alignment: 1)
            defer { buffer.deallocate() }
            func read(_ count: Int) throws -> [UInt8] {
                var bytes: [UInt8] = []
                while bytes.count < count {
                    let got = try stream.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<(count - bytes.count)]))
                    guard got > 0 else { break }
                    bytes += buffer[..<got]
                }
                return bytes
            }
            #expect(try read(1000) == Array(clear[..<1000]))
            try stream.seek(to: 100)
            #expect(try read(100) == Array(clear[100..<200]))
            try stream.seek(to: 5000)
            #expect(try read(1000) == Array(clear[5000..<6000]))
            // The server logs a request as it ends: closed here, the second ends too.
            stream.close()
            #expect(await until { server.requests.filter { $0.path == "/index0.ts" }.count == 2 }, "the segment is fetched again for the seek back")
        }

        /// The seconds a segment's download took are its throughput sample's, with its bytes
        /// (its key's and initialization section's bytes are not): the key's fetch, one slow
        /// round trip for 16 bytes, is not counted in them. Before the fix it was, and the
        /// estimate erred low.
        @Test("A segment's download time leaves out the fetch of its key: with the key a second slow, the segment's time stays under half a second")
        func keyFetchNotInSegmentTime() throws {
            let folder = try Self.encryptedVariant()
            let server = try FaultServer(["--slow-path", "key\\.bin$", "--slow-rate", "16"], root: folder)
            let stream = SegmentStream(url: server.url("index.m3u8"))
            defer { stream.close() }
            let began = MonotonicClock.now()
            try stream.open(at: 0)
            let opening = MonotonicClock.now() - began
            try #require(opening >= 0.9, "the key came in \(opening) s, not a second")
            #expect(stream.segmentNetworkSeconds < 0.5, "\(stream.segmentNetworkSeconds) s counted for the segment, \(opening) s to open it")
        }

        @Test("An exact seek into an encrypted VOD stream presents ffmpeg's frames of the clear variant from the target")
        func encryptedSeek() async throws {
            let folder = try Self.encryptedVariant()
            let server = try FaultServer(root: folder)
            _ = try await Self.checkExactSeek(to: server.url("index.m3u8"), server: server, reference: "\(try Self.ladder.get())/v0/index.m3u8",
                                              name: "hls-aes-seek")
        }

        /// Two video variants (s0 320x180, s1 640x360) with no sound of their own, and their
        /// AUDIO group's one rendition (sEnglish), MPEG-TS segments of 2 s; FOLDER/master.m3u8.
        static let renditions: Result<String, FixtureError> = {
            let folder = Fixtures.directory.appendingPathComponent("hls-renditions").path
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            guard let made = try? Command.run([
                "ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=6",
                "-f", "lavfi", "-i", "sine=d=6", "-map", "0:v", "-map", "0:v", "-map", "1:a", "-c:v", "libx264",
                "-b:v:0", "300k", "-s:v:0", "320x180", "-b:v:1", "800k", "-g", "50", "-c:a", "aac",
                "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", "-master_pl_name", "master.m3u8",
                "-var_stream_map", "v:0,agroup:aud v:1,agroup:aud a:0,agroup:aud,default:yes,language:en,name:English",
                "\(folder)/s%v/index.m3u8"], timeout: 300), made.status == 0
            else { return .failure(FixtureError(description: "ffmpeg could not make the HLS renditions")) }
            return .success(folder)
        }()

        @Test("A variant whose sound is an audio rendition of its own: the frames are ffmpeg's of the variant, the samples ffmpeg's of the rendition, and nothing else is fetched")
        func audioRendition() async throws {
            let folder = try Self.renditions.get()
            let server = try FaultServer(root: folder)
            var options = PlayerOptions()
            options.source.network.hlsBitrate = .min
            let session = PlayerSession(url: server.url("master.m3u8"), options: options, name: "hls-rendition")
            try await session.playToEnd(timeout: 60)
            #expect(session.presentedFrames.map(\.md5) == (try Fixtures.frameMD5s("\(folder)/s0/index.m3u8")))
            let recorded = try session.recordedAudio()
            let reference = try Fixtures.decodedSamples("\(folder)/sEnglish/index.m3u8", channels: recorded.channels)
            let common = min(recorded.samples.count, reference.count)
            let differences = zip(recorded.samples.prefix(common), reference.prefix(common)).map { abs($0 - $1) }
            let largest = differences.max() ?? 1
            let firstDifferent = differences.firstIndex { $0 >= 1e-6 }
            let lastDifferent = differences.lastIndex { $0 >= 1e-6 }
            #expect(common == reference.count && largest < 1e-6, "samples \(firstDifferent.map(String.init) ?? "-")...\(lastDifferent.map(String.init) ?? "-") differ; \(common) of \(reference.count) samples compared, off by \(largest)")
            let paths = server.requests.map(\.path)
            #expect(paths.allSatisfy { $0 == "/master.m3u8" || $0.hasPrefix("/s0/") || $0.hasPrefix("/sEnglish/") }, "requests: \(paths)")
            #expect(paths.filter { $0.hasPrefix("/sEnglish/") && $0.hasSuffix(".ts") }.count == 4)
        }

        @Test("An exact seek with an audio rendition seeks both: ffmpeg's frames from the target, and neither's first segment fetched again")
        func audioRenditionSeek() async throws {
            let folder = try Self.renditions.get()
            let server = try FaultServer(root: folder)
            let paths = try await Self.checkExactSeek(to: server.url("master.m3u8"), server: server, reference: "\(folder)/s0/index.m3u8", name: "hls-rendition-seek")
            // Counted over every request: the opening's may end after the player is prepared.
            let all = server.requests.map(\.path)
            #expect(all.filter { $0 == "/s0/index0.ts" }.count == 1 && all.filter { $0 == "/sEnglish/index0.ts" }.count == 1
                    && paths.contains("/s0/index1.ts") && paths.contains("/sEnglish/index1.ts"), "requests: \(all)")
        }

        /// ffmpeg's frames of each fMP4 segment as named ("v0/index0.m4s", …), one after
        /// another, each read after its variant's initialization section.
        static func frameMD5s(ofFragments fragments: [String]) throws -> [String] {
            let folder = try fragmentedLadder.get()
            let joined = Fixtures.newFolder("hls-fmp4-parts")
            return try fragments.enumerated().flatMap { index, fragment in
                let variant = fragment.split(separator: "/")[0]
                var bytes = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(variant)/init.mp4"))
                bytes += try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(fragment)"))
                let part = "\(joined)/part\(index).mp4"
                try bytes.write(to: URL(fileURLWithPath: part))
                return try Fixtures.frameMD5s(part)
            }
        }

        @Test("fMP4 segments are read by our client: the frames are ffmpeg's, and the initialization section and each segment are fetched once")
        func fragmentedMP4() async throws {
            let folder = try Self.fragmentedLadder.get()
            let server = try FaultServer(root: folder)
            var options = Self.untimed()
            options.source.network.hlsBitrate = .min
            let session = PlayerSession(url: server.url("master.m3u8"), options: options, name: "hls-fmp4")
            try await session.playToEnd()
            #expect(session.presentedFrames.map(\.md5) == (try Fixtures.frameMD5s("\(folder)/v0/index.m3u8")))
            #expect(server.requests.map(\.path) == ["/master.m3u8", "/v0/index.m3u8", "/v0/init.mp4", "/v0/index0.m4s", "/v0/index1.m4s", "/v0/index2.m4s"])
        }

        @Test("An exact seek in an fMP4 stream reads from the segment holding the target, after the initialization section it already has: ffmpeg's frames from the target")
        func fragmentedMP4Seek() async throws {
            let folder = try Self.fragmentedLadder.get()
            let server = try FaultServer(root: folder)
            let paths = try await Self.checkExactSeek(to: server.url("master.m3u8"), server: server, reference: "\(folder)/v0/index.m3u8", name: "hls-fmp4-seek")
            // Counted over every request: the opening's may end after the player is prepared.
            let all = server.requests.map(\.path)
            #expect(all.filter { $0 == "/v0/index0.m4s" }.count == 1 && paths.contains("/v0/index1.m4s")
                    && all.filter { $0 == "/v0/init.mp4" }.count == 1, "requests: \(all)")
        }

        @Test("auto with fMP4: the other variant's segments follow its initialization section, and the frames are ffmpeg's of each segment fetched")
        func fragmentedMP4VariantChange() async throws {
            let folder = try Self.fragmentedLadder.get()
            let server = try FaultServer(root: folder)
            let log = VariantLog()
            var options = Self.untimed()
            options.source.network.monitor = log.monitor
            let session = PlayerSession(url: server.url("master.m3u8"), options: options, name: "hls-fmp4-auto")
            try await session.playToEnd()
            let chosen = log.bandwidths.withLock { $0 }
            let bandwidths = [400_000, 1_000_000, 1_800_000]
            try #require(chosen.count == 2 && chosen.first == 400_000, "variants: \(chosen) (the loopback link should pick a higher one)")
            let rest = bandwidths.firstIndex(of: chosen.last!)!
            #expect(session.presentedFrames.map(\.md5) == (try Self.frameMD5s(ofFragments: ["v0/index0.m4s", "v\(rest)/index1.m4s", "v\(rest)/index2.m4s"])))
            let fetched = server.requests.map(\.path).filter { $0.hasSuffix(".m4s") || $0.hasSuffix(".mp4") }
            #expect(fetched == ["/v0/init.mp4", "/v0/index0.m4s", "/v\(rest)/init.mp4", "/v\(rest)/index1.m4s", "/v\(rest)/index2.m4s"], "fetched: \(fetched)")
        }

        @Test("A segment that fails in an fMP4 stream comes from another variant, under that one's initialization section, and the stream goes back to its own")
        func fragmentedMP4Failover() async throws {
            let folder = try Self.fragmentedLadder.get()
            let server = try FaultServer(["--status", "500", "--status-path", "v0/index1.m4s", "--status-times", "6"], root: folder)
            var options = Self.untimed()
            options.source.network.hlsBitrate = .min
            let session = PlayerSession(url: server.url("master.m3u8"), options: options, name: "hls-fmp4-failover")
            try await session.playToEnd(timeout: 60)
            #expect(session.presentedFrames.map(\.md5) == (try Self.frameMD5s(ofFragments: ["v0/index0.m4s", "v1/index1.m4s", "v0/index2.m4s"])))
            let fetched = server.requests.filter { $0.status == 200 }.map(\.path).filter { $0.hasSuffix(".m4s") || $0.hasSuffix(".mp4") }
            #expect(fetched == ["/v0/init.mp4", "/v0/index0.m4s", "/v1/init.mp4", "/v1/index1.m4s", "/v0/index2.m4s"], "fetched: \(fetched)")
        }
    }
}

/// ffmpeg writing a live HLS playlist of 1 s segments as the test runs (a sliding window of 6,
/// the older segments deleted), stopped with the test.
private final class LiveHLSWindow: Sendable {
    let folder: String
    private let encoder: BackgroundProcess

    init(name: String, seconds: Int) throws {
        folder = Fixtures.newFolder(name)
        encoder = try BackgroundProcess([
            "ffmpeg", "-nostdin", "-v", "error", "-re", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=\(seconds)",
            "-f", "lavfi", "-i", "sine=d=\(seconds)", "-c:v", "libx264", "-g", "25", "-c:a", "aac", "-f", "hls", "-hls_time", "1",
            "-hls_list_size", "6", "-hls_flags", "delete_segments+temp_file", folder + "/live.m3u8"])
    }

    deinit { encoder.send(signal: SIGKILL) }

    /// The sequence numbers the playlist lists now.
    func listed() -> [Int] {
        let text = (try? String(contentsOfFile: folder + "/live.m3u8", encoding: .utf8)) ?? ""
        guard case let .media(playlist)? = try? HLSPlaylistParser.parse(text) else { return [] }
        return playlist.segments.map(\.sequenceNumber)
    }
}
