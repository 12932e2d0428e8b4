/// What a segmented stream's manifests are written in. A front end reads a manifest into the
/// stream's model: a presentation (`.master`: variants, and renditions played alongside) or one
/// variant's timeline of segments (`.media`). Everything else (fetching segments, failover,
/// sections, live waits, the bitrate policy, the cache layout) is the stream's, whatever the
/// format. Called on the stream's read thread.
protocol ManifestFrontEnd: AnyObject {
    /// The manifest at `url`, fetched through `stream` (`fetchDocument`, `fetchRange`).
    /// `isReload`: a live one read again as it is played, never from the cache.
    /// Whether a stream this client cannot read (`SegmentStream.unsupportedFeature`) is left to
    /// libavformat's own client for the format, rather than refused.
    var leavesUnreadToLibavformat: Bool { get }
    /// Whether a live manifest's newest segments are worked out from a clock rather than listed
    /// once written: one not found yet is then waited for.
    var publishesSegmentsByClock: Bool { get }

    func read(_ url: String, isReload: Bool, through stream: SegmentStream) throws(MediaError) -> HLSPlaylist
}
