/// Whether a request goes through the disk cache: `store` reads what is cached and keeps what
/// arrives; `bypass` goes to the network and keeps nothing (a live playlist and its segments).
package enum CacheUse: Sendable {
    case store
    case bypass
}

/// What reading over HTTP needs, with or without the disk cache: HTTPByteSource, or
/// CachingHTTPSource in front of one. The HLS client moves one from resource to resource.
package protocol HTTPResource: ByteSource {
    /// The resource it reads now.
    var url: String { get }
    /// `cancel` has been called: every read fails from now on.
    var isCancelled: Bool { get }
    /// Opens `url` at `offset` (with `length`, only that many bytes: a segment's byte range). A
    /// continuation (the next segment of a stream already playing) rides out what a first
    /// opening reports at once.
    func open(url: String, at offset: Int64, length: Int64?, isContinuation: Bool, caching: CacheUse) throws(MediaError)
    /// The whole of `url` when the cache holds all of it, with no request; nil otherwise.
    func cachedContent(of url: String, limit: Int) -> [UInt8]?
}

extension HTTPResource {
    /// The whole resource (a playlist, a key), at most `limit` bytes, arrived within `seconds`:
    /// a body that never ends, fast or slow, is given up.
    package func readAll(limit: Int = DocumentLimit.bytes, within seconds: Double = DocumentLimit.seconds) throws(MediaError) -> [UInt8] {
        var bytes: [UInt8] = []
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
        defer { chunk.deallocate() }
        let deadline = MonotonicClock.now() + seconds
        while true {
            let count = try read(into: chunk)
            if count == 0 { return bytes }
            bytes += chunk[..<count]
            guard bytes.count <= limit else { throw MediaError(input: url, reason: "larger than \(limit) bytes: refused") }
            guard MonotonicClock.now() < deadline else {
                throw MediaError(input: url, reason: "still arriving after \(Int(seconds)) s (\(bytes.count) bytes): refused")
            }
        }
    }
}

/// What a server can make the player hold, or wait for, while it sends a document (a playlist,
/// a key, an initialization section): past either, the document is refused.
package enum DocumentLimit {
    package static let bytes = 16 << 20
    /// 16 MiB at about 2 Mb/s, where a playlist is seldom past 1 MiB.
    package static let seconds = 60.0
}

extension NetworkOptions {
    /// The HTTP reader for `url`: through the disk cache when one is set.
    package func httpResource(for url: String) -> any HTTPResource {
        guard let store = cache?.store() else { return HTTPByteSource(url: url, options: self) }
        return CachingHTTPSource(url: url, options: self, store: store)
    }
}
