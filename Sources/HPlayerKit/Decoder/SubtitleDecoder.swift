import CFFmpeg

/// A text subtitle decoder (SubRip, ASS, mov_text, WebVTT, …): each packet to a cue of plain
/// text, timed from the packet. Bitmap formats (PGS, DVD) are refused at creation.
final class SubtitleDecoder {
    private let codec: CodecContext
    private let timeBase: TimeBase

    init(stream: UnsafeMutablePointer<AVStream>) throws(MediaError) {
        let codecID = stream.pointee.codecpar.pointee.codec_id
        let codecName = String(cString: avcodec_get_name(codecID))
        guard let descriptor = avcodec_descriptor_get(codecID), descriptor.pointee.props & AV_CODEC_PROP_TEXT_SUB != 0 else {
            throw MediaError(input: codecName, reason: "bitmap subtitles are not supported")
        }
        codec = try CodecContext(stream: stream, threads: 1)
        timeBase = TimeBase(stream.pointee.time_base)
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
        for index in 0..<Int(subtitle.num_rects) {
            guard let rect = subtitle.rects[index]?.pointee else { continue }
            let text: String
            switch rect.type {
            case SUBTITLE_ASS: text = rect.ass.map { SubtitleText.plain(fromASSEvent: String(cString: $0)) } ?? ""
            case SUBTITLE_TEXT: text = rect.text.map { String(cString: $0) } ?? ""
            default: continue
            }
            if !text.isEmpty { lines.append(text) }
        }
        guard !lines.isEmpty else { return nil }
        let start = packetStart + Double(subtitle.start_display_time) / 1000
        let end: Double
        if packet.pointee.duration > 0, let duration = timeBase.seconds(packet.pointee.duration) {
            end = packetStart + duration
        } else if subtitle.end_display_time > subtitle.start_display_time, subtitle.end_display_time != UInt32.max {
            end = packetStart + Double(subtitle.end_display_time) / 1000
        } else {
            end = .infinity
        }
        return SubtitleCue(start: start, end: end, text: lines.joined(separator: "\n"))
    }
}
