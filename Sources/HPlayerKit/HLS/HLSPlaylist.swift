/// An HLS playlist (RFC 8216) as the parser reads it: a master playlist lists variants and
/// renditions, a media playlist lists segments.
public enum HLSPlaylist: Equatable, Sendable {
    case master(HLSMasterPlaylist)
    case media(HLSMediaPlaylist)
}

public struct HLSMasterPlaylist: Equatable, Sendable {
    public var variants: [HLSVariant] = []
    public var renditions: [HLSRendition] = []
    public var hasIndependentSegments = false

    /// The rendition of `variant`'s AUDIO group played by default: the group's DEFAULT=YES one,
    /// else its first AUTOSELECT=YES one, else its first. nil: the variant has no AUDIO group,
    /// or the group lists none. A rendition without a URI is the variant's own sound.
    public func defaultAudioRendition(of variant: HLSVariant) -> HLSRendition? {
        guard let group = variant.audioGroup else { return nil }
        let inGroup = renditions.filter { $0.kind == .audio && $0.groupID == group }
        return inGroup.first(where: \.isDefault) ?? inGroup.first(where: \.autoselect) ?? inGroup.first
    }

    /// The rendition of `variant`'s AUDIO group that follows `current` (the one playing, of
    /// another group) when the stream moves to `variant`: the one of the same language, by the
    /// same name among several; the group's default when none has the language.
    public func audioRendition(of variant: HLSVariant, following current: HLSRendition?) -> HLSRendition? {
        guard let group = variant.audioGroup else { return nil }
        let inGroup = renditions.filter { $0.kind == .audio && $0.groupID == group }
        if let current, let language = current.language {
            let sameLanguage = inGroup.filter { $0.language == language }
            if let same = sameLanguage.first(where: { $0.name == current.name }) ?? sameLanguage.first { return same }
        }
        return defaultAudioRendition(of: variant)
    }

    /// Whether every audio rendition of `variant`'s AUDIO group is a stream of its own (has a
    /// URI): the sound is then read apart from the variant's segments.
    func hasSeparateAudio(_ variant: HLSVariant) -> Bool {
        guard let group = variant.audioGroup else { return false }
        let inGroup = renditions.filter { $0.kind == .audio && $0.groupID == group }
        return !inGroup.isEmpty && inGroup.allSatisfy { $0.uri != nil }
    }
}

/// EXT-X-STREAM-INF: one encoding of the whole presentation.
public struct HLSVariant: Equatable, Sendable {
    public var uri: String
    /// Peak bits per second.
    public var bandwidth: Int
    public var averageBandwidth: Int?
    public var resolution: HLSResolution?
    public var codecs: [String] = []
    public var frameRate: Double?
    public var audioGroup: String?
    public var videoGroup: String?
    public var subtitlesGroup: String?

    public init(uri: String, bandwidth: Int, averageBandwidth: Int? = nil, resolution: HLSResolution? = nil,
                codecs: [String] = [], frameRate: Double? = nil, audioGroup: String? = nil, videoGroup: String? = nil,
                subtitlesGroup: String? = nil) {
        self.uri = uri
        self.bandwidth = bandwidth
        self.averageBandwidth = averageBandwidth
        self.codecs = codecs
        self.frameRate = frameRate
        self.audioGroup = audioGroup
        self.videoGroup = videoGroup
        self.subtitlesGroup = subtitlesGroup
        self.resolution = resolution
    }
}

public struct HLSResolution: Equatable, Sendable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// EXT-X-MEDIA: an alternative rendition (a soundtrack, a language) within a group.
public struct HLSRendition: Equatable, Sendable {
    public enum Kind: String, Sendable { case audio = "AUDIO", video = "VIDEO", subtitles = "SUBTITLES", closedCaptions = "CLOSED-CAPTIONS" }
    public var kind: Kind
    public var groupID: String
    public var name: String
    /// Absent: the rendition is muxed into the variant's own segments.
    public var uri: String?
    public var language: String?
    public var isDefault = false
    public var autoselect = false
    public var channels: String?

