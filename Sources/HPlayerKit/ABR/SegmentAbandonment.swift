/// Whether to give up a segment whose download is too slow to arrive before the buffer runs
/// out, for a lower rung, as hls.js and ExoPlayer do: pure, checked while it downloads, for
/// every policy alike.
package enum SegmentAbandonment {
    /// Seconds a download runs before its rate is judged.
    package static let minimumElapsed = 0.5

    /// The rung to fetch the segment at instead, or nil to go on: when, at the rate this
    /// download has had, its rest would arrive after the buffer ran dry, the highest lower rung
    /// whose whole segment would arrive in time (the lowest, if none would, when it at least
    /// arrives sooner than the rest of this one).
    /// - Parameters:
    ///   - sizes: the segment's size in bytes at each rung.
    ///   - buffer: seconds of media left buffered now.
    package static func lowerRung(rung: Int, elapsed: Double, loaded: Double, sizes: [Double], buffer: Double,
                                 playbackRate: Double = 1) -> Int? {
        guard rung > 0, rung < sizes.count, elapsed >= minimumElapsed, loaded < sizes[rung] else { return nil }
        let rate = max(loaded, 1) * 8 / elapsed
        let finish = (sizes[rung] - loaded) * 8 / rate
        let left = buffer / playbackRate
        guard finish > left else { return nil }
        if let lower = (0..<rung).last(where: { sizes[$0] * 8 / rate < left }) { return lower }
        return sizes[0] * 8 / rate < finish ? 0 : nil
    }
}
