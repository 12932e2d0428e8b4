/// Keeps one stream's timeline continuous, as the read loop hands its packets on: across loop
/// passes, and across jumps in its timestamps (an HLS discontinuity, a spliced transport stream),
/// which would otherwise stall playback for as long as the jump or send it back.
struct StreamTimeline: Equatable {
    /// How far a stream's decode timestamps may move from where the last packet ended before it
    /// counts as a discontinuity, in the stream's ticks.
    struct Limits: Equatable {
        var forward: Int64
        var backward: Int64

        /// 10 s forward or 1 s back for formats FFmpeg marks as having discontinuities (MPEG-TS,
        /// HLS), 60 s or 10 s for the others, where only a broken file jumps.
        init(timeBase: TimeBase, formatHasDiscontinuities: Bool) {
            forward = timeBase.ticks(formatHasDiscontinuities ? 10 : 60)
            backward = timeBase.ticks(formatHasDiscontinuities ? 1 : 10)
        }

        init(forward: Int64, backward: Int64) {
            self.forward = forward
            self.backward = backward
        }
    }

    private(set) var segment = TimelineSegment()
    /// Where the next packet should start on the timeline, once one has been seen.
    private var expectedNext: Int64?

    /// The segment for a packet with decode timestamp `dts` (stream ticks; nil when it has none)
    /// lasting `duration` ticks. A jump past the limits starts a new segment, shifted so the
    /// packet lands where the last one ended.
    mutating func place(dts: Int64?, duration: Int64, limits: Limits) -> TimelineSegment {
        guard let dts else { return segment }
        let timeline = dts + segment.offset
        if let expected = expectedNext, timeline > expected + limits.forward || timeline < expected - limits.backward {
            segment.offset += expected - timeline
            segment.start = expected
        }
        expectedNext = dts + segment.offset + max(duration, 0)
        return segment
    }

    /// A loop pass begins: timestamps start over, shifted by `loopOffset` ticks.
    mutating func startPass(_ pass: Int, loopOffset: Int64, startTicks: Int64) {
        segment = TimelineSegment(offset: loopOffset, loopOffset: loopOffset, loopPass: pass, start: startTicks + loopOffset)
        expectedNext = nil
    }

    /// The part of the shift that keeps the timeline continuous across jumps (not looping).
    var discontinuityOffset: Int64 { segment.offset - segment.loopOffset }
}
