import Foundation
import Glibc
import Testing
@testable import HPlayerKit

@Suite struct OriginPolicyTests {
    static let remote = "http://example.com/live/index.m3u8"
    static let local = "/home/user/lists/index.m3u8"

    @Test("A remote document may name http and https alone; a local one anything the command line takes", arguments: [
        (remote, "http://cdn.example.com/a.ts", nil),
        (remote, "HTTPS://cdn.example.com/a.ts", nil),
        (remote, "file:///etc/passwd", "a remote document may not name a local file"),
        (remote, "FILE:///etc/passwd", "a remote document may not name a local file"),
        (remote, "/etc/passwd", "a remote document may not name a local file"),
        (remote, "gopher://127.0.0.1:70/_GET", "a remote document may name only http and https URLs, not gopher"),
        (remote, "dict://127.0.0.1:2628/d:x", "a remote document may name only http and https URLs, not dict"),
        (remote, "ftp://example.com/a.ts", "a remote document may name only http and https URLs, not ftp"),
        (remote, "data:text/plain,abc", "a remote document may name only http and https URLs, not data"),
        ("https://example.com/a.m3u", "tcp://127.0.0.1:9/", "a remote document may name only http and https URLs, not tcp"),
        (local, "/media/a.ts", nil),
        (local, "a.ts", nil),
        (local, "file:///media/a.ts", nil),
        (local, "https://example.com/a.ts", nil),
        (local, "udp://239.0.0.1:1234", nil),
        ("file:///home/user/iptv.m3u", "rtsp://camera.local/stream", nil),
        // What reaches the policy is resolved; these are the forms a resolution leaves as they are.
        (remote, " file:///etc/passwd", "a remote document may not name a local file"),
        (remote, "\tfile:///etc/passwd", "a remote document may not name a local file"),
        (remote, "http:/x", nil),
        (remote, "http:\\\\evil.example\\x", nil),
        (remote, OriginPolicy.resolve("//evil.example/x.ts", against: remote), nil),
        (remote, OriginPolicy.resolve("../../../../etc/passwd", against: remote), nil),
        (remote, OriginPolicy.resolve("%66ile:///etc/passwd", against: remote), nil),
    ] as [(String, String, String?)])
    func refusals(document: String, reference: String, reason: String?) {
        #expect(OriginPolicy.refusal(of: reference, namedBy: document) == reason)
    }

    @Test("A redirect is followed to http and https alone, and from https to http only when allowed", arguments: [
        ("http://a.example/x", "http://b.example/y", false, nil),
        ("http://a.example/x", "https://b.example/y", false, nil),
        ("https://a.example/x", "https://b.example/y", false, nil),
        ("https://a.example/x", "http://a.example/y", false, "redirected from https to http (http://a.example/y): refused (--http-allow-insecure-redirect allows it)"),
        ("https://a.example/x", "http://a.example/y", true, nil),
        ("http://a.example/x", "file:///etc/passwd", true, "redirected to file:///etc/passwd: only http and https are followed"),
        ("https://a.example/x", "gopher://127.0.0.1/", true, "redirected to gopher://127.0.0.1/: only http and https are followed"),
    ] as [(String, String, Bool, String?)])
    func redirects(from: String, to: String, allowsDowngrade: Bool, reason: String?) {
        #expect(OriginPolicy.redirectRefusal(from: from, to: to, allowsDowngrade: allowsDowngrade) == reason)
    }

    @Test("The user's header fields follow a redirect to the same scheme, host and port alone", arguments: [
        ("http://a.example/x", "http://a.example/y?z", true),
        ("http://A.example:8080/x", "http://a.example:8080/", true),
        ("http://user@a.example/x", "http://a.example/y", true),
        ("http://a.example/x", "http://b.example/x", false),
        ("http://a.example/x", "http://a.example:8080/x", false),
        ("http://a.example/x", "https://a.example/x", false),
        ("http://a.example/x", "http://a.example.evil/x", false),
        ("http://a.example/x", "http://a.example@evil.example/x", false),
        ("http://a.example/x", "/relative", false),
    ])
    func sameOrigin(from: String, to: String, same: Bool) {
        #expect(OriginPolicy.isSameOrigin(from, to) == same)
    }

