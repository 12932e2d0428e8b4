import CFFmpeg

/// Reads what a media file holds.
public enum MediaProbe {
    /// Opens `url` just far enough to describe it; an http(s) URL is fetched as `network` says.
    public static func probe(url: String, network: NetworkOptions = NetworkOptions()) throws(MediaError) -> MediaInfo {
        let container = InputContainer(url: url, network: network)
        try container.open(fullAnalysis: true)
        defer { container.close() }
        var info = info(of: container)
        if let codec = AnnexBSummary.Codec(rawValue: info.container), !NetworkOptions.isHTTP(url) {
            info.annexB = AnnexBSummary.read(path: url, codec: codec)
        }
        return info
    }

    static func info(of container: InputContainer) -> MediaInfo {
        guard let context = container.context else {
            return MediaInfo(url: container.url, container: "", containerLongName: "", duration: nil, startTime: 0, bitRate: nil, streams: [])
        }
        let format = context.pointee.iformat.pointee
        return MediaInfo(
            url: container.url,
            container: String(cString: format.name),
            containerLongName: format.long_name.map { String(cString: $0) } ?? "",
            duration: container.duration,
            startTime: container.startTime,
            bitRate: context.pointee.bit_rate > 0 ? Int(context.pointee.bit_rate) : nil,
            streams: container.streams.enumerated().map { streamInfo($1, index: $0) },
            variants: container.variants,
            periods: container.segmentStream?.manifestPeriods,
            tags: tags(of: context),
            chapters: chapters(of: context, startTime: container.startTime),
            liveHoldBack: container.segmentStream?.liveHoldBack
        )
    }

    /// The container's tags; where it has none of its own, an only audio stream's (an Ogg or
    /// Opus file keeps them there, and mpv shows them as the file's).
    static func tags(of context: UnsafeMutablePointer<AVFormatContext>) -> [MetadataTag] {
        let own = tags(context.pointee.metadata)
        guard own.isEmpty else { return own }
        let streams = (0..<Int(context.pointee.nb_streams)).compactMap { context.pointee.streams[$0] }
        let audio = streams.filter { $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO }
        return audio.count == 1 ? tags(audio[0].pointee.metadata) : []
    }

    static func tags(_ dictionary: OpaquePointer?) -> [MetadataTag] {
        var tags: [MetadataTag] = []
        var entry: UnsafeMutablePointer<AVDictionaryEntry>?
        while let next = av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
            tags.append(MetadataTag(key: String(cString: next.pointee.key), value: String(cString: next.pointee.value)))
            entry = next
        }
        return tags
    }

    /// In the player's time, which counts from the file's start.
    static func chapters(of context: UnsafeMutablePointer<AVFormatContext>, startTime: Double) -> [Chapter] {
        (0..<Int(context.pointee.nb_chapters)).compactMap { index in
            guard let chapter = context.pointee.chapters[index] else { return nil }
            let timeBase = chapter.pointee.time_base
            return Chapter(start: Double(chapter.pointee.start) * timeBase.seconds - startTime,
                           end: Double(chapter.pointee.end) * timeBase.seconds - startTime,
                           title: metadata(chapter.pointee.metadata, "title"))
        }
    }

    /// - Parameter index: the stream's place in its container's `streams`.
    static func streamInfo(_ stream: UnsafeMutablePointer<AVStream>, index: Int) -> StreamInfo {
        let parameters = stream.pointee.codecpar.pointee
        let codecDescriptor = avcodec_descriptor_get(parameters.codec_id)
        var info = StreamInfo(
            index: index,
            type: av_get_media_type_string(parameters.codec_type).flatMap { StreamType(rawValue: String(cString: $0)) } ?? .unknown,
            codec: String(cString: avcodec_get_name(parameters.codec_id)),
            codecLongName: codecDescriptor?.pointee.long_name.map { String(cString: $0) },
            profile: avcodec_profile_name(parameters.codec_id, parameters.profile).map { String(cString: $0) },
            bitRate: parameters.bit_rate > 0 ? Int(parameters.bit_rate) : nil,
            language: metadata(stream.pointee.metadata, "language"),
            title: metadata(stream.pointee.metadata, "title"),
            isDefault: stream.pointee.disposition & AV_DISPOSITION_DEFAULT != 0,
            isAttachedPicture: stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0
        )
        switch parameters.codec_type {
        case AVMEDIA_TYPE_VIDEO:
            info.width = Int(parameters.width)
            info.height = Int(parameters.height)
            let aspect = stream.pointee.sample_aspect_ratio.num > 0 ? stream.pointee.sample_aspect_ratio : parameters.sample_aspect_ratio
            info.sampleAspectRatio = aspect.num > 0 ? "\(aspect.num):\(aspect.den)" : "1:1"
            info.rotation = rotation(of: stream)
            let rate = stream.pointee.avg_frame_rate.num > 0 ? stream.pointee.avg_frame_rate : stream.pointee.r_frame_rate
            info.frameRate = rate.num > 0 && rate.den > 0 ? (rate.seconds * 1000).rounded() / 1000 : nil
            info.pixelFormat = av_get_pix_fmt_name(AVPixelFormat(rawValue: parameters.format)).map { String(cString: $0) }
        case AVMEDIA_TYPE_AUDIO:
            info.sampleRate = Int(parameters.sample_rate)
            info.channels = Int(parameters.ch_layout.nb_channels)
            info.channelLayout = channelLayoutName(parameters.ch_layout)
            info.sampleFormat = av_get_sample_fmt_name(AVSampleFormat(rawValue: parameters.format)).map { String(cString: $0) }
        default:
            break
        }
        return info
    }

    /// Clockwise degrees from the stream's display matrix, 0 when it has none.
    static func rotation(of stream: UnsafeMutablePointer<AVStream>) -> Int {
        guard let matrix = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, nil) else { return 0 }
        let counterClockwise = matrix.withMemoryRebound(to: Int32.self, capacity: 9) { av_display_rotation_get($0) }
        guard counterClockwise.isFinite else { return 0 }
        let clockwise = Int((-counterClockwise).rounded()) % 360
        return clockwise < 0 ? clockwise + 360 : clockwise
    }

    static func metadata(_ dictionary: OpaquePointer?, _ key: String) -> String? {
        guard let entry = av_dict_get(dictionary, key, nil, 0) else { return nil }
        return String(cString: entry.pointee.value)
    }

    private static func channelLayoutName(_ layout: AVChannelLayout) -> String? {
        var layout = layout
        var buffer = [CChar](repeating: 0, count: 128)
        guard av_channel_layout_describe(&layout, &buffer, buffer.count) > 0 else { return nil }
        return String(cBuffer: buffer)
    }
}
