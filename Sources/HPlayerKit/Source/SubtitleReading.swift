import CFFmpeg

/// A subtitle stream as the read loop reads it: its decoder, and the track its cues go to.
struct SubtitleStreamReader {
    let streamIndex: Int32
    let decoder: SubtitleDecoder
    let track: SubtitleTrack
}

/// Subtitles (read thread). Their packets are few and tiny, so they are decoded as they are
/// read, with no queue or thread of their own, and every stream is read, not only the one
/// shown: a switch of subtitle track then shows the new one's cues at once, with no seek.
extension FFmpegSource {
    /// A track for each subtitle stream, in the file's order; one libavcodec cannot decode is
    /// listed but not read.
    func makeSubtitleTracks(info: MediaInfo) -> [SubtitleTrack] {
        var made: [SubtitleTrack] = []
        let fonts = FontAttachments.fonts(in: container.streams)
        for (position, stream) in container.streams.enumerated() where stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_SUBTITLE {
            let index = Int32(position)
            let streamInfo = info.streams.first { $0.index == Int(index) }
            let description = SubtitleTrackDescription(streamIndex: Int(index), path: nil, codec: streamInfo?.codec ?? "unknown",
                                                       language: streamInfo?.language, title: streamInfo?.title,
                                                       isDefault: streamInfo?.isDefault ?? false)
            do {
                let decoder = try SubtitleDecoder(stream: stream)
                let track = SubtitleTrack(description: description,
                                          script: decoder.header.map { SubtitleScript(header: $0, fonts: fonts) } ?? .plainText)
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

    /// The captions a video stream of `codec` may carry, told to the delegate at the first
    /// (from the decode thread).
    func makeCaptions(codec: AVCodecID) -> ClosedCaptions? {
        guard ClosedCaptions.mayCarry(codec) else { return nil }
        let delegate = self.delegate
        return ClosedCaptions { [weak self, weak delegate] track in
            guard let self else { return }
            delegate?.source(self, didFindCaptions: track)
        }
    }

    /// A track for each text rendition the segment stream names (a DASH text set), read
    /// alongside by a reader of its own; numbered after the file's subtitle streams.
    func startTextRenditions() -> [SubtitleTrack] {
        // A stream left to libavformat is not read by ours: its renditions could not be placed.
        guard let stream = container.segmentStream, stream.unsupportedFeature == nil else { return [] }
        textReaders = stream.textRenditions.map { rendition, url in
            // An HLS rendition names no codec of its own: its segments are WebVTT files (or
            // fMP4 of WebVTT samples), which the reader tells apart.
            let codec = rendition.codecs.first ?? "webvtt"
            let description = SubtitleTrackDescription(
                streamIndex: nil, path: nil, codec: codec.hasPrefix("stpp") ? "ttml" : codec.hasPrefix("wvtt") ? "webvtt" : codec,
                language: rendition.language, title: rendition.name, isDefault: rendition.isDefault)
            return TextRenditionReader(url: url, description: description, network: container.network, startTime: container.startTime,
                                       discontinuity: stream.startDiscontinuity)
        }
        let readers = textReaders
        lock.withLock { openedTextReaders = readers }
        return textReaders.map(\.track)
    }

    /// The text renditions are told where reading is, and a packet waits until their cues for
    /// its time are read (at the start and after a seek; they read ahead of it otherwise), so
    /// that no picture is shown before its cue is known. A rendition later than `textWait`
    /// is no longer waited for, until the next seek: it never holds playback up for long.
    /// Called once `packet` is placed on its stream's timeline: its time there is the cues'.
    func keepTextAhead(of packet: Packet, track: Track) {
        let avPacket = packet.avPacket.pointee
        let stamp = avPacket.pts != noTimestamp ? avPacket.pts : avPacket.dts
        guard stamp != noTimestamp, let seconds = track.timeBase.seconds(stamp + packet.segment.offset - packet.segment.loopOffset) else { return }
        let discontinuity = container.segmentStream?.discontinuityBeingRead
        for reader in textReaders { reader.noteReadPosition(seconds, discontinuity: discontinuity) }
        guard !isTextLate else { return }
        let deadline = MonotonicClock.now() + Self.textWait
        for reader in textReaders where !reader.waitForCues(through: seconds, until: deadline) {
            Log.source.warning("\(url): the subtitles of \(reader.track.description.title ?? "a text rendition") are late; playing on without waiting for them")
            isTextLate = true
            return
        }
    }

    /// A stream's timeline jumped (an HLS discontinuity): the text renditions' WebVTT, stamped
    /// on the media's own timestamps, is shifted with it.
    func noteTimelineJump(_ segment: TimelineSegment, track: Track) {
        guard !textReaders.isEmpty, let discontinuity = container.segmentStream?.discontinuityBeingRead,
              let shift = track.timeBase.seconds(segment.offset - segment.loopOffset) else { return }
        for reader in textReaders { reader.noteTimelineJump(discontinuity: discontinuity, shift: shift) }
    }

    /// How long a packet waits for the text renditions' cues at its time.
    static let textWait = 5.0

    /// Decodes `packet` into its track's cues when it is a subtitle's; false when it is not.
    func readSubtitle(_ packet: UnsafeMutablePointer<AVPacket>) -> Bool {
        guard let reader = subtitleReaders.first(where: { $0.streamIndex == packet.pointee.stream_index }) else { return false }
        if let decoded = reader.decoder.decode(packet) { reader.track.take(decoded) }
        av_packet_unref(packet)
        return true
    }
}