    @Test("A remote master playlist loses the variants and renditions whose URLs are refused, each told once")
    func masterReferences() throws {
        let text = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="en",URI="file:///etc/passwd"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="fr",URI="fr/index.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="s",NAME="en",URI="gopher://127.0.0.1/x"
            #EXT-X-STREAM-INF:BANDWIDTH=1000,AUDIO="a"
            low/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2000,AUDIO="a"
            file:///etc/passwd
            """
        let (allowed, refused) = HLSReferences.allowed(try HLSPlaylistParser.parse(text), base: Self.remote)
        guard case let .master(master) = allowed else { Issue.record("not a master playlist"); return }
        #expect(master.variants.map(\.uri) == ["low/index.m3u8"])
        #expect(master.renditions.map(\.name) == ["fr"])
        #expect(refused.map(\.url) == ["file:///etc/passwd", "gopher://127.0.0.1/x"])
    }

    @Test("A remote media playlist loses each segment whose URI, key or initialization section is refused; its paths are its server's")
    func mediaReferences() throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:2
            #EXTINF:2,
            a.ts
            #EXTINF:2,
            /etc/passwd
            #EXTINF:2,
            dict://127.0.0.1:2628/x
            #EXT-X-KEY:METHOD=AES-128,URI="file:///tmp/key"
            #EXTINF:2,
            b.ts
            #EXT-X-KEY:METHOD=NONE
            #EXT-X-MAP:URI="ftp://example.com/init.mp4"
            #EXTINF:2,
            c.m4s
            #EXT-X-ENDLIST
            """
        let (allowed, refused) = HLSReferences.allowed(try HLSPlaylistParser.parse(text), base: Self.remote)
        guard case let .media(media) = allowed else { Issue.record("not a media playlist"); return }
        // "/etc/passwd" is a path on the playlist's server: fetched from there, as any other.
        #expect(media.segments.map(\.uri) == ["a.ts", "/etc/passwd"])
        #expect(media.segments.map(\.sequenceNumber) == [0, 1])
        #expect(refused.map(\.url) == ["dict://127.0.0.1:2628/x", "file:///tmp/key", "ftp://example.com/init.mp4"])
    }

    @Test("A local playlist keeps its local segments")
    func localReferences() throws {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na.ts\n#EXTINF:2,\nfile:///media/b.ts\n#EXT-X-ENDLIST\n"
        let (allowed, refused) = HLSReferences.allowed(try HLSPlaylistParser.parse(text), base: "/media/index.m3u8")
        guard case let .media(media) = allowed else { Issue.record("not a media playlist"); return }
        #expect(media.segments.count == 2 && refused.isEmpty)
    }

    @Test("A playlist of more than 100,000 segments is refused at the line past the limit")
    func entryLimit() {
        let segment = "#EXTINF:1,\ns.ts\n"
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n" + String(repeating: segment, count: HLSPlaylistParser.entryLimit + 1)
        #expect(throws: HLSPlaylistError(line: 2 + 2 * (HLSPlaylistParser.entryLimit + 1), reason: "more than 100000 entries: refused")) {
            try HLSPlaylistParser.parse(text)
        }
        let atLimit = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n" + String(repeating: segment, count: HLSPlaylistParser.entryLimit)
        #expect(throws: Never.self) { try HLSPlaylistParser.parse(atLimit) }
    }
}

@Suite struct CachePermissionsTests {
    static func modes(under directory: String) -> [String: mode_t] {
        var modes: [String: mode_t] = [:]
        let enumerator = FileManager.default.enumerator(atPath: directory)
        for case let name as String in enumerator! + [""] {
            var info = stat()
            if lstat(directory + "/" + name, &info) == 0 { modes[name] = info.st_mode & 0o7777 }
        }
        return modes
    }

