import CFFmpeg

/// libavcodec's parsers, run by the container where libavformat's are turned off (`noparse`):
/// live MPEG-TS (InputContainer).
///
/// libavformat's H.264 and HEVC parsers end an access unit only when they see the next one
/// begin. That is a frame interval after it arrived, on top of the interval the TS demuxer has
/// already waited for the next PES to end this one. A TS PES carries whole access units (as
/// encoders write them; H.222.0 does not require it), so here pictures are parsed as complete
/// frames, for their headers only (which are key frames), and go on at once: a frame interval
/// less latency. A stream found to split its pictures over PES packets is parsed fully. Sound is
/// split into its frames (a PES may carry several) as libavformat would. A packet the parser
/// passes through whole goes on as it is, uncopied.
final class StreamParsers {
    /// By stream index, made at a stream's first packet; nil for a stream not parsed (subtitles,
    /// data, a codec with no parser).
    private var parsers: [Int32: PacketParser?] = [:]
    /// Frames parsed and not yet read, oldest first, and emptied packets to reuse.
    private var pending: [UnsafeMutablePointer<AVPacket>] = []
    private var spares: [UnsafeMutablePointer<AVPacket>] = []
    private var isFlushed = false

    init() {
        pending.reserveCapacity(64)
        spares.reserveCapacity(64)
    }

    deinit {
        for packet in pending + spares {
            var freed: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&freed)
        }
    }

    /// Parses `packet`, of `stream`, into the frames it holds, queued for `takeNext`; false
    /// (`packet` untouched) for a stream not parsed.
    func parse(_ packet: UnsafeMutablePointer<AVPacket>, of stream: UnsafeMutablePointer<AVStream>) -> Bool {
        let index = packet.pointee.stream_index
        if parsers[index] == nil { parsers[index] = .some(PacketParser(stream: stream)) }
        guard let parser = parsers[index] ?? nil else { return false }
        isFlushed = false
        parser.parse(packet, stream: index, emit: queue)
        return true
    }

    /// At the end of the input, once: what the parsers still hold.
    func flush() {
        guard !isFlushed else { return }
        isFlushed = true
        for (index, parser) in parsers.sorted(by: { $0.key < $1.key }) { parser?.flush(stream: index, emit: queue) }
    }

    /// Moves the oldest parsed frame into `packet`; false when none is left.
    func takeNext(into packet: UnsafeMutablePointer<AVPacket>) -> Bool {
        guard !pending.isEmpty else { return false }
        let next = pending.removeFirst()
        av_packet_move_ref(packet, next)
        spares.append(next)
        return true
    }

    /// A seek: nothing parsed before it goes on, and no parser joins old bytes to new.
    func reset() {
        while !pending.isEmpty {
            let packet = pending.removeFirst()
            av_packet_unref(packet)
            spares.append(packet)
        }
        for parser in parsers.values { parser?.reset() }
        isFlushed = false
    }

    /// Queues a frame: `make` fills an empty packet.
    private func queue(_ make: (UnsafeMutablePointer<AVPacket>) -> Bool) {
        guard let packet = spares.popLast() ?? av_packet_alloc() else { return }
        if make(packet) {
            pending.append(packet)
        } else {
            av_packet_unref(packet)
            spares.append(packet)
        }
    }
}

/// libavcodec's parser for one stream (see `StreamParsers`).
private final class PacketParser {
    private var parser: UnsafeMutablePointer<AVCodecParserContext>
    private let codec: UnsafeMutablePointer<AVCodecContext>
    private let codecID: AVCodecID
    /// The stream's parameters (the container's, alive as long as it is open and this is).
    private let parameters: UnsafeMutablePointer<AVCodecParameters>
    private let isAudio: Bool
    private let timeBase: AVRational
    /// Where the last frame given ends, in the stream's time base: the timestamp of a frame the
    /// parser gives none (the second frame of a PES).
    private var nextTimestamp = noTimestamp
    /// Pictures are taken as the complete frames their PES packets carry, until a PES comes
    /// without a timestamp: it continues the picture before (an encoder that splits pictures
    /// over PES packets), and the stream is parsed as libavformat does from then on.
    private var takesWholePictures: Bool
    /// The duration of the last picture read: the one flushed at the end has no packet to give it.
    private var lastDuration: Int64 = 0

    init?(stream: UnsafeMutablePointer<AVStream>) {
        guard let parameters = stream.pointee.codecpar else { return nil }
        let type = parameters.pointee.codec_type
        guard type == AVMEDIA_TYPE_VIDEO || type == AVMEDIA_TYPE_AUDIO,
              let parser = av_parser_init(Int32(truncatingIfNeeded: parameters.pointee.codec_id.rawValue)) else { return nil }
        var made = avcodec_alloc_context3(nil)
        guard let codec = made, avcodec_parameters_to_context(codec, parameters) >= 0 else {
            avcodec_free_context(&made)
            av_parser_close(parser)
            return nil
        }
        self.parser = parser
        self.codec = codec
        codecID = parameters.pointee.codec_id
        self.parameters = parameters
        isAudio = type == AVMEDIA_TYPE_AUDIO
        timeBase = stream.pointee.time_base
        takesWholePictures = !isAudio
        if takesWholePictures { parser.pointee.flags |= PARSER_FLAG_COMPLETE_FRAMES }
    }

    deinit {
        av_parser_close(parser)
        var freed: UnsafeMutablePointer<AVCodecContext>? = codec
        avcodec_free_context(&freed)
    }

