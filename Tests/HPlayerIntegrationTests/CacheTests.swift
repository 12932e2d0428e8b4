import Foundation
import HPlayerKit
import HPlayerTestSupport
import Testing

extension Playback {
    /// The disk cache under the I/O layer, against the project's fault-injecting server, which
    /// logs every request and can be stopped to take the network away.
    @Suite(.timeLimit(.minutes(3))) struct CachePlayback {
        /// Untimed playback through a cache in `folder`, with a monitor counting the requests.
        static func options(cache folder: String, requests: RequestLog, revalidationAge: Double = DiskCache.defaultRevalidationAge,
                            configure: (inout NetworkOptions) -> Void = { _ in }) throws -> PlayerOptions {
            var options = PlayerOptions()
            options.isUntimed = true
            options.source.network.cache = DiskCache(directory: folder, maxBytes: 1 << 30, revalidationAge: revalidationAge)
            options.source.network.monitor = requests.monitor
            configure(&options.source.network)
            return options
        }

        /// The requests the I/O layer made, as the monitor is told of them.
        final class RequestLog: @unchecked Sendable {
            let urls = Locked<[String]>([])
            lazy var monitor = NetworkMonitor { [urls] event in
                if case let .request(request) = event { urls.withLock { $0.append(request.url) } }
            }
        }

        /// Plays a second of `url` through the cache in `cache`, then closes: part of it is kept.
        static func playASecond(of url: String, cache: String, name: String) async throws {
            let session = PlayerSession(url: url, options: try options(cache: cache, requests: RequestLog()), name: name)
            session.player.prepare()
            session.player.play()
            try await session.waitFor("a second of frames") { _ in session.presentedFrames.count >= 25 }
            session.close()
        }

        /// What the player's status says the cache in `cache` holds of `url` once prepared, and the duration.
        static func cachedRanges(of url: String, cache: String, name: String, configure: (inout NetworkOptions) -> Void = { _ in })
            async throws -> (ranges: [TimeRange], duration: Double) {
            let session = PlayerSession(url: url, options: try options(cache: cache, requests: RequestLog(), configure: configure), name: name)
            session.player.prepare()
            try await session.waitForPrepared()
            let status = session.player.status
            session.close()
            return (status.cachedRanges, status.duration ?? 0)
        }

        /// The MD5 of each frame `--vo record:FOLDER` logged.
        static func recordedMD5s(_ folder: String) throws -> [String] {
            try String(contentsOfFile: folder + "/video.tsv", encoding: .utf8).split(separator: "\n").compactMap { $0.split(separator: "\t").last.map(String.init) }
        }

        @Test("Offline replay: an MP4 (its index at the end) played once plays again with the server gone, frame-exact, with no request made")
        func offlineProgressive() async throws {
            let clip = try NetworkPlayback.clip("mp4")
            let cache = Fixtures.newFolder("cache-mp4")
            let server = try FaultServer()
            let url = server.url((clip as NSString).lastPathComponent)
            let online = RequestLog()
            try await PlayerSession(url: url, options: Self.options(cache: cache, requests: online), name: "cache-online").playToEnd()
            #expect(!online.urls.withLock { $0 }.isEmpty)
            server.stop()
            let offline = RequestLog()
            let session = PlayerSession(url: url, options: try Self.options(cache: cache, requests: offline), name: "cache-offline")
            try await session.playToEnd()
            #expect(session.presentedFrames.map(\.md5) == (try Fixtures.frameMD5s(clip)))
            #expect(offline.urls.withLock { $0 } == [])
        }

        @Test("Offline replay: an HLS variant played once plays again with the server gone, frame-exact, with no request made; the status shows all of it cached")
        func offlineHLS() async throws {
            let folder = try HLSPlayback.ladder.get()
            let cache = Fixtures.newFolder("cache-hls")
            let server = try FaultServer(root: folder)
            let url = server.url("master.m3u8")
            let configure: (inout NetworkOptions) -> Void = { $0.hlsBitrate = .min }
            try await PlayerSession(url: url, options: Self.options(cache: cache, requests: RequestLog(), configure: configure), name: "cache-hls-online").playToEnd()
            server.stop()
            let offline = RequestLog()
            let session = PlayerSession(url: url, options: try Self.options(cache: cache, requests: offline, configure: configure), name: "cache-hls-offline")
            try await session.playToEnd()
            #expect(session.presentedFrames.map(\.md5) == (try Fixtures.frameMD5s("\(folder)/v0/index.m3u8")))
            #expect(offline.urls.withLock { $0 } == [])
            // Every segment is cached: the progress bar shows the whole variant.
            let cached = try await Self.cachedRanges(of: url, cache: cache, name: "cache-hls-ranges", configure: configure)
            #expect(cached.ranges.count == 1 && cached.ranges.first?.start == 0
                    && abs((cached.ranges.first?.end ?? 0) - cached.duration) < 0.1, "\(cached)")
        }