    /// (Under umask 000 in a process of its own: NetworkEdge's cache test; umask is process-wide.)
    @Test("A cache has its folders 0700 and its files 0600, the index's -wal and -shm included, where the umask would make them 0755 and 0644")
    func privateUnderTheUmask() async throws {
        try await CacheStoreTests.withFolder { directory in
            let store = try CacheStore(directory: directory, maxBytes: 1 << 20)
            store.save(CacheStoreTests.entry)
            try CacheStoreTests.commit(store, offset: 0, CacheStoreTests.bytes(100))
            let modes = Self.modes(under: directory)
            #expect(modes.keys.contains("index.sqlite-wal") && modes.keys.contains { $0.hasPrefix("data/") && $0.hasSuffix(".frag") })
            for (name, mode) in modes {
                var info = stat()
                lstat(directory + "/" + name, &info)
                #expect(mode == (info.st_mode & S_IFMT == S_IFDIR ? 0o700 : 0o600), "\(name): \(String(mode, radix: 8))")
            }
        }
    }

    @Test("A cache with wider modes is told and made private by check(repair:), and then checks clean")
    func widerModesAreTightened() async throws {
        try await CacheStoreTests.withFolder { directory in
            do {
                let store = try CacheStore(directory: directory, maxBytes: 1 << 20)
                store.save(CacheStoreTests.entry)
                try CacheStoreTests.commit(store, offset: 0, CacheStoreTests.bytes(100))
            }
            chmod(directory, 0o755)
            chmod(directory + "/data", 0o775)
            chmod(directory + "/index.sqlite", 0o644)
            // Not the cache's: --cache-dir may name a folder that holds other things.
            #expect(FileManager.default.createFile(atPath: directory + "/notes.sh", contents: Data(), attributes: [.posixPermissions: 0o755]))
            let found = CachePermissions.check(directory, repair: false)
            #expect(found.sorted() == ["\(directory): mode 0755, should be 0700", "\(directory)/data: mode 0775, should be 0700",
                                       "\(directory)/index.sqlite: mode 0644, should be 0600"].sorted())
            #expect(CachePermissions.check(directory, repair: true).count == 3)
            #expect(CachePermissions.check(directory, repair: false).isEmpty)
            #expect(Self.modes(under: directory)[""] == 0o700)
            #expect(Self.modes(under: directory)["notes.sh"] == 0o755)
        }
    }
}

@Suite struct RedirectHopTests {
    @Test("A redirect hop starts a new head and keeps the bytes still to skip (a short seek forward made before it)")
    func hopKeepsSkip() {
        let receiver = TransferReceiver()
        receiver.begin(at: 100)
        #expect(receiver.addHeader("HTTP/1.1 302 Found\r\n", byteCount: 20) && receiver.addHeader("Location: /x\r\n", byteCount: 14))
        #expect(receiver.head.isRedirect)
        Array("moved".utf8).withUnsafeBytes { receiver.receive($0) }  // the redirect's body: not the resource's
        receiver.skipArriving(3)
        receiver.beginHop()
        #expect(receiver.addHeader("HTTP/1.1 206 Partial Content\r\n", byteCount: 30)
                && receiver.addHeader("Content-Range: bytes 100-109/200\r\n", byteCount: 35))
        Array("0123456789".utf8).withUnsafeBytes { receiver.receive($0) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 1)
        defer { buffer.deallocate() }
        let count = receiver.take(into: buffer)
        #expect(Array(buffer[..<count]) == Array("3456789".utf8))
    }

    @Test("Only 301, 302, 303, 307 and 308 with a Location are redirects: a 304 that names one is an answer", arguments: [
        (301, true), (302, true), (303, true), (307, true), (308, true), (300, false), (304, false), (305, false), (200, false),
    ])
    func redirectStatuses(status: Int, isRedirect: Bool) {
        let head = HTTPResponseHeadTests.head(["HTTP/1.1 \(status) X", "Location: /elsewhere", ""])
        #expect(head.isRedirect == isRedirect)
    }

    @Test("Heads past 64 KiB are refused, counted in bytes as they came")
    func headLimit() {
        let receiver = TransferReceiver()
        receiver.begin(at: 0)
        #expect(receiver.addHeader("HTTP/1.1 200 OK\r\n", byteCount: 17))
        #expect(receiver.addHeader("X: y\r\n", byteCount: TransferReceiver.headLimit - 17))
        #expect(!receiver.isHeadTooLarge)
        #expect(!receiver.addHeader("Z: w\r\n", byteCount: 6) && receiver.isHeadTooLarge)
    }
}
