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
}

public struct StreamInfo: Codable, Equatable, Sendable {
    public var index: Int
    /// video, audio, subtitle, data or attachment.
    public var type: String
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
