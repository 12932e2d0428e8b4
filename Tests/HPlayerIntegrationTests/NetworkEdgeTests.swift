import Foundation
import Glibc
import HPlayerKit
import Testing

extension Playback {
    /// What a stranger's document or server can make hplayer do (docs/network-and-cache.md,
    /// "Security"): the URLs a remote playlist may name, redirects, the limits on what a server
    /// sends, the cache's modes and where HLS keys live. Real servers: the fault server, nginx
    /// (over TLS for a redirect), and a bare TCP listener standing for a local service. About 25 s
    /// in all.
    @Suite(.timeLimit(.minutes(3))) struct NetworkEdge {
        static let hplayer = Command.hplayer

        /// `hplayer play` with no outputs to speak of; `extra` after the URL.
        static func play(_ url: String, _ extra: [String] = [], timeout: Double = 30) throws -> CommandResult {
            try Command.run([hplayer, "play", url, "--vo", "null", "--ao", "null", "--untimed", "--no-status"] + extra, timeout: timeout)
        }

        static func errorLines(_ result: CommandResult) -> [String] {
            result.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("hplayer: error: ") }
        }

        /// A folder the fault server serves: the ladder's v0 under v0/, and `playlist` as FOLDER/NAME.
        static func site(_ name: String, playlist: String, file: String = "list.m3u8") throws -> String {
            let ladder = try HLSPlayback.ladder.get()
            let site = Fixtures.newFolder("edge-\(name)")
            try FileManager.default.copyItem(atPath: ladder + "/v0", toPath: site + "/v0")
            try playlist.write(toFile: site + "/" + file, atomically: true, encoding: .utf8)
            return site
        }

        static func mediaPlaylist(_ uris: [String]) -> String {
            "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n" + uris.map { "#EXTINF:2,\n\($0)\n" }.joined() + "#EXT-X-ENDLIST\n"
        }

        @Test("A remote HLS playlist naming only file://, gopher://, dict:// and ftp:// segments: one line per refused URL, no connection to the local listener, exit 1 at once")
        func remotePlaylistRefusedEverywhere() throws {
            let listener = try ConnectionCounter()
            let local = try HLSPlayback.ladder.get() + "/v2/index0.ts"
            let refused = ["file://\(local)", "gopher://127.0.0.1:\(listener.port)/_GET%20/%20HTTP/1.0%0D%0A%0D%0A",
                           "dict://127.0.0.1:\(listener.port)/d:secret", "ftp://127.0.0.1:\(listener.port)/x.ts"]
            let site = try Self.site("refused", playlist: Self.mediaPlaylist(refused))
            let server = try FaultServer(root: site)
            let url = server.url("list.m3u8")
            let result = try Self.play(url, timeout: 20)
            #expect(result.status == 1, "\(result.stderr)")
            let errors = Self.errorLines(result)
            #expect(errors.count == refused.count + 1, "\(result.stderr)")
            for reference in refused {
                #expect(errors.contains { $0.hasPrefix("hplayer: error: \(url): refused \(reference): a remote document may") }, "\(reference): \(result.stderr)")
            }
            #expect(errors.last == "hplayer: error: \(url): every segment's URL was refused (a remote document may not name a local file)")
            #expect(listener.connections == 0)
            #expect(server.requests.map(\.path) == ["/list.m3u8"])
        }

