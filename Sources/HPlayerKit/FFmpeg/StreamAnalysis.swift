import CFFmpeg

/// Whether opening needs libavformat's stream analysis (avformat_find_stream_info), which reads
/// ahead and decodes a frame of each stream: 60 ms of a 1080p start.
///
/// An MP4 or QuickTime header already gives every stream's codec, picture size, sample rate,
/// channels and start, which is all playback needs (the decoders report pixel and sample formats
/// themselves). Other containers, and a header missing any of these, get the analysis; so does
/// the probe, which reports the bit rates and profiles only the analysis finds.
package enum StreamAnalysis {
    /// What a container's header says of one stream, before any analysis.
    package struct StreamHeader: Equatable, Sendable {
        /// nil: neither video nor audio (data, subtitles), which playback does not need.
        package var kind: MediaKind?
        package var isCodecKnown: Bool
        package var width = 0
        package var height = 0
        package var sampleRate = 0
        package var channelCount = 0
        package var hasStartTime: Bool

        package init(kind: MediaKind?, isCodecKnown: Bool, width: Int = 0, height: Int = 0, sampleRate: Int = 0,
                    channelCount: Int = 0, hasStartTime: Bool) {
            self.kind = kind
            self.isCodecKnown = isCodecKnown
            self.width = width
            self.height = height
            self.sampleRate = sampleRate
            self.channelCount = channelCount
            self.hasStartTime = hasStartTime
        }
    }

    /// libavformat's name of the containers whose headers are trusted.
    static let completeHeaderFormats: Set<String> = ["mov,mp4,m4a,3gp,3g2,mj2"]

    package static func isNeeded(formatName: String, streams: [StreamHeader]) -> Bool {
        guard completeHeaderFormats.contains(formatName),
              streams.contains(where: { $0.kind != nil }) else { return true }
        return streams.contains { stream in
            switch stream.kind {
            case .video:
                return !stream.isCodecKnown || stream.width <= 0 || stream.height <= 0 || !stream.hasStartTime
            case .audio:
                return !stream.isCodecKnown || stream.sampleRate <= 0 || stream.channelCount <= 0 || !stream.hasStartTime
            case nil:
                return false
            }
        }
    }

    static func header(of stream: UnsafeMutablePointer<AVStream>) -> StreamHeader {
        let parameters = stream.pointee.codecpar.pointee
        let kind: MediaKind? = switch parameters.codec_type {
        case AVMEDIA_TYPE_VIDEO: .video
        case AVMEDIA_TYPE_AUDIO: .audio
        default: nil
        }
        return StreamHeader(kind: kind, isCodecKnown: parameters.codec_id != AV_CODEC_ID_NONE,
                            width: Int(parameters.width), height: Int(parameters.height),
                            sampleRate: Int(parameters.sample_rate), channelCount: Int(parameters.ch_layout.nb_channels),
                            hasStartTime: stream.pointee.start_time != noTimestamp)
    }
}
