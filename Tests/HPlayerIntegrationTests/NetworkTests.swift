import Foundation
import HPlayerKit
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
}
