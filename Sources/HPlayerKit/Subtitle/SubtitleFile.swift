import CFFmpeg
import CHPlayerShim

/// A subtitle stream read whole: an external subtitle file (`--sub-file`: SubRip, WebVTT, ASS,
/// … whatever libavformat reads), or a stream of a media file for a snapshot. Such streams are
/// small, and a mistake in one is then told before playback starts.
enum SubtitleFile {
    /// `streamNumber`: which of its subtitle streams, from 1; nil: the one marked default, else
    /// the first that is text. `codepage`: a text file's character encoding, nil for UTF-8.
    static func load(path: String, streamNumber: Int? = nil, codepage: String? = nil) throws(MediaError) -> SubtitleTrack {
        let container = InputContainer(url: path)
        try container.open(fullAnalysis: false)
        defer { container.close() }
        let subtitleStreams = container.streams.filter { $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_SUBTITLE }
        guard !subtitleStreams.isEmpty else { throw MediaError(input: path, reason: "no subtitles in it") }
        let stream: UnsafeMutablePointer<AVStream>
        if let streamNumber {
            guard subtitleStreams.indices.contains(streamNumber - 1) else {
                throw MediaError(input: path, reason: "no subtitle track \(streamNumber) (\(subtitleStreams.count) in all)")
            }
            stream = subtitleStreams[streamNumber - 1]
        } else {
            let text = subtitleStreams.filter(isText)
            stream = text.first { $0.pointee.disposition & AV_DISPOSITION_DEFAULT != 0 } ?? text.first ?? subtitleStreams[0]
        }
        let decoder: SubtitleDecoder
        do {
            decoder = try SubtitleDecoder(stream: stream, codepage: codepage)
        } catch {
            throw MediaError(input: path, reason: "\(error.input): \(error.reason)")
        }
        for other in container.streams where other != stream { other.pointee.discard = AVDISCARD_ALL }
        let language = MediaProbe.metadata(stream.pointee.metadata, "language")
        let fonts = FontAttachments.fonts(in: container.streams)
        let track = SubtitleTrack(description: SubtitleTrackDescription(
            streamIndex: nil, path: path, codec: String(cString: avcodec_get_name(stream.pointee.codecpar.pointee.codec_id)),
            language: language, title: nil, isDefault: false),
            script: decoder.header.map { SubtitleScript(header: $0, fonts: fonts) } ?? .plainText)
        var allocated = av_packet_alloc()
        defer { av_packet_free(&allocated) }
        guard let packet = allocated else { throw MediaError(input: path, reason: "out of memory") }
        while true {
            let result = container.read(into: packet)
            if result == hp_averror_eof() { break }
            guard result >= 0 else { throw MediaError(input: path, reason: "cannot read: \(FFmpegError(result))") }
            if packet.pointee.stream_index == stream.pointee.index, let decoded = decoder.decode(packet) { track.take(decoded) }
            av_packet_unref(packet)
        }
        return track
    }

    private static func isText(_ stream: UnsafeMutablePointer<AVStream>) -> Bool {
        avcodec_descriptor_get(stream.pointee.codecpar.pointee.codec_id).map { $0.pointee.props & AV_CODEC_PROP_TEXT_SUB != 0 } ?? false
    }
}
