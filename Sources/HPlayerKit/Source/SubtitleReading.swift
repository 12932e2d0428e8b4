import CFFmpeg

/// A text subtitle stream as the read loop reads it: its decoder, and the track its cues go to.
struct SubtitleStreamReader {
    let streamIndex: Int32
    let decoder: SubtitleDecoder
    let track: SubtitleTrack
}

/// Subtitles (read thread). Their packets are few and tiny, so they are decoded as they are
/// read, with no queue or thread of their own, and every text stream is read, not only the one
/// shown: a switch of subtitle track then shows the new one's cues at once, with no seek.
extension FFmpegSource {
    /// A track for each subtitle stream, in the file's order; bitmap ones are listed but not read.
    func makeSubtitleTracks(info: MediaInfo) -> [SubtitleTrack] {
        var made: [SubtitleTrack] = []
        for (position, stream) in container.streams.enumerated() where stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_SUBTITLE {
            let index = Int32(position)
            let streamInfo = info.streams.first { $0.index == Int(index) }
            let description = SubtitleTrackDescription(streamIndex: Int(index), path: nil, codec: streamInfo?.codec ?? "unknown",
                                                       language: streamInfo?.language, title: streamInfo?.title,
                                                       isDefault: streamInfo?.isDefault ?? false)
            do {
                let decoder = try SubtitleDecoder(stream: stream)
                let track = SubtitleTrack(description: description)
                subtitleReaders.append(SubtitleStreamReader(streamIndex: index, decoder: decoder, track: track))
                stream.pointee.discard = AVDISCARD_DEFAULT
                made.append(track)
            } catch {
                stream.pointee.discard = AVDISCARD_ALL
                made.append(SubtitleTrack(description: description, unsupportedReason: "\(error.input): \(error.reason)"))
            }
        }
        return made
    }

    /// Decodes `packet` into its track's cues when it is a subtitle's; false when it is not.
    func readSubtitle(_ packet: UnsafeMutablePointer<AVPacket>) -> Bool {
        guard let reader = subtitleReaders.first(where: { $0.streamIndex == packet.pointee.stream_index }) else { return false }
        if let cue = reader.decoder.decode(packet) { reader.track.add(cue) }
        av_packet_unref(packet)
        return true
    }
}
