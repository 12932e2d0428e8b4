/// An HLS WebVTT rendition's segments as they are read, made into cues on the playback
/// timeline (media seconds), in order. A file with an X-TIMESTAMP-MAP is on its
/// discontinuity's own timestamps: its cues wait until the read loop has found where that
/// discontinuity lands (DiscontinuityShifts), and the segments after it wait with them, so
/// that what is known is known up to a point. A file with none is timed from the
/// presentation's start (hls.js does so too; ffmpeg's HLS muxer writes none). Pure.
package struct WebVTTSegments {
    private struct Segment {
        var document: WebVTTDocument
        var discontinuity: Int
        /// Where its span on the playlist ends, media seconds.
        var end: Double
    }

    /// Media seconds of the presentation's start, where cue times with no map count from.
    package let startTime: Double
    private var waiting: [Segment] = []
    /// Where the segments given cues so far end, media seconds.
    package private(set) var readUntil = -Double.infinity

    package init(startTime: Double) {
        self.startTime = startTime
    }

    /// After a seek: what waited is dropped.
    package mutating func reset() {
        waiting.removeAll()
        readUntil = -.infinity
    }

    /// Seconds of 33-bit 90 kHz timestamps.
    static let wrapPeriod = Double(1 << 33) / 90_000

    package var isWaiting: Bool { !waiting.isEmpty }
    /// The discontinuity the first segment waiting waits for.
    package var waitingDiscontinuity: Int? { waiting.first?.discontinuity }

    /// A segment read whole: `bytes`, of discontinuity `discontinuity`, its span on the
    /// playlist ending at media seconds `end`. Throws when it is not WebVTT (nothing of it is kept).
    package mutating func append(_ bytes: [UInt8], discontinuity: Int, end: Double) throws(WebVTTDocument.NotWebVTT) -> WebVTTDocument {
        let document = try WebVTTDocument.parse(bytes)
        waiting.append(Segment(document: document, discontinuity: discontinuity, end: end))
        return document
    }

    /// A segment with no cues to give (empty, or not WebVTT): the cues are known up to its end
    /// all the same, in order.
    package mutating func appendNothing(discontinuity: Int, end: Double) {
        waiting.append(Segment(document: WebVTTDocument(), discontinuity: discontinuity, end: end))
    }

    /// The cues of the segments, from the first waiting, whose place is now known: `shift`
    /// gives a discontinuity's (nil: not yet); `near`, media seconds the media is being read at.
    package mutating func resolve(near: Double, shift: (Int) -> Double?) -> [SubtitleCue] {
        var cues: [SubtitleCue] = []
        while let segment = waiting.first {
            var offset: Double
            if let map = segment.document.timestampMap {
                guard let shift = shift(segment.discontinuity) else { break }
                offset = map.offset + shift
                // 33-bit timestamps wrap every 26.5 h, and libavformat unwraps the media's (a
                // timestamp that goes back, as at a discontinuity, may be taken as a wrap): the
                // cues take the turn of the wrap that puts them nearest where the media is read.
                if let first = segment.document.cues.first {
                    offset += Self.wrapPeriod * ((near - (first.start + offset)) / Self.wrapPeriod).rounded()
                }
            } else {
                offset = startTime
            }
            waiting.removeFirst()
            cues += segment.document.cues.map { $0.shifted(by: offset) }
            readUntil = max(readUntil, segment.end)
        }
        return cues
    }
}
