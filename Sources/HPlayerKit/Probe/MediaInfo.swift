/// What a media file holds, as `hplayer probe` prints it and the prepared event carries it.
public struct MediaInfo: Codable, Equatable, Sendable {
    public var url: String
    public var container: String
    public var containerLongName: String
    /// Seconds, nil when unknown (a live stream).
    public var duration: Double?
    public var startTime: Double
    /// Bits per second, nil when unknown.
    public var bitRate: Int?
    public var streams: [StreamInfo]
    /// An HLS master playlist's variants, in its order, the one playing marked; nil otherwise.
    public var variants: [VariantInfo]? = nil
    /// The file's tags, in its order.
    public var tags: [MetadataTag] = []
    public var chapters: [Chapter] = []
    /// A raw H.264 file's NAL units, parameter sets and IDRs, by our own parser.
    package var annexB: AnnexBSummary? = nil
    /// A live HLS playlist: the seconds behind its live edge that playback began at and keeps to.
    public var liveHoldBack: Double? = nil
}

/// One variant of an HLS master playlist.
public struct VariantInfo: Codable, Equatable, Sendable {
    /// Peak bits per second, as the playlist declares it.
    public var bandwidth: Int
    public var width: Int?
    public var height: Int?
    public var codecs: [String]
    public var isPlaying: Bool

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

    public init(from decoder: any Swift.Decoder) throws {
        self = StreamType(rawValue: try decoder.singleValueContainer().decode(String.self)) ?? .unknown
    }
}

public struct StreamInfo: Codable, Equatable, Sendable {
    public var index: Int
    public var type: StreamType
    public var codec: String
    public var codecLongName: String?
    public var profile: String?
    public var bitRate: Int?
    public var language: String?
    public var title: String?
    public var isDefault: Bool
    /// A cover picture rather than a moving video.
    public var isAttachedPicture: Bool
    // Video
    public var width: Int?
    public var height: Int?
    /// "num:den".
    public var sampleAspectRatio: String?
    /// Clockwise degrees the picture must be turned to display upright (0, 90, 180, 270).
    public var rotation: Int?
    public var frameRate: Double?
    public var pixelFormat: String?
    // Audio
    public var sampleRate: Int?
    public var channels: Int?
    public var channelLayout: String?
    public var sampleFormat: String?
}
