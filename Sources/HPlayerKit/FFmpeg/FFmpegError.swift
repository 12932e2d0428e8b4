import CFFmpeg
import CHPlayerShim

/// A libav* error code with FFmpeg's own text for it.
package struct FFmpegError: Error, CustomStringConvertible, Equatable {
    package let code: Int32

    package init(_ code: Int32) { self.code = code }

    package static let endOfFile = FFmpegError(hp_averror_eof())
    package static let tryAgain = FFmpegError(hp_averror_eagain())
    package static let exit = FFmpegError(hp_averror_exit())

    package var description: String {
        var buffer = [CChar](repeating: 0, count: 256)
        av_strerror(code, &buffer, buffer.count)
        return String(cBuffer: buffer)
    }

    /// Throws for a negative libav* return value, passes others through.
    @discardableResult
    static func check(_ result: Int32) throws(FFmpegError) -> Int32 {
        if result < 0 { throw FFmpegError(result) }
        return result
    }
}

extension String {
    /// The NUL-terminated text a C function wrote into `buffer`.
    init(cBuffer buffer: [CChar]) {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        self = String(decoding: bytes, as: UTF8.self)
    }
}
