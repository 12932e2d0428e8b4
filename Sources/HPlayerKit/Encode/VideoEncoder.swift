import CFFmpeg
import CHPlayerShim

/// An opened H.264 encoder (libx264, or a hardware one) and what brings decoded pictures to
/// it: a scaler when the size or format differs, an upload for a VAAPI encoder. Opened on one
/// thread, then used by one encode thread only.
final class VideoEncoder: @unchecked Sendable {
    /// FFmpeg's name for the encoder that runs: libx264, h264_nvenc, h264_vaapi.
    let name: String
    private let codec: CodecContext
    var context: UnsafeMutablePointer<AVCodecContext> { codec.context }
    /// Frames per second; the encoder's time base is its inverse, so a frame's pts is its number.
    let frameRate: AVRational
    /// Clockwise degrees a player must turn the picture: the stream's display matrix.
    let rotation: Int
    private let hardwareFrames: HardwareFrames?
    private var scaler: ScaleContext?
    /// The picture scaled or converted for the encoder; its buffers are kept from frame to frame.
    private let converted = Frame(isConversionTarget: true)
    private let packet: UnsafeMutablePointer<AVPacket>

    private init(name: String, codec: CodecContext, frameRate: AVRational, rotation: Int, hardwareFrames: HardwareFrames?) {
        self.name = name
        self.codec = codec
        self.frameRate = frameRate
        self.rotation = rotation
        self.hardwareFrames = hardwareFrames
        guard let packet = av_packet_alloc() else { fatalError("av_packet_alloc: out of memory") }
        self.packet = packet
    }

