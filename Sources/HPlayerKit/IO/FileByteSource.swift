import Glibc
import Synchronization

/// A local file read through the I/O layer: the protocol's implementation for local files, for
/// code that reads bytes alike whatever their origin (the tests use it so). The player itself
/// opens local paths with libavformat's file protocol, which reads the same bytes.
public final class FileByteSource: ByteSource, @unchecked Sendable {
    /// The file read, which errors name.
    public let path: String
    private let cancelled = Atomic<Bool>(false)
    // The read thread's own.
    private var descriptor: Int32 = -1
    private var offset: Int64 = 0
    private var length: Int64 = 0

    /// Opens nothing yet: `open(at:)` does, on the read thread.
    public init(path: String) {
        self.path = path
    }

    deinit {
        if descriptor >= 0 { Glibc.close(descriptor) }
    }

    public func open(at offset: Int64) throws(MediaError) {
        if descriptor < 0 {
            let opened = Glibc.open(path, O_RDONLY | O_CLOEXEC)
            guard opened >= 0 else { throw failure() }
            var status = stat()
            guard fstat(opened, &status) == 0 else {
                let error = failure()
                Glibc.close(opened)
                throw error
            }
            guard status.st_mode & S_IFMT == S_IFREG else {
                Glibc.close(opened)
                throw MediaError(input: path, reason: "not a regular file")
            }
            descriptor = opened
            length = Int64(status.st_size)
        }
        try seek(to: offset)
    }

    public var info: ByteSourceInfo { ByteSourceInfo(contentLength: length, acceptsRanges: true) }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(MediaError) -> Int {
        if cancelled.load(ordering: .relaxed) { throw MediaError(input: path, reason: "cancelled") }
        guard descriptor >= 0 else { throw MediaError(input: path, reason: "not open") }
        while true {
            let count = pread(descriptor, buffer.baseAddress, buffer.count, off_t(offset))
            if count >= 0 {
                offset += Int64(count)
                return count
            }
            guard errno == EINTR else { throw failure() }
        }
    }

    public func seek(to offset: Int64) throws(MediaError) {
        guard offset >= 0, offset <= length else {
            throw MediaError(input: path, reason: "seek to \(offset) outside 0...\(length)")
        }
        self.offset = offset
    }

    public func cancel() { cancelled.store(true, ordering: .relaxed) }

    private func failure() -> MediaError {
        MediaError(input: path, reason: String(cString: strerror(errno)))
    }
}
