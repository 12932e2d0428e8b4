import CFFmpeg
import CHPlayerShim
import Glibc

/// An AVIOContext over a `ByteSource`: libavformat reads, seeks and asks the size through it.
/// Set as a format context's `pb` (with AVFMT_FLAG_CUSTOM_IO), it outlives
/// `avformat_close_input`, which does not free it: `close` does.
final class ByteSourceIO {
    private(set) var context: UnsafeMutablePointer<AVIOContext>?
    private let state: State

    /// What the callbacks reach through their opaque pointer.
    private final class State {
        let source: ByteSource
        var position: Int64 = 0
        var lastError: MediaError?
        init(source: ByteSource) { self.source = source }
    }

    /// - Parameter isSeekable: false: libavformat reads front to back, as from a pipe (a seek
    ///   forward reads on; none goes back).
    init(source: ByteSource, isSeekable: Bool = true, bufferSize: Int = 1 << 16) throws(MediaError) {
        state = State(source: source)
        guard let buffer = av_malloc(bufferSize) else { throw MediaError(input: "", reason: "out of memory") }
        let opaque = Unmanaged.passUnretained(state).toOpaque()
        context = avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), Int32(bufferSize), 0, opaque, { opaque, buffer, size in
            let state = Unmanaged<State>.fromOpaque(opaque!).takeUnretainedValue()
            state.lastError = nil
            do throws(MediaError) {
                let count = try state.source.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: Int(max(size, 0))))
                state.position += Int64(count)
                return count > 0 ? Int32(count) : hp_averror_eof()
            } catch {
                state.lastError = error
                return -EIO
            }
        }, nil, isSeekable ? Self.seek : nil)
        if context == nil {
            av_free(buffer)
            throw MediaError(input: "", reason: "out of memory")
        }
    }

    private static let seek: @convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int64 = { opaque, offset, whence in
        let state = Unmanaged<State>.fromOpaque(opaque!).takeUnretainedValue()
        if whence & AVSEEK_SIZE != 0 { return state.source.info.contentLength ?? -1 }
        let target: Int64
        switch whence & ~AVSEEK_FORCE {
        case SEEK_SET: target = offset
        case SEEK_CUR: target = state.position &+ offset
        case SEEK_END:
            guard let length = state.source.info.contentLength else { return -1 }
            target = length &+ offset
        default: return -1
        }
        state.lastError = nil
        do throws(MediaError) {
            try state.source.seek(to: target)
        } catch {
            state.lastError = error
            return -1
        }
        state.position = target
        return target
    }

    deinit { close() }

    func cancel() { state.source.cancel() }

    /// Why the last read or seek failed (the read thread's).
    var lastError: MediaError? { state.lastError }

    func close() {
        guard context != nil else { return }
        // The buffer may have been replaced by libavformat: free the one the context holds now.
        av_freep(&context!.pointee.buffer)
        avio_context_free(&context)
    }
}
