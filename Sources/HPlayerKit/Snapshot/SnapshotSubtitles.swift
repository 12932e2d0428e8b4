/// The subtitles `hplayer snapshot --subs` draws on its frame: an external file's, else one of
/// the media's own streams.
public struct SnapshotSubtitles: Sendable, Equatable {
    /// `--sub-file`: drawn in place of the media's own.
    public var file: String?
    /// `--sid`: the media's subtitle stream, numbered from 1; nil: the one marked default, else
    /// the first text one.
    public var stream: Int?
    /// `--sub-scale`, `--sub-pos`, `--sub-font`, `--sub-font-size`.
    public var style: SubtitleStyle

    public init(file: String? = nil, stream: Int? = nil, style: SubtitleStyle = SubtitleStyle()) {
        self.file = file
        self.stream = stream
        self.style = style
    }

    /// The track, read whole; an external file's times count from the media's `startTime`.
    func load(media url: String, startTime: Double) throws(MediaError) -> SubtitleTrack {
        guard let file else { return try SubtitleFile.load(path: url, streamNumber: stream) }
        let track = try SubtitleFile.load(path: file)
        track.setOffset(startTime)
        return track
    }
}
