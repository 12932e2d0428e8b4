import CFFmpeg
import CHPlayerShim

/// An external subtitle file (`--sub-file`: SubRip, WebVTT, ASS, … whatever libavformat reads),
/// read whole when it is added: such files are small, and a mistake in one is then told before
/// playback starts.
enum SubtitleFile {
    static func load(path: String) throws(MediaError) -> SubtitleTrack {
        let container = InputContainer(url: path)
        try container.open(fullAnalysis: false)
        defer { container.close() }
        guard let stream = container.streams.first(where: { $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_SUBTITLE }) else {
            throw MediaError(input: path, reason: "no subtitles in it")
        }
        let decoder: SubtitleDecoder
        do {
            decoder = try SubtitleDecoder(stream: stream)
        } catch {
            throw MediaError(input: path, reason: "\(error.input): \(error.reason)")
        }
        for other in container.streams where other != stream { other.pointee.discard = AVDISCARD_ALL }
        let language = MediaProbe.metadata(stream.pointee.metadata, "language")
        let track = SubtitleTrack(description: SubtitleTrackDescription(
            streamIndex: nil, path: path, codec: String(cString: avcodec_get_name(stream.pointee.codecpar.pointee.codec_id)),
            language: language, title: nil, isDefault: false))
        var allocated = av_packet_alloc()
        defer { av_packet_free(&allocated) }
        guard let packet = allocated else { throw MediaError(input: path, reason: "out of memory") }
        while true {
            let result = container.read(into: packet)
            if result == hp_averror_eof() { break }
            guard result >= 0 else { throw MediaError(input: path, reason: "cannot read: \(FFmpegError(result))") }
            if packet.pointee.stream_index == stream.pointee.index, let cue = decoder.decode(packet) { track.add(cue) }
            av_packet_unref(packet)
        }
        return track
    }
}
