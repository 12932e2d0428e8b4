import CFFmpeg

/// A stream's codec parameters and time base, copied: what a decoder is opened from, kept past
/// the AVStream they came from. A sectioned stream's demuxer (fMP4 after a seek or a variant
/// switch) is closed and opened anew, and its streams with it, while the tracks made for the
/// first ones decode on.
final class StreamParameters: @unchecked Sendable {
    let parameters: UnsafeMutablePointer<AVCodecParameters>
    let timeBase: AVRational

    init(_ stream: UnsafeMutablePointer<AVStream>) throws(MediaError) {
        guard let copy = avcodec_parameters_alloc() else { throw MediaError(input: "a stream's codec parameters", reason: "out of memory") }
        let result = avcodec_parameters_copy(copy, stream.pointee.codecpar)
        guard result >= 0 else {
            var owned: UnsafeMutablePointer<AVCodecParameters>? = copy
            avcodec_parameters_free(&owned)
            throw MediaError(input: "a stream's codec parameters", reason: FFmpegError(result).description)
        }
        parameters = copy
        timeBase = stream.pointee.time_base
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecParameters>? = parameters
        avcodec_parameters_free(&owned)
    }
}
