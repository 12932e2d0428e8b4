/// An HLS playlist (RFC 8216) as the parser reads it: a master playlist lists variants and
/// renditions, a media playlist lists segments.
package enum HLSPlaylist: Equatable, Sendable {
    case master(HLSMasterPlaylist)
    case media(HLSMediaPlaylist)
}

package struct HLSMasterPlaylist: Equatable, Sendable {
    package var variants: [HLSVariant] = []
    package var renditions: [HLSRendition] = []
    package var hasIndependentSegments = false

    /// The rendition of `variant`'s AUDIO group played by default: the group's DEFAULT=YES one,
    /// else its first AUTOSELECT=YES one, else its first. nil: the variant has no AUDIO group,
    /// or the group lists none. A rendition without a URI is the variant's own sound.
    package func defaultAudioRendition(of variant: HLSVariant) -> HLSRendition? {
        guard let group = variant.audioGroup else { return nil }
        let inGroup = renditions.filter { $0.kind == .audio && $0.groupID == group }
        return inGroup.first(where: \.isDefault) ?? inGroup.first(where: \.autoselect) ?? inGroup.first
    }

    /// The rendition of `variant`'s AUDIO group of the first language in `languages` it has
    /// (`--alang`), else its default.
    package func audioRendition(of variant: HLSVariant, languages: [String]) -> HLSRendition? {
        guard let group = variant.audioGroup else { return nil }
        let inGroup = renditions.filter { $0.kind == .audio && $0.groupID == group }
        if let chosen = TrackLanguage.choose(among: inGroup.map(\.language), preferences: languages) { return inGroup[chosen] }
        return defaultAudioRendition(of: variant)
    }

    /// The rendition of `variant`'s AUDIO group that follows `current` (the one playing, of
    /// another group) when the stream moves to `variant`: the one of the same language, by the
    /// same name among several; the group's default when none has the language.
    package func audioRendition(of variant: HLSVariant, following current: HLSRendition?) -> HLSRendition? {
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
package struct HLSVariant: Equatable, Sendable {
    package var uri: String
    /// Peak bits per second.
    package var bandwidth: Int
    package var averageBandwidth: Int?
    package var resolution: HLSResolution?
    package var codecs: [String] = []
    package var frameRate: Double?
    package var audioGroup: String?
    package var videoGroup: String?
    package var subtitlesGroup: String?

    package init(uri: String, bandwidth: Int, averageBandwidth: Int? = nil, resolution: HLSResolution? = nil,
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

package struct HLSResolution: Equatable, Sendable {
    package var width: Int
    package var height: Int

    package init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// EXT-X-MEDIA: an alternative rendition (a soundtrack, a language) within a group.
package struct HLSRendition: Equatable, Sendable {
    package enum Kind: String, Sendable { case audio = "AUDIO", video = "VIDEO", subtitles = "SUBTITLES", closedCaptions = "CLOSED-CAPTIONS" }
    package var kind: Kind
    package var groupID: String
    package var name: String
    /// Absent: the rendition is muxed into the variant's own segments.
    package var uri: String?
    package var language: String?
    package var isDefault = false
    package var autoselect = false
    package var channels: String?
    /// What a DASH text set's samples are ("wvtt", "stpp"); an HLS rendition's codecs are its variant's.
    package var codecs: [String] = []

    package init(kind: Kind, groupID: String, name: String, uri: String? = nil, language: String? = nil, isDefault: Bool = false,
                autoselect: Bool = false, channels: String? = nil, codecs: [String] = []) {
        self.kind = kind
        self.groupID = groupID
        self.name = name
        self.uri = uri
        self.language = language
        self.isDefault = isDefault
        self.autoselect = autoselect
        self.channels = channels
        self.codecs = codecs
    }
}

package struct HLSMediaPlaylist: Equatable, Sendable {
    package enum PlaylistType: String, Sendable { case vod = "VOD", event = "EVENT" }
    package var targetDuration: Double = 0
    /// The sequence number of the first segment.
    package var mediaSequence = 0
    package var discontinuitySequence = 0
    package var playlistType: PlaylistType?
    /// EXT-X-ENDLIST: no segment will be added (VOD, or a live stream that ended).
    package var hasEndList = false
    package var segments: [HLSSegment] = []
    /// Live: how far behind the live edge playback starts and keeps (a DASH latency target);
    /// nil: three target durations.
    package var holdBack: Double?
    /// Live, where the manifest's clock says: how far past the last listed segment's end the
    /// live edge is now (a DASH segment is listed once it has all been made). Playback then
    /// starts `holdBack` behind the live edge itself, within a segment, not at a segment's start.
    package var liveEdgeLead: Double?

    package var isLive: Bool { !hasEndList && playlistType != .vod }
    package var duration: Double { segments.reduce(0) { $0 + $1.duration } }
}

package struct HLSSegment: Equatable, Sendable {
    package var uri: String
    package var duration: Double
    package var title = ""
    package var sequenceNumber: Int
    /// Counts the discontinuities before it (EXT-X-DISCONTINUITY-SEQUENCE plus those in the playlist).
    package var discontinuitySequence: Int
    /// EXT-X-DISCONTINUITY before it: timestamps and encoding may change here.
    package var isDiscontinuity = false
    package var byteRange: HLSByteRange?
    package var key: HLSKey?
    /// EXT-X-MAP: the initialization section (fMP4/CMAF) its media needs.
    package var map: HLSMap?
    /// EXT-X-PROGRAM-DATE-TIME, as written.
    package var programDateTime: String?
    /// The same bytes elsewhere, tried in order when `uri` fails (a DASH manifest's further BaseURLs).
    package var mirrors: [String] = []
    /// Seconds added to its media's timestamps: a later DASH Period's, whose media times start
    /// anew (its start less its presentationTimeOffset, from the first Period's). A segment of
    /// another offset than the one before begins a new section.
    package var timeOffset = 0.0

    package init(uri: String, duration: Double, title: String = "", sequenceNumber: Int, discontinuitySequence: Int = 0,
                isDiscontinuity: Bool = false, byteRange: HLSByteRange? = nil, key: HLSKey? = nil, map: HLSMap? = nil,
                programDateTime: String? = nil, mirrors: [String] = [], timeOffset: Double = 0) {
        self.uri = uri
        self.mirrors = mirrors
        self.timeOffset = timeOffset
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
package struct HLSByteRange: Equatable, Sendable {
    package var length: Int64
    package var offset: Int64

    package init(length: Int64, offset: Int64) {
        self.length = length
        self.offset = offset
    }
}

/// EXT-X-KEY: how the segments after it are encrypted.
package struct HLSKey: Equatable, Sendable {
    /// SAMPLE-AES-CTR: fMP4 samples in Common Encryption (cenc), decrypted by the demuxer with
    /// the key of the initialization section's key ID; the URI, when it is one, names a
    /// ClearKey license server.
    package enum Method: String, Sendable { case aes128 = "AES-128", sampleAES = "SAMPLE-AES", sampleAESCTR = "SAMPLE-AES-CTR" }
    package var method: Method
    package var uri: String
    /// 16 bytes; absent: the segment's sequence number, big-endian (`iv(forSequence:)`).
    package var iv: [UInt8]?

    package init(method: Method, uri: String, iv: [UInt8]? = nil) {
        self.method = method
        self.uri = uri
        self.iv = iv
    }

    /// The initialization vector for the segment numbered `sequence`.
    package func iv(forSequence sequence: Int) -> [UInt8] {
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

package struct HLSMap: Equatable, Sendable {
    package var uri: String
    package var byteRange: HLSByteRange?
    /// The same bytes elsewhere, tried in order when `uri` fails (a DASH manifest's further BaseURLs).
    package var mirrors: [String] = []

    package init(uri: String, byteRange: HLSByteRange? = nil, mirrors: [String] = []) {
        self.uri = uri
        self.byteRange = byteRange
        self.mirrors = mirrors
    }
}

/// A playlist that cannot be read, with the line that says why.
package struct HLSPlaylistError: Error, Equatable, CustomStringConvertible, Sendable {
    package var line: Int
    package var reason: String
    package var description: String { "playlist line \(line): \(reason)" }
}
