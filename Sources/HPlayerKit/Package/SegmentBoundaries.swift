/// Which pictures start a package's segments: the first at or after each multiple of the segment
/// duration (half a frame early counts, as a frame's time rounds). Every rung is told the same
/// pictures, so their IDRs, and the cuts, line up whatever the frame rate or key-frame interval.
struct SegmentBoundaries {
    private let duration: Double?
    private let tolerance: Double
    private var next: Double?

    /// - Parameter duration: seconds per segment; nil: no package, no picture starts one.
    init(duration: Double?, frameDuration: Double) {
        self.duration = duration
        tolerance = frameDuration / 2
    }

    /// Whether the picture at `position` (seconds from the start) starts a segment.
    mutating func startsSegment(at position: Double) -> Bool {
        guard let duration, duration > 0 else { return false }
        guard let boundary = next else {
            // The first picture starts the first segment.
            next = (((position + tolerance) / duration).rounded(.down) + 1) * duration
            return true
        }
        guard position + tolerance >= boundary else { return false }
        var following = boundary
        while following <= position + tolerance { following += duration }
        next = following
        return true
    }
}