    deinit {
        var owned: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&owned)
    }

    /// The first encoder of those `hardware` asks for that opens, libx264 last; with a line for
    /// each that did not (`notes`).
    static func open(hardware: HardwareEncoder, settings: VideoEncodeSettings, width: Int32, height: Int32,
                     frameRate: AVRational, globalHeader: Bool) throws(MediaError) -> (encoder: VideoEncoder, notes: [String]) {
        let order: [HardwareEncoder] = switch hardware {
        case .auto: [.nvenc, .vaapi, .no]
        case .nvenc: [.nvenc, .no]
        case .vaapi: [.vaapi, .no]
        case .no: [.no]
        }
        var notes: [String] = []
        for kind in order {
            do {
                let encoder = try open(kind, settings: settings, width: width, height: height,
                                       frameRate: frameRate, globalHeader: globalHeader)
                return (encoder, notes)
            } catch {
                if kind == .no { throw error }
                notes.append("\(error.input): \(error.reason)")
            }
        }
        fatalError("libx264 comes last")
    }

    private static func open(_ kind: HardwareEncoder, settings: VideoEncodeSettings, width: Int32, height: Int32,
                             frameRate: AVRational, globalHeader: Bool) throws(MediaError) -> VideoEncoder {
        let name = switch kind {
        case .nvenc: "h264_nvenc"
        case .vaapi: "h264_vaapi"
        case .auto, .no: "libx264"
        }
        let hardwareFrames = kind == .vaapi ? try HardwareFrames(vaapiWidth: width, height: height, encoder: name) : nil
        let keyFrameInterval = settings.keyFrameInterval
            ?? Int((2 * Double(frameRate.num) / Double(max(frameRate.den, 1))).rounded())
        let codec = try CodecContext(encoderNamed: name) { context in
            context.pointee.width = width
            context.pointee.height = height
            context.pointee.time_base = av_inv_q(frameRate)
            context.pointee.framerate = frameRate
            context.pointee.sample_aspect_ratio = settings.sampleAspectRatio > 0 && settings.sampleAspectRatio != 1
                ? av_d2q(settings.sampleAspectRatio, 10_000) : AVRational(num: 1, den: 1)
            context.pointee.pix_fmt = hardwareFrames != nil ? AV_PIX_FMT_VAAPI : AV_PIX_FMT_YUV420P
            context.pointee.gop_size = Int32(clamping: max(keyFrameInterval, 1))
            context.pointee.thread_count = Int32(clamping: settings.threads)
            if let bFrames = settings.bFrames { context.pointee.max_b_frames = Int32(clamping: bFrames) }
            if let bitRate = settings.bitRate { context.pointee.bit_rate = Int64(bitRate) }
            if let level = settings.level, let value = Double(level) { context.pointee.level = Int32((value * 10).rounded()) }
            if globalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
            if let hardwareFrames { context.pointee.hw_frames_ctx = av_buffer_ref(hardwareFrames.frames) }
            let options = context.pointee.priv_data
            var result: Int32 = 0
            func set(_ key: String, _ value: String) {
                if result >= 0 { result = av_opt_set(options, key, value, 0) }
            }
            if let profile = settings.profile { set("profile", profile) }
            switch kind {
            case .auto, .no:
                set("preset", settings.preset)
                if settings.isZeroLatency { set("tune", "zerolatency") }
                if settings.bitRate == nil { set("crf", String(settings.crf)) }
                // Key frames at the interval only: scene cuts would add some, and variants
                // encoded apart would then not cut at the same frames. One asked for is an IDR.
                set("x264-params", "scenecut=0")
                set("forced-idr", "1")
            case .nvenc:
                set("forced-idr", "1")
                if settings.isZeroLatency { set("zerolatency", "1") }
                if settings.bitRate == nil { set("cq", String(Int(settings.crf.rounded()))) }
            case .vaapi:
                if settings.bitRate == nil { set("qp", String(Int(settings.crf.rounded()))) }
            }
            return result
        }
        return VideoEncoder(name: name, codec: codec, frameRate: frameRate, rotation: settings.rotation, hardwareFrames: hardwareFrames)
    }

    /// Encodes `frame` as picture number `pts` (an IDR when `isKeyFrame`: a segment starts there)
    /// and hands each packet that comes out to `deliver` (its pts and dts in the encoder's time
    /// base); nil drains the encoder.
    func encode(_ frame: UnsafeMutablePointer<AVFrame>?, pts: Int64, isKeyFrame: Bool = false,
                deliver: (UnsafeMutablePointer<AVPacket>) throws(MediaError) -> Void) throws(MediaError) {
        var input: UnsafeMutablePointer<AVFrame>? = nil
        if let frame {
            let picture = try prepared(frame)
            picture.pointee.pts = pts
            // Not the decoded picture's own type: an I from the source would force a key frame.
            picture.pointee.pict_type = isKeyFrame ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
            input = picture
        }
        let sent = avcodec_send_frame(context, input)
        guard sent >= 0 else { throw MediaError(input: name, reason: "cannot encode: \(FFmpegError(sent))") }
        while true {
            let received = avcodec_receive_packet(context, packet)
            if received == hp_averror_eagain() || received == hp_averror_eof() { return }
            guard received >= 0 else { throw MediaError(input: name, reason: "cannot encode: \(FFmpegError(received))") }
            defer { av_packet_unref(packet) }
            // One picture lasts one tick of the time base (1 / frame rate); libx264 leaves it 0.
            if packet.pointee.duration <= 0 { packet.pointee.duration = 1 }
            try deliver(packet)
        }
    }

    /// `frame` as the encoder takes it: itself, or scaled to the encoder's size (a source that
    /// changes size mid-stream, a smaller rendition), or uploaded to the GPU.
    private func prepared(_ frame: UnsafeMutablePointer<AVFrame>) throws(MediaError) -> UnsafeMutablePointer<AVFrame> {
        let targetFormat = hardwareFrames?.softwareFormat ?? AV_PIX_FMT_YUV420P
        var picture = frame
        if frame.pointee.width != context.pointee.width || frame.pointee.height != context.pointee.height
            || frame.pointee.format != targetFormat.rawValue {
            try convert(frame, to: targetFormat)
            picture = converted.avFrame
        }
        guard let hardwareFrames else { return picture }
        return try hardwareFrames.upload(picture, encoder: name)
    }

    private func convert(_ frame: UnsafeMutablePointer<AVFrame>, to format: AVPixelFormat) throws(MediaError) {
        let target = converted.avFrame
        do {
            if target.pointee.buf.0 == nil {
                target.pointee.width = context.pointee.width
                target.pointee.height = context.pointee.height
                target.pointee.format = format.rawValue
                try FFmpegError.check(av_frame_get_buffer(target, 0))
            } else {
                // The encoder may still hold the last picture: a new buffer then, else this one.
                try FFmpegError.check(av_frame_make_writable(target))
            }
            if scaler == nil || !(scalerSource == SourceShape(frame)) {
                scaler = try ScaleContext(like: frame, width: context.pointee.width, height: context.pointee.height,
                                          format: format, flags: SWS_BICUBIC)
                scalerSource = SourceShape(frame)
            }
            try scaler!.scale(frame, into: converted)
        } catch {
            throw MediaError(input: name, reason: "cannot convert the picture: \(error)")
        }
    }

    /// The size and format the scaler was made for: a new one is made when they change.
    private struct SourceShape: Equatable {
        var width: Int32
        var height: Int32
        var format: Int32
        init(_ frame: UnsafeMutablePointer<AVFrame>) {
            width = frame.pointee.width
            height = frame.pointee.height
            format = frame.pointee.format
        }
    }
    private var scalerSource: SourceShape?
}