        @Test("The throughput estimate is kept in the cache's index per server: a first session starts from the lowest variant (the playlist's download says little) and saves one; a session after it starts from the variant the saved estimate sustains")
        func startupEstimateIsKept() async throws {
            let folder = try HLSPlayback.ladder.get()
            let cache = Fixtures.newFolder("cache-estimate")
            let server = try FaultServer(root: folder)
            let url = server.url("master.m3u8")
            let first = HLSPlayback.VariantLog()
            try await PlayerSession(url: url, options: Self.options(cache: cache, requests: RequestLog()) { $0.monitor = first.monitor },
                                    name: "cache-estimate-first").playToEnd()
            #expect(first.bandwidths.withLock { $0.first } == 400_000)
            let store = try CacheStore(directory: cache, maxBytes: 1 << 30)
            let saved = try #require(store.savedThroughput(for: "http://127.0.0.1:\(server.port)"))
            #expect(saved.bitsPerSecond > 0 && abs(saved.savedAt - Date().timeIntervalSince1970) < 120, "\(saved)")
            // 1.3 Mb/s saved: auto starts within 0.8 of it, at the 1 Mb/s variant.
            store.saveThroughput(1_300_000, for: "http://127.0.0.1:\(server.port)")
            let second = HLSPlayback.VariantLog()
            let session = PlayerSession(url: url, options: try Self.options(cache: cache, requests: RequestLog()) { $0.monitor = second.monitor },
                                        name: "cache-estimate-second")
            try await session.playToEnd()
            #expect(second.bandwidths.withLock { $0.first } == 1_000_000)
            #expect(Array(session.presentedFrames.map(\.md5).prefix(50)) == (try HLSPlayback.frameMD5s(ofSegments: ["v1/index0.ts"])))
        }

        @Test("hplayer cache prefetch downloads the variant --hls-bitrate picks; with the server gone it then plays frame-exact, with no request")
        func prefetch() async throws {
            let folder = try HLSPlayback.ladder.get()
            let cache = Fixtures.newFolder("cache-prefetch")
            let server = try FaultServer(root: folder)
            let url = server.url("master.m3u8")
            let fetched = try Command.run([Command.hplayer, "cache", "prefetch", url, "--hls-bitrate", "min", "--cache-dir", cache], timeout: 60)
            #expect(fetched.status == 0 && fetched.stdout.hasPrefix("prefetched "), "\(fetched.stdout)\(fetched.stderr)")
            #expect(server.requests.map(\.path).filter { $0.hasSuffix(".ts") } == ["/v0/index0.ts", "/v0/index1.ts", "/v0/index2.ts"])
            server.stop()
            let offline = RequestLog()
            let session = PlayerSession(url: url, options: try Self.options(cache: cache, requests: offline) { $0.hlsBitrate = .min },
                                        name: "cache-prefetched")
            try await session.playToEnd()
            #expect(session.presentedFrames.map(\.md5) == (try Fixtures.frameMD5s("\(folder)/v0/index.m3u8")))
            #expect(offline.urls.withLock { $0 } == [])
        }

