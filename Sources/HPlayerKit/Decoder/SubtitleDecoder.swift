import CFFmpeg
import CHPlayerShim

/// A subtitle decoder: each packet to a cue, timed from the packet. Text formats (SubRip, ASS,
/// mov_text, WebVTT, …) give their plain text and their ASS event (libavcodec converts every
/// text format to ASS); bitmap formats (PGS, DVB, DVD, XSUB) give their picture.
final class SubtitleDecoder {
    private let codec: CodecContext
    private let timeBase: TimeBase
    /// The stream is ASS or SSA: its events keep their ReadOrder, and its header is its own.
    private let isASS: Bool
    /// The stream is a bitmap format: its cues are pictures.
    private let isBitmap: Bool
    /// The ASS script header its cues are drawn with; nil for HPlayer's (a text format).
    let header: String?

    /// What one packet gives.
    enum Decoded: Equatable {
        case cue(SubtitleCue)
        /// The cue showing ends here (a bitmap format's empty picture).
        case clear(at: Double)
    }

    /// `codepage`: the character encoding of a text format's bytes (iconv's names: cp1252,
    /// latin1, shift_jis…), converted to UTF-8 before decoding; nil for UTF-8.
    convenience init(stream: UnsafeMutablePointer<AVStream>, codepage: String? = nil) throws(MediaError) {
        let isText = avcodec_descriptor_get(stream.pointee.codecpar.pointee.codec_id).map { $0.pointee.props & AV_CODEC_PROP_TEXT_SUB != 0 } ?? false
        try self.init(parameters: stream.pointee.codecpar, timeBase: stream.pointee.time_base) { context in
            guard let codepage, isText else { return 0 }
            context.pointee.sub_charenc = av_strdup(codepage)
            return context.pointee.sub_charenc == nil ? hp_averror(ENOMEM) : 0
        }
    }

    /// A decoder of a stream of these parameters, its packets timed in `timeBase`; `configure`
    /// sets the decoder's options before it opens.
    init(parameters: UnsafePointer<AVCodecParameters>, timeBase avTimeBase: AVRational,
         configure: (UnsafeMutablePointer<AVCodecContext>) -> Int32 = { _ in 0 }) throws(MediaError) {
        let codecID = parameters.pointee.codec_id
        codec = try CodecContext(parameters: parameters, timeBase: avTimeBase, threads: 1, configure: configure)
        timeBase = TimeBase(avTimeBase)
        isASS = codecID == AV_CODEC_ID_ASS || codecID == AV_CODEC_ID_SSA
        isBitmap = avcodec_descriptor_get(codecID).map { $0.pointee.props & AV_CODEC_PROP_BITMAP_SUB != 0 } ?? false
        let context = codec.context.pointee
        if isASS, let bytes = context.subtitle_header, context.subtitle_header_size > 0 {
            header = String(decoding: UnsafeBufferPointer(start: bytes, count: Int(context.subtitle_header_size)), as: UTF8.self)
        } else {
            header = nil
        }
    }

    /// Forgets what it was building (a seek: a caption half received).
    func flush() {
        avcodec_flush_buffers(codec.context)
    }

    /// The size a bitmap format's positions count in, when the stream has told it (a PGS
    /// presentation's, a DVD .idx's size line); nil before then, or for text.
    private var canvas: PictureSize? {
        let context = codec.context.pointee
        return context.width > 0 && context.height > 0 ? PictureSize(width: Int(context.width), height: Int(context.height)) : nil
    }

    /// The cue in `packet`, or the end of the one showing; nil when it holds neither (an empty
    /// sample between text cues, as mov_text writes, that the next cue's start ends anyway) or
    /// cannot be decoded.
    func decode(_ packet: UnsafeMutablePointer<AVPacket>) -> Decoded? {
        let ticks = packet.pointee.pts != noTimestamp ? packet.pointee.pts : packet.pointee.dts
        guard let packetStart = timeBase.seconds(ticks) else { return nil }
        var subtitle = AVSubtitle()
        var hasSubtitle: Int32 = 0
        let result = avcodec_decode_subtitle2(codec.context, &subtitle, &hasSubtitle, packet)
        guard result >= 0, hasSubtitle != 0 else { return nil }
        defer { avsubtitle_free(&subtitle) }
        let start = packetStart + Double(subtitle.start_display_time) / 1000
        if isBitmap {
            guard let bitmaps = SubtitleBitmaps.make(from: subtitle, canvas: canvas) else { return .clear(at: start) }
            return .cue(SubtitleCue(start: start, end: end(of: subtitle, packet: packet, start: packetStart), text: "", bitmaps: bitmaps))
        }
        var lines: [String] = []
        var events: [String] = []
        for index in 0..<Int(subtitle.num_rects) {
            guard let rect = subtitle.rects[index]?.pointee else { continue }
            switch rect.type {
            case SUBTITLE_ASS:
                guard let ass = rect.ass else { continue }
                let event = String(cString: ass)
                let text = SubtitleText.plain(fromASSEvent: event)
                if !text.isEmpty { lines.append(text) }
                // A line of drawing alone has no text, and is still drawn.
                events.append(isASS ? event : ASSScript.withoutReadOrder(event))
            case SUBTITLE_TEXT:
                guard let text = rect.text.map({ String(cString: $0) }), !text.isEmpty else { continue }
                lines.append(text)
                events.append(ASSScript.event(plainText: text))
            default:
                continue
            }
        }
        guard !events.isEmpty else { return nil }
        // libavcodec gives one rectangle a packet for text formats; ASS in Matroska one event a packet.
        return .cue(SubtitleCue(start: start, end: end(of: subtitle, packet: packet, start: packetStart),
                                text: lines.joined(separator: "\n"), event: events.joined(separator: "\n")))
    }

    /// The packet's duration, else the subtitle's own end; `.infinity` when neither is known
    /// (a PGS display set lasts until the next).
    private func end(of subtitle: AVSubtitle, packet: UnsafeMutablePointer<AVPacket>, start packetStart: Double) -> Double {
        if packet.pointee.duration > 0, let duration = timeBase.seconds(packet.pointee.duration) {
            return packetStart + duration
        }
        if subtitle.end_display_time > subtitle.start_display_time, subtitle.end_display_time != UInt32.max {
            return packetStart + Double(subtitle.end_display_time) / 1000
        }
        return .infinity
    }
}