        @Test("A remote HLS playlist mixing its own segments with a local file's: the frames are its own segments' alone, an absolute path is the server's, and the local file is refused in one line")
        func remotePlaylistPlaysOnlyItsOwn() throws {
            let ladder = try HLSPlayback.ladder.get()
            let local = ladder + "/v2/index1.ts"  // another picture size: its frames would show
            let site = try Self.site("mixed", playlist: "")
            let server = try FaultServer(root: site)
            try Self.mediaPlaylist(["v0/index0.ts", "file://\(local)", server.url("v0/index1.ts"), "/v0/index2.ts"])
                .write(toFile: site + "/list.m3u8", atomically: true, encoding: .utf8)
            let folder = Fixtures.newFolder("edge-mixed-played")
            let result = try Command.run([Self.hplayer, "play", server.url("list.m3u8"), "--vo", "record:\(folder)", "--ao", "null",
                                          "--untimed", "--no-status"], timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(Self.errorLines(result) == ["hplayer: error: \(server.url("list.m3u8")): refused file://\(local): a remote document may not name a local file"])
            #expect(try CachePlayback.recordedMD5s(folder) == (try Fixtures.frameMD5s(ladder + "/v0/index.m3u8")))
            #expect(server.requests.map(\.path) == ["/list.m3u8", "/v0/index0.ts", "/v0/index1.ts", "/v0/index2.ts"])
        }

        @Test("A remote M3U naming gopher://, dict:// and a local file, and a master playlist whose subtitle and audio renditions name them: each refused in one line, no connection made, the rest plays")
        func remoteListsAndRenditionsRefused() throws {
            let listener = try ConnectionCounter()
            let ladder = try HLSPlayback.ladder.get()
            let gopher = "gopher://127.0.0.1:\(listener.port)/_x"
            let dict = "dict://127.0.0.1:\(listener.port)/d:x"
            let local = "file://\(ladder)/v0/index.m3u8"
            let master = """
                #EXTM3U
                #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="s",NAME="en",URI="\(local)"
                #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="en",URI="\(dict)"
                #EXT-X-STREAM-INF:BANDWIDTH=400000,SUBTITLES="s"
                v0/index.m3u8
                """
            let site = try Self.site("lists", playlist: master, file: "master.m3u8")
            let server = try FaultServer(root: site)
            try "#EXTM3U\n\(gopher)\n\(dict)\n\(local)\n\(server.url("master.m3u8"))\n".write(toFile: site + "/list.m3u", atomically: true, encoding: .utf8)
            let folder = Fixtures.newFolder("edge-lists-played")
            let result = try Command.run([Self.hplayer, "play", server.url("list.m3u"), "--vo", "record:\(folder)", "--ao", "null",
                                          "--untimed", "--no-status"], timeout: 60)
            let errors = Self.errorLines(result)
            let list = server.url("list.m3u")
            #expect(errors.filter { $0.hasPrefix("hplayer: error: \(list): refused ") }.count == 3, "\(result.stderr)")
            #expect(errors.contains("hplayer: error: \(server.url("master.m3u8")): refused \(local): a remote document may not name a local file"), "\(result.stderr)")
            #expect(errors.contains("hplayer: error: \(server.url("master.m3u8")): refused \(dict): a remote document may name only http and https URLs, not dict"), "\(result.stderr)")
            #expect(try CachePlayback.recordedMD5s(folder) == (try Fixtures.frameMD5s(ladder + "/v0/index.m3u8")))
            #expect(listener.connections == 0)
        }

        @Test("--playlist with a remote list naming gopher:// and a local file: refused in one line, exit 1, no connection to the local listener")
        func remotePlaylistOption() throws {
            let listener = try ConnectionCounter()
            let gopher = "gopher://127.0.0.1:\(listener.port)/_x"
            let site = try Self.site("playlist-option", playlist: "#EXTM3U\n\(gopher)\nfile:///etc/hostname\nv0/index0.ts\n", file: "list.m3u")
            let server = try FaultServer(root: site)
            let result = try Self.play("--playlist=\(server.url("list.m3u"))")
            #expect(result.status == 1)
            #expect(Self.errorLines(result) == ["hplayer: error: \(server.url("list.m3u")): refused \(gopher): a remote document may name only http and https URLs, not gopher"], "\(result.stderr)")
            #expect(listener.connections == 0)
        }

        @Test("A remote .m3u that is an HLS playlist, demuxed by libavformat over our I/O layer's bytes, naming a local file: the file is not opened (libavformat's protocol whitelist), its own segments play")
        func remoteHLSReadByLibavformat() throws {
            let ladder = try HLSPlayback.ladder.get()
            let local = ladder + "/v2/index1.ts"
            let site = try Self.site("hls-m3u", playlist: Self.mediaPlaylist(["v0/index0.ts", "file://\(local)", "v0/index2.ts"]), file: "list.m3u")
            let server = try FaultServer(root: site)
            let folder = Fixtures.newFolder("edge-hls-m3u-played")
            let result = try Command.run([Self.hplayer, "play", server.url("list.m3u"), "--vo", "record:\(folder)", "--ao", "null",
                                          "--untimed", "--no-status"], timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("Protocol 'file' not on whitelist"), "\(result.stderr)")
            let presented = try CachePlayback.recordedMD5s(folder)
            let localFrames = Set(try Fixtures.frameMD5s(local))
            #expect(presented.count == 100 && !presented.contains(where: localFrames.contains), "\(presented.count) frames")
        }

        @Test("https redirected to http is refused in one line, with no request to the http server, and followed with --http-allow-insecure-redirect")
        func downgradeRefused() throws {
            _ = try NetworkPlayback.clip("mkv")
            let nginx = try NginxServer()
            let plain = try FaultServer()
            let url = nginx.tlsURL("redirect?to=\(plain.url("network-6s.mkv"))")
            let refused = try Self.play(url, ["--tls-ca-file", nginx.certificate])
            #expect(refused.status == 1)
            #expect(Self.errorLines(refused) == ["hplayer: error: \(url): redirected from https to http (\(plain.url("network-6s.mkv"))): refused (--http-allow-insecure-redirect allows it)"], "\(refused.stderr)")
            #expect(plain.requests.isEmpty)
            let allowed = try Self.play(url, ["--tls-ca-file", nginx.certificate, "--http-allow-insecure-redirect"])
            #expect(allowed.status == 0, "\(allowed.stderr)")
            #expect(!plain.requests.isEmpty)
        }

        @Test("--http-header-fields and --referrer follow a redirect on the same server, not to another unless --http-forward-credentials")
        func credentialsStayWithTheirHost() throws {
            _ = try NetworkPlayback.clip("mkv")
            let asked = try FaultServer()
            let other = try FaultServer()
            let credentials = ["--http-header-fields", "X-Token: secret", "--referrer", "http://example.test/page"]
            let sameServer = try Self.play(asked.url("_fault/redirect?to=/network-6s.mkv"), credentials)
            #expect(sameServer.status == 0, "\(sameServer.stderr)")
            #expect(asked.requests.count >= 2 && asked.requests.allSatisfy { $0.headers["x-token"] == "secret" && $0.headers["referer"] != nil })
            let askedBefore = asked.requests.count
            let elsewhere = try Self.play(asked.url("_fault/redirect?to=\(other.url("network-6s.mkv"))"), credentials)
            #expect(elsewhere.status == 0, "\(elsewhere.stderr)")
            #expect(asked.requests.dropFirst(askedBefore).allSatisfy { $0.headers["x-token"] == "secret" && $0.headers["referer"] != nil })
            #expect(!other.requests.isEmpty && other.requests.allSatisfy { $0.headers["x-token"] == nil && $0.headers["referer"] == nil },
                    "\(other.requests.map(\.headers))")
            let before = other.requests.count
            let forwarded = try Self.play(asked.url("_fault/redirect?to=\(other.url("network-6s.mkv"))"), credentials + ["--http-forward-credentials"])
            #expect(forwarded.status == 0, "\(forwarded.stderr)")
            let after = other.requests.dropFirst(before)
            #expect(!after.isEmpty && after.allSatisfy { $0.headers["x-token"] == "secret" && $0.headers["referer"] == "http://example.test/page" })
        }