        @Test("Partial, then whole: a run quit early keeps what it fetched (the status shows it cached from the start), and the next fetches only the rest (the server sent at most 1.15x the file), frame-exact; then all of it shows cached")
        func partialThenWhole() async throws {
            let clip = try NetworkPlayback.clip("mkv")
            let size = try Data(contentsOf: URL(fileURLWithPath: clip)).count
            let cache = Fixtures.newFolder("cache-partial")
            // A third of the file a second: the first run has part of it when it is closed.
            let server = try FaultServer(["--rate-schedule", "0:\(size / 3)"])
            let url = server.url("network-6s.mkv")
            try await Self.playASecond(of: url, cache: cache, name: "cache-first")
            // The server logs a request when it ends: when it finds the connection closed.
            let deadline = MonotonicClock.now() + 10
            while server.requests.isEmpty, MonotonicClock.now() < deadline { MonotonicClock.sleep(until: MonotonicClock.now() + 0.02) }
            let firstRequests = server.requests.count
            let afterFirst = server.requests.reduce(0) { $0 + $1.bytes }
            #expect(afterFirst < size, "the first run should have fetched part of the file only")
            // What the progress bar shows: the file's start, as far as the first run kept of it.
            let partly = try await Self.cachedRanges(of: url, cache: cache, name: "cache-partly")
            #expect(partly.ranges.count == 1 && partly.ranges.first?.start == 0
                    && (partly.ranges.first?.end ?? 0) > 0 && (partly.ranges.first?.end ?? 0) < partly.duration, "\(partly)")
            let second = PlayerSession(url: url, options: try Self.options(cache: cache, requests: RequestLog()), name: "cache-second")
            try await second.playToEnd(timeout: 60)
            #expect(second.presentedFrames.map(\.md5) == (try Fixtures.frameMD5s(clip)))
            let total = server.requests.reduce(0) { $0 + $1.bytes }
            #expect(Double(total) <= 1.15 * Double(size),
                    "the server sent \(total) bytes for a file of \(size): \(server.requests.map { "\($0.range) \($0.bytes) \($0.outcome)" })")
            let later = server.requests.dropFirst(firstRequests).filter { $0.status != 304 }.map(\.range)
            #expect(!later.isEmpty && later.allSatisfy { $0.hasPrefix("bytes=") && !$0.hasPrefix("bytes=0-") },
                    "the second run asks only for ranges past what the first kept: \(later)")
            let whole = try await Self.cachedRanges(of: url, cache: cache, name: "cache-whole")
            #expect(whole.ranges == [TimeRange(start: 0, end: whole.duration)], "\(whole)")
        }

        @Test("Offline with part of a file cached: the cached part plays, and playback ends there with 'not cached, and the network is unreachable', exit 1")
        func offlineGap() async throws {
            let clip = try NetworkPlayback.clip("mkv")
            let size = try Data(contentsOf: URL(fileURLWithPath: clip)).count
            let cache = Fixtures.newFolder("cache-gap")
            let server = try FaultServer(["--rate-schedule", "0:\(size / 3)"])
            let url = server.url("network-6s.mkv")
            try await Self.playASecond(of: url, cache: cache, name: "cache-gap-first")
            server.stop()
            let folder = Fixtures.newFolder("cache-gap-offline")
            let result = try Command.run([Command.hplayer, url, "--vo", "record:\(folder)", "--ao", "null", "--untimed", "--no-status",
                                          "--cache-dir", cache, "--network-timeout", "1"], timeout: 60)
            #expect(result.status == 1)
            #expect(result.stderr.contains("hplayer: error: \(url): not cached, and the network is unreachable"), "\(result.stderr)")
            let md5s = try Self.recordedMD5s(folder)
            let expected = try Fixtures.frameMD5s(clip)
            #expect(md5s.count >= 25 && md5s.count < expected.count && Array(expected.prefix(md5s.count)) == md5s,
                    "\(md5s.count) of \(expected.count) frames")
        }

        @Test("hplayer cache ls lists what was played; verify finds a planted stray file and a truncated fragment, repairs them, and then passes; rm --all empties it")
        func commands() throws {
            let clip = try NetworkPlayback.clip("mkv")
            let cache = Fixtures.newFolder("cache-cli")
            let server = try FaultServer()
            let url = server.url("network-6s.mkv")
            let play = try Command.run([Command.hplayer, url, "--vo", "null", "--ao", "null", "--untimed", "--no-status", "--cache-dir", cache], timeout: 60)
            #expect(play.status == 0, "\(play.stderr)")
            let list = try Command.run([Command.hplayer, "cache", "ls", "--cache-dir", cache])
            let size = try Data(contentsOf: URL(fileURLWithPath: clip)).count
            #expect(list.status == 0 && list.stdout.contains("100%") && list.stdout.contains(url), "\(list.stdout)")
            let clean = try Command.run([Command.hplayer, "cache", "verify", "--cache-dir", cache])
            #expect(clean.status == 0 && clean.stdout.isEmpty, "\(clean.stdout)")
            // Damage: a stray file, and a fragment cut short.
            let data = cache + "/data"
            let fragments = try FileManager.default.contentsOfDirectory(atPath: data).filter { $0.hasSuffix(".frag") }
            try #require(!fragments.isEmpty)
            try Data([1, 2, 3]).write(to: URL(fileURLWithPath: data + "/stray.frag"))
            let cut = try FileHandle(forWritingTo: URL(fileURLWithPath: data + "/" + fragments[0]))
            try cut.truncate(atOffset: 10)
            try cut.close()
            let repaired = try Command.run([Command.hplayer, "cache", "verify", "--cache-dir", cache])
            #expect(repaired.status == 0 && repaired.stdout.split(separator: "\n").count >= 2, "\(repaired.stdout)")
            let again = try Command.run([Command.hplayer, "cache", "verify", "--cache-dir", cache])
            #expect(again.status == 0 && again.stdout.isEmpty, "\(again.stdout)")
            // What was repaired away is fetched again: the replay is still frame-exact.
            let folder = Fixtures.newFolder("cache-cli-replay")
            let replay = try Command.run([Command.hplayer, url, "--vo", "record:\(folder)", "--ao", "null", "--untimed", "--no-status", "--cache-dir", cache], timeout: 60)
            #expect(replay.status == 0, "\(replay.stderr)")
            let md5s = try Self.recordedMD5s(folder)
            #expect(md5s == (try Fixtures.frameMD5s(clip)))
            let removed = try Command.run([Command.hplayer, "cache", "rm", "--all", "--cache-dir", cache])
            #expect(removed.status == 0)
            let empty = try Command.run([Command.hplayer, "cache", "ls", "--cache-dir", cache])
            #expect(empty.status == 0 && empty.stdout.isEmpty, "\(empty.stdout) (of \(size) bytes)")
        }

        @Test("hplayer cache verify --origin: a fragment damaged in place (its size kept) passes the plain verify, is found differing from the server's bytes and removed; a file changed on the server is found changed and removed; with the server gone nothing is checked, exit 1")
        func verifyAgainstTheOrigin() throws {
            let root = Fixtures.newFolder("cache-origin")
            try FileManager.default.copyItem(atPath: try NetworkPlayback.clip("mkv"), toPath: root + "/media.mkv")
            let cache = Fixtures.newFolder("cache-origin-store")
            let server = try FaultServer(root: root)
            let url = server.url("media.mkv")
            func play() throws {
                let run = try Command.run([Command.hplayer, url, "--vo", "null", "--ao", "null", "--untimed", "--no-status", "--cache-dir", cache],
                                          timeout: 60)
                try #require(run.status == 0, "\(run.stderr)")
            }
            func verify(_ extra: [String] = []) throws -> (status: Int32, lines: [String]) {
                let run = try Command.run([Command.hplayer, "cache", "verify", "--cache-dir", cache] + extra, timeout: 60)
                return (run.status, run.stdout.split(separator: "\n").map(String.init))
            }
            try play()
            #expect(try verify(["--origin"]) == (0, []))
            // One byte of a fragment changed in place: its size still agrees with the index.
            let data = cache + "/data"
            let fragment = try #require(try FileManager.default.contentsOfDirectory(atPath: data).first { $0.hasSuffix(".frag") })
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: data + "/" + fragment))
            try handle.seek(toOffset: 100)
            let byte = try #require(try handle.read(upToCount: 1)?.first)
            try handle.seek(toOffset: 100)
            try handle.write(contentsOf: Data([~byte]))
            try handle.close()
            #expect(try verify() == (0, []))
            let damaged = try verify(["--origin"])
            #expect(damaged.status == 0 && damaged.lines.count == 1, "\(damaged.lines)")
            #expect(damaged.lines.first.map { $0.hasPrefix("repaired: \(url): byte ") && $0.hasSuffix(" differs from the server's: removed") } == true,
                    "\(damaged.lines)")
            let listed = try Command.run([Command.hplayer, "cache", "ls", "--cache-dir", cache])
            #expect(listed.status == 0 && !listed.stdout.contains(url), "\(listed.stdout)")
            // Kept again, then changed on the server: another length and ETag.
            try play()
            try FileManager.default.removeItem(atPath: root + "/media.mkv")
            try FileManager.default.copyItem(atPath: try Clips.audioVideo(seconds: 3), toPath: root + "/media.mkv")
            let changed = try verify(["--origin"])
            #expect(changed.status == 0 && changed.lines.count == 1, "\(changed.lines)")
            #expect(changed.lines.first?.hasPrefix("repaired: \(url): changed on the server (length ") == true, "\(changed.lines)")
            // Kept again, then asked with the server gone.
            try play()
            server.stop()
            let offline = try verify(["--origin"])
            #expect(offline.status == 1 && offline.lines.count == 1, "\(offline.lines)")
            #expect(offline.lines.first?.hasPrefix("not checked: \(url): ") == true, "\(offline.lines)")
            #expect(try verify() == (0, []))
        }

        @Test("A write error (a file size limit): one warning, and playback completes; a local file never opens the cache")
        func writeErrorAndLocalFiles() throws {
            let clip = try NetworkPlayback.clip("mkv")
            let cache = Fixtures.newFolder("cache-write-error") + "/cache"
            let server = try FaultServer()
            let url = server.url("network-6s.mkv")
            // 100 KiB at most per file (dash counts 512-byte blocks): the index fits, the file's fragment does not.
            let result = try Command.run(["sh", "-c", "trap '' XFSZ; ulimit -f 200; exec \"$@\"", "sh", Command.hplayer, url,
                                          "--vo", "null", "--ao", "null", "--untimed", "--no-status", "--cache-dir", cache], timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            let warnings = result.stderr.split(separator: "\n").filter { $0.hasPrefix("hplayer: warning:") }
            #expect(warnings.count == 1 && warnings[0].contains("playing on without caching"), "\(result.stderr)")
            let unused = Fixtures.newFolder("cache-local") + "/never"
            let local = try Command.run([Command.hplayer, clip, "--vo", "null", "--ao", "null", "--untimed", "--no-status", "--cache-dir", unused])
            #expect(local.status == 0 && !FileManager.default.fileExists(atPath: unused), "\(local.stderr)")
        }

        @Test("A changed file (the server swaps it: a new ETag): checked again once old enough with If-None-Match, what was cached is dropped, and the new content plays, frame-exact; unchanged, the check is answered 304 and nothing else is fetched")
        func changedFile() async throws {
            let root = Fixtures.newFolder("cache-changed")
            let before = try NetworkPlayback.clip("mkv")
            let after = try Fixtures.clip("cache-changed-after.mkv", ["-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=4",
                                                                      "-c:v", "libx264", "-g", "50"])
            try FileManager.default.copyItem(atPath: before, toPath: root + "/media.mkv")
            let cache = Fixtures.newFolder("cache-changed-store")
            let server = try FaultServer(root: root)
            let url = server.url("media.mkv")
            // The fault server's ETag: "mtime-size".
            func entityTag() throws -> String {
                let attributes = try FileManager.default.attributesOfItem(atPath: root + "/media.mkv")
                let modified = Int((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)
                return "\"\(modified)-\((attributes[.size] as? Int) ?? 0)\""
            }
            // Every entry counts as old: each opening checks it with the server.
            try await PlayerSession(url: url, options: Self.options(cache: cache, requests: RequestLog(), revalidationAge: 0), name: "cache-before").playToEnd()
            let oldTag = try entityTag()
            try FileManager.default.removeItem(atPath: root + "/media.mkv")
            try FileManager.default.copyItem(atPath: after, toPath: root + "/media.mkv")
            var seen = server.requests.count
            let session = PlayerSession(url: url, options: try Self.options(cache: cache, requests: RequestLog(), revalidationAge: 0), name: "cache-after")
            try await session.playToEnd()
            #expect(session.presentedFrames.map(\.md5) == (try Fixtures.frameMD5s(after)))
            let check = server.requests.dropFirst(seen).first
            #expect(check?.headers["if-none-match"] == oldTag && check?.status == 206, "\(String(describing: check))")
            // Unchanged, it is checked with its ETag, answered 304, and played from the cache.
            seen = server.requests.count
            let again = PlayerSession(url: url, options: try Self.options(cache: cache, requests: RequestLog(), revalidationAge: 0), name: "cache-again")
            try await again.playToEnd()
            #expect(again.presentedFrames.map(\.md5) == (try Fixtures.frameMD5s(after)))
            let requests = server.requests.dropFirst(seen)
            #expect(requests.map(\.status) == [304], "\(requests.map { ($0.status, $0.range) })")
            #expect(requests.first?.headers["if-none-match"] == (try entityTag()))
        }

        @Test("Two players at once on one URL and one cache: both frame-exact, no byte kept twice (one writer per range), the cache verifies afterwards, and it replays offline")
        func twoPlayers() throws {
            let clip = try NetworkPlayback.clip("mkv")
            let size = try Data(contentsOf: URL(fileURLWithPath: clip)).count
            let cache = Fixtures.newFolder("cache-two")
            let server = try FaultServer(["--rate-schedule", "0:\(size / 2)"])
            let url = server.url("network-6s.mkv")
            let folders = [Fixtures.newFolder("cache-two-a"), Fixtures.newFolder("cache-two-b")]
            let players = try folders.map { folder in
                try BackgroundProcess([Command.hplayer, url, "--vo", "record:\(folder)", "--ao", "null", "--untimed", "--no-status", "--cache-dir", cache])
            }
            for player in players { #expect(player.wait(timeout: 60) == 0, "\(player.stderr)") }
            for folder in folders { #expect(try Self.recordedMD5s(folder) == (try Fixtures.frameMD5s(clip))) }
            let verified = try Command.run([Command.hplayer, "cache", "verify", "--cache-dir", cache])
            #expect(verified.status == 0 && verified.stdout.isEmpty, "\(verified.stdout)")
            // One writer per range: no byte is kept twice.
            #expect(Self.keptBytes(cache) <= size, "\(Self.keptBytes(cache)) bytes kept of a \(size)-byte file")
            // And nothing is missing: it replays with the server gone.
            server.stop()
            let offline = Fixtures.newFolder("cache-two-offline")
            let replayed = try Command.run([Command.hplayer, url, "--vo", "record:\(offline)", "--ao", "null", "--untimed", "--no-status",
                                            "--cache-dir", cache], timeout: 60)
            #expect(replayed.status == 0, "\(replayed.stderr)")
            #expect(try Self.recordedMD5s(offline) == (try Fixtures.frameMD5s(clip)))
        }

        /// The bytes in the fragment files of the cache in `cache`.
        static func keptBytes(_ cache: String) -> Int {
            let data = cache + "/data"
            return ((try? FileManager.default.contentsOfDirectory(atPath: data)) ?? []).filter { $0.hasSuffix(".frag") }
                .reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: "\(data)/\($1)")[.size] as? Int) ?? 0) }
        }

        @Test("Eviction: five media through a cache smaller than their total leave it at or under its limit, the least recently used gone first")
        func eviction() throws {
            let cache = Fixtures.newFolder("cache-evict")
            var clips: [String] = []
            for index in 0..<5 {
                clips.append(try Fixtures.clip("cache-evict-\(index).mkv", ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=\(2 + index)",
                                                                            "-c:v", "libx264", "-g", "50"]))
            }
            let sizes = try clips.map { try Data(contentsOf: URL(fileURLWithPath: $0)).count }
            // Room for the last two, not for the last three.
            let limit = sizes[3] + sizes[4] + sizes[0] / 2
            let server = try FaultServer()
            for clip in clips {
                let played = try Command.run([Command.hplayer, server.url((clip as NSString).lastPathComponent), "--vo", "null", "--ao", "null",
                                              "--untimed", "--no-status", "--cache-dir", cache, "--cache-max-bytes", "\(limit)"], timeout: 60)
                #expect(played.status == 0, "\(played.stderr)")
            }
            let kept = Self.keptBytes(cache)
            #expect(kept <= limit, "\(kept) bytes kept against a limit of \(limit)")
            let listed = try Command.run([Command.hplayer, "cache", "ls", "--cache-dir", cache]).stdout
            let present = clips.map { listed.contains((($0 as NSString).lastPathComponent)) }
            #expect(present == [false, false, false, true, true], "\(listed)")
        }

        @Test("kill -9 at 10 moments while downloading, each followed by a restart: hplayer cache verify then passes, and the replay is frame-exact online and offline")
        func killsWhileDownloading() throws {
            let clip = try NetworkPlayback.clip("mkv")
            let size = try Data(contentsOf: URL(fileURLWithPath: clip)).count
            let cache = Fixtures.newFolder("cache-kills")
            // Slow enough that every kill lands mid-download.
            let server = try FaultServer(["--rate-schedule", "0:\(size / 4)"])
            let url = server.url("network-6s.mkv")
            var generator = SystemRandomNumberGenerator()
            for _ in 0..<10 {
                let player = try BackgroundProcess([Command.hplayer, url, "--vo", "null", "--ao", "null", "--untimed", "--no-status",
                                                    "--cache-dir", cache])
                MonotonicClock.sleep(until: MonotonicClock.now() + Double.random(in: 0.05...0.6, using: &generator))
                player.send(signal: SIGKILL)
                _ = player.wait(timeout: 10)
            }
            let verified = try Command.run([Command.hplayer, "cache", "verify", "--cache-dir", cache])
            #expect(verified.status == 0, "\(verified.stdout)")
            for (name, isOnline) in [("online", true), ("offline", false)] {
                if !isOnline { server.stop() }
                let folder = Fixtures.newFolder("cache-kills-\(name)")
                let replay = try Command.run([Command.hplayer, url, "--vo", "record:\(folder)", "--ao", "null", "--untimed", "--no-status", "--cache-dir", cache], timeout: 60)
                #expect(replay.status == 0, "\(name): \(replay.stderr)")
                let md5s = try Self.recordedMD5s(folder)
                #expect(md5s == (try Fixtures.frameMD5s(clip)), "\(name)")
            }
        }
    }
}