    public init(kind: Kind, groupID: String, name: String, uri: String? = nil, language: String? = nil, isDefault: Bool = false,
                autoselect: Bool = false, channels: String? = nil) {
        self.kind = kind
        self.groupID = groupID
        self.name = name
        self.uri = uri
        self.language = language
        self.isDefault = isDefault
        self.autoselect = autoselect
        self.channels = channels
    }
}

public struct HLSMediaPlaylist: Equatable, Sendable {
    public enum PlaylistType: String, Sendable { case vod = "VOD", event = "EVENT" }
    public var targetDuration: Double = 0
    /// The sequence number of the first segment.
    public var mediaSequence = 0
    public var discontinuitySequence = 0
    public var playlistType: PlaylistType?
    /// EXT-X-ENDLIST: no segment will be added (VOD, or a live stream that ended).
    public var hasEndList = false
    public var segments: [HLSSegment] = []

    public var isLive: Bool { !hasEndList && playlistType != .vod }
    public var duration: Double { segments.reduce(0) { $0 + $1.duration } }
}

public struct HLSSegment: Equatable, Sendable {
    public var uri: String
    public var duration: Double
    public var title = ""
    public var sequenceNumber: Int
    /// Counts the discontinuities before it (EXT-X-DISCONTINUITY-SEQUENCE plus those in the playlist).
    public var discontinuitySequence: Int
    /// EXT-X-DISCONTINUITY before it: timestamps and encoding may change here.
    public var isDiscontinuity = false
    public var byteRange: HLSByteRange?
    public var key: HLSKey?
    /// EXT-X-MAP: the initialization section (fMP4/CMAF) its media needs.
    public var map: HLSMap?
    /// EXT-X-PROGRAM-DATE-TIME, as written.
    public var programDateTime: String?

    public init(uri: String, duration: Double, title: String = "", sequenceNumber: Int, discontinuitySequence: Int = 0,
                isDiscontinuity: Bool = false, byteRange: HLSByteRange? = nil, key: HLSKey? = nil, map: HLSMap? = nil,
                programDateTime: String? = nil) {
        self.uri = uri
        self.duration = duration
        self.title = title
        self.sequenceNumber = sequenceNumber
        self.discontinuitySequence = discontinuitySequence
        self.isDiscontinuity = isDiscontinuity
        self.byteRange = byteRange
        self.key = key
        self.map = map
        self.programDateTime = programDateTime
    }
}

/// EXT-X-BYTERANGE: a sub-range of the resource at the URI.
public struct HLSByteRange: Equatable, Sendable {
    public var length: Int64
    public var offset: Int64

    public init(length: Int64, offset: Int64) {
        self.length = length
        self.offset = offset
    }
}

/// EXT-X-KEY: how the segments after it are encrypted.
public struct HLSKey: Equatable, Sendable {
    public enum Method: String, Sendable { case aes128 = "AES-128", sampleAES = "SAMPLE-AES" }
    public var method: Method
    public var uri: String
    /// 16 bytes; absent: the segment's sequence number, big-endian (`iv(forSequence:)`).
    public var iv: [UInt8]?

    public init(method: Method, uri: String, iv: [UInt8]? = nil) {
        self.method = method
        self.uri = uri
        self.iv = iv
    }

    /// The initialization vector for the segment numbered `sequence`.
    public func iv(forSequence sequence: Int) -> [UInt8] {
        if let iv { return iv }
        var bytes = [UInt8](repeating: 0, count: 16)
        var value = UInt64(truncatingIfNeeded: sequence)
        for index in stride(from: 15, through: 8, by: -1) {
            bytes[index] = UInt8(value & 0xff)
            value >>= 8
        }
        return bytes
    }
}

public struct HLSMap: Equatable, Sendable {
    public var uri: String
    public var byteRange: HLSByteRange?

    public init(uri: String, byteRange: HLSByteRange? = nil) {
        self.uri = uri
        self.byteRange = byteRange
    }
}

/// A playlist that cannot be read, with the line that says why.
public struct HLSPlaylistError: Error, Equatable, CustomStringConvertible, Sendable {
    public var line: Int
    public var reason: String
    public var description: String { "playlist line \(line): \(reason)" }
}