    /// A fresh parser: what the old one held is dropped.
    func reset() {
        guard let fresh = av_parser_init(Int32(truncatingIfNeeded: codecID.rawValue)) else { return }
        if takesWholePictures { fresh.pointee.flags |= PARSER_FLAG_COMPLETE_FRAMES }
        av_parser_close(parser)
        parser = fresh
        nextTimestamp = noTimestamp
    }

    func parse(_ input: UnsafeMutablePointer<AVPacket>, stream: Int32, emit: ((UnsafeMutablePointer<AVPacket>) -> Bool) -> Void) {
        defer { av_packet_unref(input) }
        if takesWholePictures, input.pointee.pts == noTimestamp, input.pointee.dts == noTimestamp {
            takesWholePictures = false
            reset()
            Log.source.info("MPEG-TS stream \(stream) splits its pictures over PES packets: they are joined by libavformat's parser, a frame interval later")
        }
        var data = input.pointee.data
        var size = input.pointee.size
        var pts = input.pointee.pts
        var dts = input.pointee.dts
        while size > 0 {
            var frame: UnsafeMutablePointer<UInt8>?
            var frameSize: Int32 = 0
            let used = av_parser_parse2(parser, codec, &frame, &frameSize, data, size, pts, dts, input.pointee.pos)
            guard used >= 0 else { return }
            pts = noTimestamp
            dts = noTimestamp
            data = data.map { $0 + Int(used) }
            size -= used
            if let frame, frameSize > 0 {
                emit { packet in self.fill(packet, frame: frame, size: frameSize, from: input, stream: stream, takesInput: size == 0) }
            } else if used == 0 {
                return  // neither consumed nor given: nothing more comes of this packet
            }
        }
    }

    /// At the end of the input: the frame the parser holds, if any.
    func flush(stream: Int32, emit: ((UnsafeMutablePointer<AVPacket>) -> Bool) -> Void) {
        var frame: UnsafeMutablePointer<UInt8>?
        var frameSize: Int32 = 0
        _ = av_parser_parse2(parser, codec, &frame, &frameSize, nil, 0, noTimestamp, noTimestamp, -1)
        guard let frame, frameSize > 0 else { return }
        emit { packet in fill(packet, frame: frame, size: frameSize, from: nil, stream: stream, takesInput: false) }
    }

    /// Makes `packet` the frame of `size` bytes at `frame`: `input` itself when it is the whole of
    /// it (moved: no copy), else a copy; with the parser's timestamps and key frame, as
    /// libavformat's parse_packet gives them.
    private func fill(_ packet: UnsafeMutablePointer<AVPacket>, frame: UnsafeMutablePointer<UInt8>, size: Int32,
                      from input: UnsafeMutablePointer<AVPacket>?, stream: Int32, takesInput: Bool) -> Bool {
        let duration = input?.pointee.duration ?? lastDuration
        lastDuration = duration
        let wasKey = (input?.pointee.flags ?? 0) & AV_PKT_FLAG_KEY != 0
        let corrupt = (input?.pointee.flags ?? 0) & AV_PKT_FLAG_CORRUPT
        if let input, takesInput, frame == input.pointee.data, size == input.pointee.size {
            av_packet_move_ref(packet, input)
        } else {
            guard av_new_packet(packet, size) >= 0 else { return false }
            packet.pointee.data.update(from: frame, count: Int(size))
            if let input, input.pointee.side_data_elems > 0 {
                // The side data goes with the first frame only, as libavformat gives it.
                guard av_packet_copy_props(packet, input) >= 0 else { return false }
                av_packet_free_side_data(input)
            }
        }
        packet.pointee.stream_index = stream
        packet.pointee.pts = parser.pointee.pts
        packet.pointee.dts = parser.pointee.dts
        packet.pointee.pos = parser.pointee.pos
        packet.pointee.flags = corrupt
        if isAudio {
            // The parser's duration, else the codec's frame size (AAC's parser gives none): as libavformat.
            let rate = codec.pointee.sample_rate
            let samples = parser.pointee.duration > 0 ? parser.pointee.duration : av_get_audio_frame_duration2(parameters, size)
            packet.pointee.duration = rate > 0 && samples > 0
                ? av_rescale_q_rnd(Int64(samples), AVRational(num: 1, den: rate), timeBase, AV_ROUND_DOWN) : 0
            packet.pointee.flags |= AV_PKT_FLAG_KEY
            // The second frame of a PES has no timestamp of its own: it follows the first.
            if packet.pointee.pts == noTimestamp, packet.pointee.dts == noTimestamp, nextTimestamp != noTimestamp {
                packet.pointee.pts = nextTimestamp
                packet.pointee.dts = nextTimestamp
            }
            // As libavformat runs on: by the duration given, the parser's rounded to the time
            // base, the frame size's exact.
            let start = packet.pointee.pts != noTimestamp ? packet.pointee.pts : packet.pointee.dts
            if start == noTimestamp || packet.pointee.duration <= 0 {
                nextTimestamp = noTimestamp
            } else if parser.pointee.duration > 0 {
                nextTimestamp = start + packet.pointee.duration
            } else {
                nextTimestamp = av_add_stable(timeBase, start, AVRational(num: samples, den: rate), 1)
            }
        } else {
            packet.pointee.duration = duration
            let keyFrame = parser.pointee.key_frame
            let pictureType = parser.pointee.pict_type
            if keyFrame == 1 || (keyFrame == -1 && pictureType == AV_PICTURE_TYPE_I.rawValue)
                || (keyFrame == -1 && pictureType == AV_PICTURE_TYPE_NONE.rawValue && wasKey) {
                packet.pointee.flags |= AV_PKT_FLAG_KEY
            }
        }
        return true
    }
}
