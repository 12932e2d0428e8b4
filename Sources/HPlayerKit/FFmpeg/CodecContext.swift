import CFFmpeg

/// An opened libavcodec decoder or encoder: the owner of its AVCodecContext.
final class CodecContext: @unchecked Sendable {
    let context: UnsafeMutablePointer<AVCodecContext>

    /// A decoder for `stream`.
    /// - Parameters:
    ///   - threads: libavcodec's thread_count; 0 lets it pick one per core.
    ///   - configure: more settings before the open (a hardware device); a negative libav*
    ///     result fails the open.
    convenience init(stream: UnsafeMutablePointer<AVStream>, threads: Int32 = 0,
                     configure: (UnsafeMutablePointer<AVCodecContext>) -> Int32 = { _ in 0 }) throws(MediaError) {
        try self.init(parameters: stream.pointee.codecpar, timeBase: stream.pointee.time_base, threads: threads, configure: configure)
    }

    /// A decoder for a stream of these parameters and time base.
    init(parameters: UnsafePointer<AVCodecParameters>, timeBase: AVRational, threads: Int32 = 0,
         configure: (UnsafeMutablePointer<AVCodecContext>) -> Int32 = { _ in 0 }) throws(MediaError) {
        let codecName = parameters.pointee.codec_id == AV_CODEC_ID_NONE
            ? "unknown codec '\(fourCC(parameters.pointee.codec_tag))'"
            : String(cString: avcodec_get_name(parameters.pointee.codec_id))
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw MediaError(input: codecName, reason: "no decoder for this codec")
        }
        context = try Self.open(codec, named: codecName) { context in
            let result = avcodec_parameters_to_context(context, parameters)
            context.pointee.pkt_timebase = timeBase
            context.pointee.thread_count = threads
            return result < 0 ? result : configure(context)
        }
    }

    /// An encoder for `codecID`, opened once `configure` has set what it needs (size, format, time base).
    init(encoder codecID: AVCodecID, configure: (UnsafeMutablePointer<AVCodecContext>) -> Void) throws(MediaError) {
        let codecName = String(cString: avcodec_get_name(codecID))
        guard let codec = avcodec_find_encoder(codecID) else {
            throw MediaError(input: codecName, reason: "no encoder for this codec")
        }
        context = try Self.open(codec, named: codecName) { context in
            configure(context)
            return 0
        }
    }

    /// The encoder FFmpeg calls `name` (libx264, h264_nvenc, …), opened once `configure` has set
    /// what it needs; `configure` returns a libav* result, and a negative one fails the open.
    init(encoderNamed name: String, configure: (UnsafeMutablePointer<AVCodecContext>) -> Int32) throws(MediaError) {
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw MediaError(input: name, reason: "not in this FFmpeg")
        }
        context = try Self.open(codec, named: name, setUp: configure)
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&owned)
    }

    /// A context for `codec`, set up by `setUp` (which returns a libav* result) and opened;
    /// freed again if either fails.
    private static func open(_ codec: UnsafePointer<AVCodec>, named name: String,
                             setUp: (UnsafeMutablePointer<AVCodecContext>) -> Int32) throws(MediaError) -> UnsafeMutablePointer<AVCodecContext> {
        guard let context = avcodec_alloc_context3(codec) else {
            throw MediaError(input: name, reason: "out of memory")
        }
        var result = setUp(context)
        if result >= 0 {
            result = avcodec_open2(context, codec, nil)
        }
        if result < 0 {
            var owned: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&owned)
            let role = av_codec_is_encoder(codec) != 0 ? "encoder" : "decoder"
            throw MediaError(input: name, reason: "cannot open \(role): \(FFmpegError(result))")
        }
        return context
    }
}

/// A codec tag as its four characters.
private func fourCC(_ tag: UInt32) -> String {
    let bytes = (0..<4).map { UInt8(truncatingIfNeeded: tag >> ($0 * 8)) }
    return String(decoding: bytes.map { (32...126).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
}
