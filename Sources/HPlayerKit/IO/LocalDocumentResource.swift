import Glibc
import Synchronization

/// The segment stream's resource for a manifest on this machine (a `.mpd` file, played by our
/// DASH client rather than libavformat's): its `file://` URLs read from disk, a byte range as
/// asked; an http(s) URL it names through the I/O layer's HTTP client and the disk cache, as
/// for a remote manifest. A local document is the user's own: it may name local files
/// (OriginPolicy). `cancel` may come from any thread; the rest is the read thread's.
final class LocalDocumentResource: HTTPResource, @unchecked Sendable {
    private let options: NetworkOptions
    /// Made on the first http(s) URL; `cancel` reaches it from another thread.
    private let remote = Mutex<(any HTTPResource)?>(nil)
    private let cancelled = Atomic<Bool>(false)
    // The read thread's own.
    private(set) var url: String
    private var file: FileByteSource?
    private var isRemoteNow = false
    private var position: Int64 = 0
    /// Where the byte range asked for ends in the file; nil: at its end.
    private var end: Int64?

    init(url: String, options: NetworkOptions) {
        self.url = url
        self.options = options
    }

    /// A path (relative to the working folder, or absolute) as a `file://` URL, so that what the
    /// manifest names resolves against it (RFC 3986); an http(s) or file URL as it is.
    static func fileURL(for input: String) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let directory = getcwd(&buffer, buffer.count).map { String(cString: $0) } ?? "/"
        return FileURL.url(of: input, workingDirectory: directory)
    }

    var isCancelled: Bool { cancelled.load(ordering: .relaxed) || remote.withLock { $0?.isCancelled ?? false } }

    func open(url: String, at offset: Int64, length: Int64?, isContinuation: Bool, caching: CacheUse) throws(MediaError) {
        if isCancelled { throw MediaError(input: url, reason: "cancelled") }
        self.url = url
        if OriginPolicy.isRemote(url) {
            let resource = remote.withLock { remote in
                if let remote { return remote }
                let made = options.httpResource(for: url)
                remote = made
                return made
            }
            isRemoteNow = true
            try resource.open(url: url, at: offset, length: length, isContinuation: isContinuation, caching: caching)
            return
        }
        isRemoteNow = false
        let opened = FileByteSource(path: FileURL.path(ofURI: url))
        try opened.open(at: offset)
        file = opened
        position = offset
        end = length.map { offset + $0 }
    }

    func open(at offset: Int64) throws(MediaError) {
        try open(url: url, at: offset, length: nil, isContinuation: false, caching: .store)
    }

    var info: ByteSourceInfo {
        isRemoteNow ? remote.withLock { $0?.info } ?? ByteSourceInfo() : file?.info ?? ByteSourceInfo()
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(MediaError) -> Int {
        if isRemoteNow, let resource = remote.withLock({ $0 }) { return try resource.read(into: buffer) }
        if cancelled.load(ordering: .relaxed) { throw MediaError(input: url, reason: "cancelled") }
        guard let file else { throw MediaError(input: url, reason: "not open") }
        let wanted = end.map { Int(clamping: max(0, $0 - position)) } ?? buffer.count
        guard wanted > 0 else { return 0 }
        let count = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<min(buffer.count, wanted)]))
        position += Int64(count)
        return count
    }

    func seek(to offset: Int64) throws(MediaError) {
        if isRemoteNow, let resource = remote.withLock({ $0 }) { return try resource.seek(to: offset) }
        guard let file else { throw MediaError(input: url, reason: "not open") }
        try file.seek(to: offset)
        position = offset
    }

    func cachedContent(of url: String, limit: Int) -> [UInt8]? {
        OriginPolicy.isRemote(url) ? remote.withLock { $0 }?.cachedContent(of: url, limit: limit) : nil
    }

    func cancel() {
        cancelled.store(true, ordering: .relaxed)
        remote.withLock { $0 }?.cancel()
    }

    func close() {
        remote.withLock { $0 }?.close()
        file = nil
    }

    var cacheMap: CacheMap? { remote.withLock { $0 }?.cacheMap }
}
