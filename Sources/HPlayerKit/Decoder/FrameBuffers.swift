import CFFmpeg
import CHPlayerShim
import Glibc

/// Output buffers for converted frames, from an AVBufferPool: a frame's buffer goes back to the
/// pool when the frame is unreferenced, so steady conversion allocates nothing.
final class FrameBuffers {
    private var pool: OpaquePointer?
    private(set) var bufferSize = 0

    deinit { av_buffer_pool_uninit(&pool) }

    /// Attaches a buffer of at least `size` bytes to `frame` as buf[0] and returns its data.
    func attach(size: Int, to frame: UnsafeMutablePointer<AVFrame>) throws(FFmpegError) -> UnsafeMutablePointer<UInt8> {
        if size > bufferSize {
            av_buffer_pool_uninit(&pool)
            pool = av_buffer_pool_init(size, nil)
            bufferSize = size
        }
        guard let buffer = av_buffer_pool_get(pool) else { throw FFmpegError(hp_averror(ENOMEM)) }
        frame.pointee.buf.0 = buffer
        return buffer.pointee.data
    }
}

/// Pointers to an AVFrame's data and linesize arrays, for the C calls that fill or read them.
extension UnsafeMutablePointer where Pointee == AVFrame {
    func withPlanes<Result>(_ body: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, UnsafeMutablePointer<Int32>) throws -> Result) rethrows -> Result {
        try withUnsafeMutablePointer(to: &pointee.data) { data in
            try withUnsafeMutablePointer(to: &pointee.linesize) { lineSizes in
                try data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: Int(AV_NUM_DATA_POINTERS)) { planes in
                    try lineSizes.withMemoryRebound(to: Int32.self, capacity: Int(AV_NUM_DATA_POINTERS)) { strides in
                        try body(planes, strides)
                    }
                }
            }
        }
    }
}
