/// A stretch of one stream's timeline over which one shift applies to its timestamps.
struct TimelineSegment: Equatable, Sendable {
    /// Ticks added to the stream's own timestamps: the length of the loop passes before, plus
    /// whatever keeps the timeline continuous across a jump in the timestamps.
    var offset: Int64 = 0
    /// The looping part of `offset`: taken off again to give a frame's media pts.
    var loopOffset: Int64 = 0
    var loopPass = 0
    /// Timeline ticks where the segment begins; a frame before it belongs to the one before.
    var start = Int64.min
}

/// Which segment a decoded frame belongs to.
///
/// Frames leave the decoder a few packets after theirs went in (B-frame reordering), so a frame
/// is placed by its own timeline timestamp, against the segment being read and the one before.
struct TimelineSegments {
    private var previous = TimelineSegment()
    private var current = TimelineSegment()

    /// Notes the segment a packet was read in.
    mutating func noteReading(_ segment: TimelineSegment) {
        guard segment != current else { return }
        previous = current
        current = segment
    }

    func segment(containing ticks: Int64) -> TimelineSegment {
        ticks >= current.start ? current : previous
    }

    mutating func reset() { self = TimelineSegments() }
}
