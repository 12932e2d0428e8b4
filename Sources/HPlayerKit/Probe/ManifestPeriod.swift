/// A DASH Period as `hplayer probe` lists it.
public struct ManifestPeriod: Codable, Equatable, Sendable {
    public var id: String?
    /// Seconds from the presentation's start.
    public var start: Double
    /// Seconds; nil when the manifest does not say (a live Period).
    public var duration: Double?
    public var adaptationSets: [ManifestAdaptationSet]
}

/// A DASH AdaptationSet: one kind of content, its Representations the encodings of it.
public struct ManifestAdaptationSet: Codable, Equatable, Sendable {
    /// "video", "audio", "text" or "other".
    public var contentType: String
    public var language: String?
    public var roles: [String]
    /// The protection schemes named ("cenc", "Widevine"…); empty when in the clear.
    public var protections: [String]
    public var representations: [ManifestRepresentation]
}

/// A DASH Representation.
public struct ManifestRepresentation: Codable, Equatable, Sendable {
    public var id: String
    /// Bits per second, as the manifest declares it.
    public var bandwidth: Int
    public var width: Int?
    public var height: Int?
    public var frameRate: Double?
    public var codecs: [String]
    /// Fetched now: the video played, the sound played alongside.
    public var isPlaying: Bool
}