        @Test("What a server may make the player hold: a head over 64 KiB, more than 10 redirects, a playlist that never ends (16 MiB), one of more than 100,000 segments: each one line and exit 1")
        func limits() throws {
            let site = Fixtures.newFolder("edge-limits")
            let many = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n" + String(repeating: "#EXTINF:1,\ns.ts\n", count: HLSPlaylistParser.entryLimit + 1)
            try many.write(toFile: site + "/many.m3u8", atomically: true, encoding: .utf8)
            let server = try FaultServer(root: site)
            let cases = [
                (server.url("_fault/big-head"), "a response head larger than 64 KiB"),
                (server.url("_fault/loop/0"), "more than 10 redirects (the last to \(server.url("_fault/loop/11")))"),
                (server.url("_fault/endless.m3u8"), "larger than 16777216 bytes: refused"),
                (server.url("many.m3u8"), "playlist line \(2 + 2 * (HLSPlaylistParser.entryLimit + 1)): more than 100000 entries: refused"),
            ]
            for (url, reason) in cases {
                let result = try Self.play(url, timeout: 30)
                #expect(result.status == 1, "\(url): \(result.stderr)")
                #expect(Self.errorLines(result) == ["hplayer: error: \(url): \(reason)"], "\(result.stderr)")
            }
            #expect(server.requests.filter { $0.path.hasPrefix("/_fault/loop/") }.count == 11)
        }

        @Test("A playlist whose SAMPLE-AES begins after clear segments is one line and exit 1, not left to libavformat 5.1, whose HLS demuxer dereferences NULL on it (ffmpeg -i crashes)")
        func lateSampleAESIsRefused() throws {
            let playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:2,\nv0/index0.ts\n"
                + "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"key.bin\"\n#EXTINF:2,\nv0/index1.ts\n#EXT-X-ENDLIST\n"
            let site = try Self.site("sample-aes", playlist: playlist)
            try Data((0..<16).map { UInt8($0) }).write(to: URL(fileURLWithPath: site + "/key.bin"))
            let server = try FaultServer(root: site)
            let url = server.url("list.m3u8")
            let result = try Self.play(url)
            #expect(result.status == 1, "\(result.stderr)")
            #expect(Self.errorLines(result) == ["hplayer: error: \(url): SAMPLE-AES segments mixed with others: not read (libavformat 5.1's HLS demuxer crashes on them)"], "\(result.stderr)")
        }

        /// Each folder and file under `directory` whose mode is not 0700 (a folder) or 0600.
        static func widerThanPrivate(_ directory: String) -> [String] {
            var wide: [String] = []
            for case let name as String in FileManager.default.enumerator(atPath: directory)! + [""] {
                var info = stat()
                guard lstat(directory + "/" + name, &info) == 0 else { continue }
                let wanted: mode_t = info.st_mode & S_IFMT == S_IFDIR ? 0o700 : 0o600
                if info.st_mode & 0o7777 != wanted { wide.append("\(name) \(String(info.st_mode & 0o7777, radix: 8))") }
            }
            return wide
        }

