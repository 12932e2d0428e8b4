import CFFmpeg
import CHPlayerShim

/// What a decoder says after being handed a packet or asked for a frame.
enum DecoderStatus: Equatable {
    case ok
    /// EAGAIN: send more input (after receive) or take frames out first (after send).
    case needsIO
    /// Fully drained.
    case endOfStream
    case failed(FFmpegError)
}

/// The send/receive contract of libavcodec, behind a protocol so a hardware decoder (or a test's
/// fake) can take the software one's place.
protocol Decoder: AnyObject {
    /// Hands one packet to the decoder; nil starts draining.
    func send(_ packet: UnsafeMutablePointer<AVPacket>?) -> DecoderStatus
    /// Takes the next decoded frame into `frame`.
    func receive(into frame: UnsafeMutablePointer<AVFrame>) -> DecoderStatus
    /// Drops everything buffered (after a seek).
    func flush()
    /// Skips decoding the packets that no other frame refers to (those before an exact seek's target).
    var skipsNonReferenceFrames: Bool { get set }
    /// The frame rate the bitstream's parameter sets give (H.264's VUI timing, HEVC's VPS or
    /// VUI), once the decoder has read them; nil when they give none.
    var frameRate: Double? { get }
    /// What the library said of the last failure, in its words, where the decoder kept it.
    var failureDetail: String? { get }
}

extension Decoder {
    var failureDetail: String? { nil }
}

/// FFmpeg software decoding.
final class SoftwareDecoder: Decoder {
    private let codec: CodecContext

    /// - Parameters:
    ///   - threads: libavcodec's thread count; 0 (mpv's `--vd-lavc-threads` default) picks one per core.
    ///   - slicesOnly: threads on the slices of a picture only (live mode): frame threads each
    ///     hold a picture back, a frame interval of latency apiece.
    convenience init(stream: UnsafeMutablePointer<AVStream>, threads: Int = 0, slicesOnly: Bool = false) throws(MediaError) {
        try self.init(parameters: StreamParameters(stream), threads: threads, slicesOnly: slicesOnly)
    }

    /// A decoder of a stream's kept parameters (the stream itself may be gone).
    init(parameters: StreamParameters, threads: Int, slicesOnly: Bool = false) throws(MediaError) {
        codec = try CodecContext(parameters: parameters.parameters, timeBase: parameters.timeBase, threads: Int32(clamping: threads)) { context in
            if slicesOnly { context.pointee.thread_type = FF_THREAD_SLICE }
            return 0
        }
    }

    var context: UnsafeMutablePointer<AVCodecContext> { codec.context }

    func send(_ packet: UnsafeMutablePointer<AVPacket>?) -> DecoderStatus {
        Self.status(avcodec_send_packet(codec.context, packet))
    }

    func receive(into frame: UnsafeMutablePointer<AVFrame>) -> DecoderStatus {
        Self.status(avcodec_receive_frame(codec.context, frame))
    }

    func flush() { avcodec_flush_buffers(codec.context) }

    var frameRate: Double? {
        let rate = codec.context.pointee.framerate
        return rate.num > 0 && rate.den > 0 ? Double(rate.num) / Double(rate.den) : nil
    }

    var skipsNonReferenceFrames = false {
        didSet {
            // Frame threads take it over with each packet sent.
            codec.context.pointee.skip_frame = skipsNonReferenceFrames ? AVDISCARD_NONREF : AVDISCARD_DEFAULT
        }
    }

    static func status(_ result: Int32) -> DecoderStatus {
        switch result {
        case 0...: return .ok
        case hp_averror_eagain(): return .needsIO
        case hp_averror_eof(): return .endOfStream
        default: return .failed(FFmpegError(result))
        }
    }
}
