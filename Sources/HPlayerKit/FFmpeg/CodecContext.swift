import CFFmpeg

/// An opened libavcodec decoder for one stream: the owner of its AVCodecContext.
final class CodecContext: @unchecked Sendable {
    let context: UnsafeMutablePointer<AVCodecContext>

    /// - Parameter threads: libavcodec's thread_count; 0 lets it pick one per core.
    init(stream: UnsafeMutablePointer<AVStream>, threads: Int32 = 0) throws(MediaError) {
        let parameters = stream.pointee.codecpar!
        let codecName = parameters.pointee.codec_id == AV_CODEC_ID_NONE
            ? "unknown codec '\(fourCC(parameters.pointee.codec_tag))'"
            : String(cString: avcodec_get_name(parameters.pointee.codec_id))
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw MediaError(input: codecName, reason: "no decoder for this codec")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw MediaError(input: codecName, reason: "out of memory")
        }
        var result = avcodec_parameters_to_context(context, parameters)
        if result >= 0 {
            context.pointee.pkt_timebase = stream.pointee.time_base
            context.pointee.thread_count = threads
            result = avcodec_open2(context, codec, nil)
        }
        if result < 0 {
            var owned: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&owned)
            throw MediaError(input: codecName, reason: "cannot open decoder: \(FFmpegError(result))")
        }
        self.context = context
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&owned)
    }
}

/// A codec tag as its four characters.
private func fourCC(_ tag: UInt32) -> String {
    let bytes = (0..<4).map { UInt8(truncatingIfNeeded: tag >> ($0 * 8)) }
    return String(decoding: bytes.map { (32...126).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
}