        @Test("The cache made by playing over HTTP and HLS under umask 000 is private (0700 and 0600); wider modes are tightened with one warning, and cache verify reports and mends them")
        func cacheIsPrivate() throws {
            _ = try NetworkPlayback.clip("mkv")
            let ladder = try HLSPlayback.ladder.get()
            let server = try FaultServer()
            let hls = try FaultServer(root: ladder)
            let cache = Fixtures.newFolder("edge-cache") + "/cache"
            for url in [server.url("network-6s.mkv"), hls.url("master.m3u8")] {
                let played = try Command.run(["sh", "-c", "umask 000; exec \"$0\" \"$@\"", Self.hplayer, "play", url, "--cache-dir", cache,
                                              "--vo", "null", "--ao", "null", "--untimed", "--no-status"], timeout: 60)
                #expect(played.status == 0, "\(played.stderr)")
            }
            #expect(FileManager.default.fileExists(atPath: cache + "/index.sqlite"))
            #expect(Self.widerThanPrivate(cache) == [])
            chmod(cache, 0o755)
            chmod(cache + "/data", 0o775)
            chmod(cache + "/index.sqlite", 0o644)
            let again = try Self.play(server.url("network-6s.mkv"), ["--cache-dir", cache])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stderr == "hplayer: warning: the cache at \(cache) could be read by other users: made private (folders 0700, files 0600; 3 changed)\n")
            #expect(Self.widerThanPrivate(cache) == [])
            chmod(cache + "/data", 0o755)
            let verified = try Command.run([Self.hplayer, "cache", "verify", "--cache-dir", cache])
            #expect(verified.status == 0, "\(verified.stderr)")
            #expect(verified.stdout == "repaired: \(cache)/data: mode 0755, made 0700 (readable by other users)\n")
            #expect(Self.widerThanPrivate(cache) == [])
        }

        /// Whether any file under `directory` holds `bytes`.
        static func anyFile(under directory: String, holds bytes: [UInt8]) -> Bool {
            for case let name as String in FileManager.default.enumerator(atPath: directory)! {
                guard let data = FileManager.default.contents(atPath: directory + "/" + name) else { continue }
                if data.range(of: Data(bytes)) != nil { return true }
            }
            return false
        }

        @Test("An AES-128 key is in no file of the cache after playing; offline the replay fails for the key alone, in one line; kept on purpose by cache prefetch --keep-keys (a 0600 file), it plays offline")
        func keysStayInMemory() throws {
            let key = (0..<16).map { _ in UInt8.random(in: 0...255) }
            let folder = try HLSPlayback.encryptedVariant(key: key)
            let clear = try Fixtures.frameMD5s("\(try HLSPlayback.ladder.get())/v0/index.m3u8")
            let cache = Fixtures.newFolder("edge-keys") + "/cache"
            let server = try FaultServer(root: folder)
            let url = server.url("index.m3u8")
            let played = try Self.play(url, ["--cache-dir", cache])
            #expect(played.status == 0, "\(played.stderr)")
            #expect(!Self.anyFile(under: cache, holds: key))
            server.stop()
            let offline = try Self.play(url, ["--cache-dir", cache])
            #expect(offline.status == 1)
            let keyError = "hplayer: error: \(server.url("key.bin")): the AES-128 key cannot be fetched"
            #expect(Self.errorLines(offline).count == 1 && Self.errorLines(offline)[0].hasPrefix(keyError), "\(offline.stderr)")

            let keptCache = Fixtures.newFolder("edge-keys-kept") + "/cache"
            let again = try FaultServer(root: folder)
            let prefetched = try Command.run([Self.hplayer, "cache", "prefetch", again.url("index.m3u8"), "--cache-dir", keptCache, "--keep-keys"])
            #expect(prefetched.status == 0, "\(prefetched.stderr)")
            var info = stat()
            #expect(lstat(keptCache + "/keys", &info) == 0 && info.st_mode & 0o777 == 0o600)
            #expect(Self.anyFile(under: keptCache, holds: Array(key.map { String(format: "%02x", $0) }.joined().utf8)))
            again.stop()
            let record = Fixtures.newFolder("edge-keys-played")
            let kept = try Command.run([Self.hplayer, "play", again.url("index.m3u8"), "--cache-dir", keptCache, "--vo", "record:\(record)",
                                        "--ao", "null", "--untimed", "--no-status"], timeout: 60)
            #expect(kept.status == 0, "\(kept.stderr)")
            #expect(try CachePlayback.recordedMD5s(record) == clear)
        }
    }
}
