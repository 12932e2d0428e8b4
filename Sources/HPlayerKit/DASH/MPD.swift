/// An MPEG-DASH manifest (ISO/IEC 23009-1) as MPDParser reads it: every inherited attribute,
/// BaseURL and segment description already pushed down to the Representation that uses it, so
/// that each Representation stands alone. Times in seconds; wall-clock times in seconds since
/// 1970.
package struct MPD: Equatable, Sendable {
    /// `type="dynamic"`: a live presentation, reloaded every `minimumUpdatePeriod`.
    package var isDynamic = false
    package var mediaPresentationDuration: Double?
    package var availabilityStartTime: Double?
    package var timeShiftBufferDepth: Double?
    package var suggestedPresentationDelay: Double?
    package var minimumUpdatePeriod: Double?
    package var minBufferTime: Double?
    /// ServiceDescription's `Latency@target`, seconds.
    package var latencyTarget: Double?
    package var utcTimings: [MPDUTCTiming] = []
    package var periods: [MPDPeriod] = []

    package init() {}
}

/// `UTCTiming`: where the client reads the server's clock.
package struct MPDUTCTiming: Equatable, Sendable {
    package var scheme: String
    package var value: String
}

package struct MPDPeriod: Equatable, Sendable {
    package var id: String?
    /// From the presentation's start; a Period without `start` follows the one before it.
    package var start: Double
    /// Its own `duration`, else up to the next Period's start, else to the presentation's end;
    /// nil where none says (a live Period still growing).
    package var duration: Double?
    package var adaptationSets: [MPDAdaptationSet] = []
}

package struct MPDAdaptationSet: Equatable, Sendable {
    package enum ContentType: String, Sendable { case video, audio, text, other }
    package var id: String?
    package var contentType: ContentType
    package var language: String?
    /// Its `Label`, a name to show.
    package var label: String?
    /// `Role@value`s ("main", "alternate", "subtitle", "caption"…).
    package var roles: [String] = []
    package var representations: [MPDRepresentation] = []
}

package struct MPDRepresentation: Equatable, Sendable {
    package var id: String
    package var bandwidth: Int
    package var width: Int?
    package var height: Int?
    package var frameRate: Double?
    package var codecs: [String] = []
    package var mimeType: String?
    /// Absolute, the first preferred: the others are the same media elsewhere (failover).
    package var baseURLs: [String]
    package var segments: MPDSegmentInfo?
    package var protections: [MPDContentProtection] = []

    package init(id: String, bandwidth: Int, baseURLs: [String], segments: MPDSegmentInfo? = nil) {
        self.id = id
        self.bandwidth = bandwidth
        self.baseURLs = baseURLs
        self.segments = segments
    }
}

/// How a Representation's segments are found.
package enum MPDSegmentInfo: Equatable, Sendable {
    case template(MPDSegmentTemplate)
    case list(MPDSegmentList)
    /// One resource, indexed by its `sidx` box at `indexRange`.
    case base(MPDSegmentBase)
}

/// When the segments of a SegmentTemplate or SegmentList are: a constant `duration` or a
/// `timeline`, in `timescale` units; `presentationTimeOffset` is the media time the Period
/// starts at, `startNumber` the first segment's number.
package struct MPDSegmentTiming: Equatable, Sendable {
    package var timescale: Int64 = 1
    package var duration: Int64?
    package var startNumber = 1
    package var presentationTimeOffset: Int64 = 0
    package var timeline: [MPDTimelineEntry]?

    package init(timescale: Int64 = 1, duration: Int64? = nil, startNumber: Int = 1, presentationTimeOffset: Int64 = 0, timeline: [MPDTimelineEntry]? = nil) {
        self.timescale = timescale
        self.duration = duration
        self.startNumber = startNumber
        self.presentationTimeOffset = presentationTimeOffset
        self.timeline = timeline
    }
}

package struct MPDSegmentTemplate: Equatable, Sendable {
    package var media: String
    package var initialization: String?
    package var timing = MPDSegmentTiming()
}

/// A SegmentTimeline `S`: a segment at `t` lasting `d`, repeated `r` more times (-1: up to the
/// next `S`'s `t` or the Period's end).
package struct MPDTimelineEntry: Equatable, Sendable {
    package var time: Int64?
    package var duration: Int64
    package var repeatCount: Int

    package init(time: Int64? = nil, duration: Int64, repeatCount: Int = 0) {
        self.time = time
        self.duration = duration
        self.repeatCount = repeatCount
    }
}

/// A URL (nil: the BaseURL itself) and a byte range of it (nil: all of it).
package struct MPDResource: Equatable, Sendable {
    package var url: String?
    package var range: ClosedRange<Int64>?

    package init(url: String? = nil, range: ClosedRange<Int64>? = nil) {
        self.url = url
        self.range = range
    }
}

package struct MPDSegmentList: Equatable, Sendable {
    package var initialization: MPDResource?
    package var segments: [MPDResource]
    package var timing = MPDSegmentTiming()
}

package struct MPDSegmentBase: Equatable, Sendable {
    package var initialization: MPDResource?
    package var indexRange: ClosedRange<Int64>?
    package var timescale: Int64 = 1
    package var presentationTimeOffset: Int64 = 0

    package init(initialization: MPDResource? = nil, indexRange: ClosedRange<Int64>? = nil, timescale: Int64 = 1, presentationTimeOffset: Int64 = 0) {
        self.initialization = initialization
        self.indexRange = indexRange
        self.timescale = timescale
        self.presentationTimeOffset = presentationTimeOffset
    }
}

/// `ContentProtection`: a scheme by URI, and the default key ID CENC names.
package struct MPDContentProtection: Equatable, Sendable {
    package var schemeIdUri: String
    package var value: String?
    package var defaultKID: String?
    /// A ClearKey license server's URL (`dashif:Laurl`, `clearkey:Laurl`).
    package var licenseURL: String?

    /// The scheme by name: "cenc", "ClearKey", "Widevine", "PlayReady", "FairPlay", else its URI.
    package var name: String {
        switch schemeIdUri.lowercased() {
        case "urn:mpeg:dash:mp4protection:2011": return value ?? "cenc"
        case "urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e", "urn:uuid:1077efec-c0b2-4d02-ace3-3c1e52e2fb4b": return "ClearKey"
        case "urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed": return "Widevine"
        case "urn:uuid:9a04f079-9840-4286-ab92-e65be0885f95": return "PlayReady"
        case "urn:uuid:94ce86fb-07ff-4f43-adb8-93d2fa968ca2": return "FairPlay"
        default: return schemeIdUri
        }
    }
}
