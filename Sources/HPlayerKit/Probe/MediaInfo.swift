/// What a media file holds, as `hplayer probe` prints it and the prepared event carries it.
public struct MediaInfo: Codable, Equatable, Sendable {
    /// The media: a path or URL, as given.
    public var url: String
    /// libavformat's short name of the format ("mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm", "hls").
    public var container: String
    /// libavformat's long name of the format ("QuickTime / MOV").
    public var containerLongName: String
    /// Seconds, nil when unknown (a live stream).
    public var duration: Double?
    /// The timestamp, in seconds, of the media's first frame: positions and chapters count from it.
    public var startTime: Double
    /// Bits per second, nil when unknown.
    public var bitRate: Int?
    /// Every stream of the file, in its order, played or not.
    public var streams: [StreamInfo]
    /// An HLS master playlist's variants, in its order, the one playing marked; nil otherwise.
    /// A DASH manifest's are its first video AdaptationSet's Representations.
    public var variants: [VariantInfo]? = nil
    /// A DASH manifest's Periods, AdaptationSets and Representations, those fetched marked;
    /// nil for anything else.
    public var periods: [ManifestPeriod]? = nil
    /// The file's tags, in its order.
    public var tags: [MetadataTag] = []
    /// The file's chapters, in its order; empty when it has none.
    public var chapters: [Chapter] = []
    /// A raw H.264 file's NAL units, parameter sets and IDRs, by our own parser.
    package var annexB: AnnexBSummary? = nil
    /// A live HLS playlist or DASH manifest: the seconds behind its live edge that playback began at and keeps to.
    public var liveHoldBack: Double? = nil
}

/// One variant of an HLS master playlist.
public struct VariantInfo: Codable, Equatable, Sendable {
    /// Peak bits per second, as the playlist declares it.
    public var bandwidth: Int
    /// The picture width the playlist declares (RESOLUTION); nil when it declares none.
    public var width: Int?
    /// The picture height the playlist declares.
    public var height: Int?
    /// The codecs the playlist declares (CODECS), as RFC 6381 strings ("avc1.64001f", "mp4a.40.2").
    public var codecs: [String]
    /// The variant fetched now.
    public var isPlaying: Bool

    /// A variant, as the fields say.
    public init(bandwidth: Int, width: Int?, height: Int?, codecs: [String], isPlaying: Bool) {
        self.bandwidth = bandwidth
        self.width = width
        self.height = height
        self.codecs = codecs
        self.isPlaying = isPlaying
    }

    /// "960x540 1.8 Mb/s", as the window's notice and the logs say it.
    public var summary: String {
        let rate = DecimalText.fixed(Double(bandwidth) / 1_000_000, places: 1) + " Mb/s"
        guard let width, let height else { return rate }
        return "\(width)x\(height) \(rate)"
    }
}

extension MediaInfo {
    /// The streams of `type` in the file's order: what `--vid`, `--aid` and `--sid` number from 1.
    public func streams(of type: StreamType) -> [StreamInfo] { streams.filter { $0.type == type } }
}

/// What a stream carries, in libavutil's words.
public enum StreamType: String, Codable, Equatable, Sendable {
    case video, audio, subtitle, data, attachment, unknown

    /// Reads the raw value; a name this version does not know reads as `unknown`.
    public init(from decoder: any Swift.Decoder) throws {
        self = StreamType(rawValue: try decoder.singleValueContainer().decode(String.self)) ?? .unknown
    }
}

/// One stream of a file, as libavformat describes it; the fields of another kind are nil.
public struct StreamInfo: Codable, Equatable, Sendable {
    /// The container's index of the stream, from 0 (what `playingStreams` holds).
    public var index: Int
    /// What the stream carries.
    public var type: StreamType
    /// libavcodec's short name of the codec ("h264", "aac", "subrip").
    public var codec: String
    /// libavcodec's long name of the codec.
    public var codecLongName: String?
    /// The codec profile ("High", "LC"), when the codec has profiles and the stream names one.
    public var profile: String?
    /// Bits per second, when the container says.
    public var bitRate: Int?
    /// The language tag, as the file has it (ISO 639-2, "eng").
    public var language: String?
    /// The title tag.
    public var title: String?
    /// The file marks the stream as the default of its kind.
    public var isDefault: Bool
    /// A cover picture rather than a moving video.
    public var isAttachedPicture: Bool
    // Video
    /// Coded width in pixels, before the aspect ratio and rotation are applied.
    public var width: Int?
    /// Coded height in pixels.
    public var height: Int?
    /// "num:den".
    public var sampleAspectRatio: String?
    /// Clockwise degrees the picture must be turned to display upright (0, 90, 180, 270).
    public var rotation: Int?
    /// Frames per second: the average rate, else the base rate; nil when neither is known.
    public var frameRate: Double?
    /// libavutil's name of the pixel format ("yuv420p").
    public var pixelFormat: String?
    // Audio
    /// Samples per second.
    public var sampleRate: Int?
    /// The channel count.
    public var channels: Int?
    /// libavutil's name of the layout ("stereo", "5.1").
    public var channelLayout: String?
    /// libavutil's name of the sample format ("fltp", "s16").
    public var sampleFormat: String?
}
