import CFFmpeg

/// CEA-608 captions that a video stream carries in its pictures (the A53 side data of H.264,
/// HEVC and MPEG-2 broadcast streams), decoded by libavcodec's ccaption decoder as mpv decodes
/// them: in real time, each change of the caption screen a cue, on until the next. They make a
/// subtitle track of their own (mpv's "EIA-608"), offered at the first caption data, as mpv
/// offers it: few streams carry any, and none says so before its pictures are decoded.
///
/// Fed by the video track's decode thread alone; its track is read by the others.
final class ClosedCaptions: @unchecked Sendable {
    let track: SubtitleTrack
    private let decoder: SubtitleDecoder
    /// Told once, at the first caption data.
    private let appeared: @Sendable (SubtitleTrack) -> Void
    private var hasAppeared = false
    private var serial: Int?
    /// One packet and one buffer for every frame's data: nothing allocated per picture.
    private var packet: UnsafeMutablePointer<AVPacket>?
    private let buffer: UnsafeMutablePointer<UInt8>
    private static let bufferSize = 4096

    /// The codecs whose pictures may carry A53 captions.
    static func mayCarry(_ codec: AVCodecID) -> Bool {
        codec == AV_CODEC_ID_H264 || codec == AV_CODEC_ID_HEVC || codec == AV_CODEC_ID_MPEG2VIDEO
    }

    /// nil, with one warning, when libavcodec has no caption decoder.
    init?(appeared: @escaping @Sendable (SubtitleTrack) -> Void) {
        var parameters = avcodec_parameters_alloc()
        defer { avcodec_parameters_free(&parameters) }
        guard let parameters, let packet = av_packet_alloc() else { return nil }
        parameters.pointee.codec_type = AVMEDIA_TYPE_SUBTITLE
        parameters.pointee.codec_id = AV_CODEC_ID_EIA_608
        do {
            decoder = try SubtitleDecoder(parameters: parameters, timeBase: AVRational(num: 1, den: 1_000_000)) { context in
                av_opt_set(context, "real_time", "1", AV_OPT_SEARCH_CHILDREN)
            }
        } catch {
            var unused: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&unused)
            Log.subtitle.warning("no closed captions: \(error.input): \(error.reason)")
            return nil
        }
        self.packet = packet
        // libavcodec reads up to AV_INPUT_BUFFER_PADDING_SIZE past the data: zeroed.
        buffer = .allocate(capacity: Self.bufferSize + Int(AV_INPUT_BUFFER_PADDING_SIZE))
        buffer.initialize(repeating: 0, count: Self.bufferSize + Int(AV_INPUT_BUFFER_PADDING_SIZE))
        track = SubtitleTrack(description: SubtitleTrackDescription(streamIndex: nil, path: nil, codec: "eia_608", language: nil,
                                                                    title: "Closed captions", isDefault: false))
        self.appeared = appeared
    }

    deinit {
        av_packet_free(&packet)
        buffer.deallocate()
    }

    /// The caption data of `frame` (decoded and timed), when it has any, into the track.
    func take(_ frame: Frame) {
        guard let side = av_frame_get_side_data(frame.avFrame, AV_FRAME_DATA_A53_CC), let packet else { return }
        let size = min(Int(side.pointee.size), Self.bufferSize)
        guard size > 0 else { return }
        if frame.serial != serial {
            // A seek: what was half received belongs to another place.
            if serial != nil { decoder.flush() }
            serial = frame.serial
        }
        if !hasAppeared {
            hasAppeared = true
            appeared(track)
        }
        buffer.update(from: side.pointee.data, count: size)
        (buffer + size).update(repeating: 0, count: Int(AV_INPUT_BUFFER_PADDING_SIZE))
        packet.pointee.data = buffer
        packet.pointee.size = Int32(size)
        packet.pointee.pts = Int64((frame.mediaPts * 1_000_000).rounded())
        packet.pointee.dts = packet.pointee.pts
        if let decoded = decoder.decode(packet) { track.take(decoded) }
        packet.pointee.data = nil
        packet.pointee.size = 0
    }
}
