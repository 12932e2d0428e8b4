/// Where a source's bytes come from: the I/O layer that FFmpeg reads through (`ByteSourceIO`).
/// `open`, `read` and `seek` are called on the source's read thread only; `cancel` from any thread.
public protocol ByteSource: AnyObject, Sendable {
    /// Connects and reads enough to fill `info`, ready to read from `offset`. Errors name the input.
    func open(at offset: Int64) throws(MediaError)
    /// What is known of the bytes once open.
    var info: ByteSourceInfo { get }
    /// Reads up to `buffer.count` bytes from the current offset; 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(MediaError) -> Int
    /// Moves the offset to `offset` bytes from the start.
    func seek(to offset: Int64) throws(MediaError)
    /// Makes a read in progress, and every one after, fail at once.
    func cancel()
    /// Done with: a connection is let go, and what is kept of the bytes (the disk cache's) is
    /// finished. Once nothing reads any more (the read thread has ended).
    func close()
    /// What of the input the disk cache holds, for showing; nil when it is not read through the cache.
    var cacheMap: CacheMap? { get }
}

extension ByteSource {
    /// Nothing to let go.
    public func close() {}
    /// Not read through the disk cache.
    public var cacheMap: CacheMap? { nil }
}

/// What a byte source knows of its bytes: for FFmpeg (the size), and for a cache to keep with
/// them (the validators tell whether they changed on the server).
public struct ByteSourceInfo: Equatable, Sendable {
    /// The whole length in bytes, when known.
    public var contentLength: Int64?
    /// The Content-Type, when the server gives one.
    public var mimeType: String?
    /// The ETag validator, when the server gives one: a changed one means changed bytes.
    public var entityTag: String?
    /// The Last-Modified validator, as the server wrote it.
    public var lastModified: String?
    /// Whether a read may start anywhere (HTTP: the server answers Range requests).
    public var acceptsRanges: Bool

    /// All unknown but `acceptsRanges`, which defaults to true (a file, memory).
    public init(contentLength: Int64? = nil, mimeType: String? = nil, entityTag: String? = nil, lastModified: String? = nil,
                acceptsRanges: Bool = true) {
        self.contentLength = contentLength
        self.mimeType = mimeType
        self.entityTag = entityTag
        self.lastModified = lastModified
        self.acceptsRanges = acceptsRanges
    }
}

/// Bytes held in memory: fuzzing input, and media made by a test.
public final class MemoryByteSource: ByteSource, @unchecked Sendable {
    private let bytes: [UInt8]
    private let input: String
    /// The read thread's alone.
    private var offset = 0
    private let isCancelled = Locked(false)

    /// `input` names the bytes in errors.
    public init(_ bytes: [UInt8], input: String = "memory") {
        self.bytes = bytes
        self.input = input
    }

    public func open(at offset: Int64) throws(MediaError) { try seek(to: offset) }

    public var info: ByteSourceInfo { ByteSourceInfo(contentLength: Int64(bytes.count)) }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(MediaError) -> Int {
        guard !isCancelled.withLock({ $0 }) else { throw MediaError(input: input, reason: "cancelled") }
        let count = min(buffer.count, bytes.count - offset)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: count) }
        offset += count
        return count
    }

    public func seek(to offset: Int64) throws(MediaError) {
        guard offset >= 0, offset <= Int64(bytes.count) else {
            throw MediaError(input: input, reason: "seek to \(offset) outside 0...\(bytes.count)")
        }
        self.offset = Int(offset)
    }

    public func cancel() { isCancelled.withLock { $0 = true } }
}
