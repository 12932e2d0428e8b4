import CFFmpeg

/// A text subtitle decoder (SubRip, ASS, mov_text, WebVTT, …): each packet to a cue, timed from
/// the packet, with its plain text and its ASS event (libavcodec converts every text format to
/// ASS). Bitmap formats (PGS, DVD) are refused at creation.
final class SubtitleDecoder {
    private let codec: CodecContext
    private let timeBase: TimeBase
    /// The stream is ASS or SSA: its events keep their ReadOrder, and its header is its own.
    private let isASS: Bool
    /// The ASS script header its cues are drawn with; nil for HPlayer's (a text format).
    let header: String?

    init(stream: UnsafeMutablePointer<AVStream>) throws(MediaError) {
        let codecID = stream.pointee.codecpar.pointee.codec_id
        let codecName = String(cString: avcodec_get_name(codecID))
        guard let descriptor = avcodec_descriptor_get(codecID), descriptor.pointee.props & AV_CODEC_PROP_TEXT_SUB != 0 else {
            throw MediaError(input: codecName, reason: "bitmap subtitles are not supported")
        }
        codec = try CodecContext(stream: stream, threads: 1)
        timeBase = TimeBase(stream.pointee.time_base)
        isASS = codecID == AV_CODEC_ID_ASS || codecID == AV_CODEC_ID_SSA
        let context = codec.context.pointee
        if isASS, let bytes = context.subtitle_header, context.subtitle_header_size > 0 {
            header = String(decoding: UnsafeBufferPointer(start: bytes, count: Int(context.subtitle_header_size)), as: UTF8.self)
        } else {
            header = nil
        }
    }

    /// The cue in `packet`; nil when it holds none (an empty sample that ends the one before,
    /// as mov_text writes between cues) or cannot be decoded.
    func decode(_ packet: UnsafeMutablePointer<AVPacket>) -> SubtitleCue? {
        let ticks = packet.pointee.pts != noTimestamp ? packet.pointee.pts : packet.pointee.dts
        guard let packetStart = timeBase.seconds(ticks) else { return nil }
        var subtitle = AVSubtitle()
        var hasSubtitle: Int32 = 0
        let result = avcodec_decode_subtitle2(codec.context, &subtitle, &hasSubtitle, packet)
        guard result >= 0, hasSubtitle != 0 else { return nil }
        defer { avsubtitle_free(&subtitle) }
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
        let start = packetStart + Double(subtitle.start_display_time) / 1000
        let end: Double
        if packet.pointee.duration > 0, let duration = timeBase.seconds(packet.pointee.duration) {
            end = packetStart + duration
        } else if subtitle.end_display_time > subtitle.start_display_time, subtitle.end_display_time != UInt32.max {
            end = packetStart + Double(subtitle.end_display_time) / 1000
        } else {
            end = .infinity
        }
        // libavcodec gives one rectangle a packet for text formats; ASS in Matroska one event a packet.
        return SubtitleCue(start: start, end: end, text: lines.joined(separator: "\n"), event: events.joined(separator: "\n"))
    }
}
