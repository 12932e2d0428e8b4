/// A span of media time, in seconds from the start.
public struct TimeRange: Equatable, Sendable {
    /// Where it starts.
    public var start: Double
    /// Where it ends, after `start`.
    public var end: Double

    /// A span, as the fields say.
    public init(start: Double, end: Double) {
        self.start = start
        self.end = end
    }
}

/// One segment of an HLS variant, where its bytes are and when it plays.
package struct SegmentSpan: Equatable, Sendable {
    package var url: String
    /// Its BYTERANGE; nil: the whole resource.
    package var byteRange: ByteRange?
    /// Seconds from the playlist's first segment.
    package var start: Double
    package var duration: Double

    package init(url: String, byteRange: ByteRange? = nil, start: Double, duration: Double) {
        self.url = url
        self.byteRange = byteRange
        self.start = start
        self.duration = duration
    }
}

/// Where a network input's bytes lie in its media time, for telling what of it the disk cache holds.
package enum CacheLayout: Equatable, Sendable {
    /// A progressive file: its bytes taken as spread evenly over its duration (an estimate, as
    /// a byte position is for a seek; an index at either end skews it a little).
    case bytes(url: String)
    /// An HLS variant's segments (VOD).
    case segments([SegmentSpan])
}

/// The media time the disk cache holds, from what it holds in bytes: pure, tested by table.
package enum CachedTimeRanges {
    /// A progressive file's cached fragments as time, its `contentLength` bytes spread evenly
    /// over `duration`; overlapping and adjacent fragments give one range.
    package static func progressive(fragments: [CachedFragment], contentLength: Int64, duration: Double) -> [TimeRange] {
        guard contentLength > 0, duration > 0 else { return [] }
        var covered: [ByteRange] = []
        for fragment in fragments.sorted(by: { $0.offset < $1.offset }) {
            let start = max(0, fragment.offset), end = min(contentLength, fragment.end)
            guard end > start else { continue }
            if let last = covered.last, start <= last.end {
                covered[covered.count - 1].end = max(last.end, end)
            } else {
                covered.append(ByteRange(start: start, end: end))
            }
        }
        let secondsPerByte = duration / Double(contentLength)
        return covered.map { TimeRange(start: Double($0.start) * secondsPerByte, end: Double($0.end) * secondsPerByte) }
    }

    /// The cached segments' times (`cached[i]` for `spans[i]`), consecutive ones as one range.
    package static func segments(_ spans: [SegmentSpan], cached: [Bool]) -> [TimeRange] {
        var ranges: [TimeRange] = []
        for (span, isCached) in zip(spans, cached) where isCached && span.duration > 0 {
            let end = span.start + span.duration
            if let last = ranges.last, span.start <= last.end + 0.001 {
                ranges[ranges.count - 1].end = max(last.end, end)
            } else {
                ranges.append(TimeRange(start: span.start, end: end))
            }
        }
        return ranges
    }
}
