/// The live latency rule as a pure function: how fast to play so that what is held, beyond
/// what decoding needs, comes down to the target (as ExoPlayer's live speed control and mpv's
/// low-latency catch-up do). The sound keeps its pitch (the tempo stage), so a catch-up is
/// heard as slightly quicker speech, never as a skip.
///
/// Two speeds and a wide band keep it from hunting: arrivals come a frame or an audio packet at
/// a time, so what is held jumps by tens of milliseconds, and each change of speed retunes the
/// tempo filter.
enum LiveCatchUp {
    /// A catch-up starts this far over the target...
    static let startExcess = 0.1
    /// ...and goes on until no more than this is over it.
    static let stopExcess = 0.02
    /// Over this, the fastest catch-up, until under `slowDownExcess` again.
    static let farExcess = 0.5
    static let slowDownExcess = 0.3
    static let speed = 1.05
    static let fastSpeed = 1.1
    /// Over this, playback jumps to the newest key frame read instead: at 1.1x, 1.5 s would take
    /// 15 s of quicker speech to make up.
    static let jumpExcess = 1.5

    /// The speed to play at.
    /// - Parameters:
    ///   - buffered: seconds queued, which a catch-up can play through.
    ///   - target: `--live-latency`.
    ///   - current: the catch-up speed now (1 when none runs).
    ///   - tolerance: how far over the target a catch-up starts.
    static func speed(buffered: Double, target: Double, current: Double, tolerance: Double = startExcess) -> Double {
        let excess = buffered - target
        guard excess > (current > 1 ? stopExcess : tolerance) else { return 1 }
        return excess > (current >= fastSpeed ? slowDownExcess : farExcess) ? fastSpeed : speed
    }

    /// HLS's tolerance, for a hold-back of three target durations: half a segment, at most a
    /// second. A segment comes whole, and where it lands against the playlist's reloads and the
    /// start's own delay moves what is queued by about that much.
    static func segmentedTolerance(holdBack: Double) -> Double {
        min(1, max(startExcess, holdBack / 6))
    }

    /// Whether to drop what is queued up to the newest key frame (hls.js's jump to the live
    /// edge), with `buffered` and `target` as for `speed`. `landing`: what would still be queued
    /// from that key frame on (nil: none read). A jump must save half a second at least, and
    /// land under the jump mark, or it would only be followed by another.
    static func jumps(buffered: Double, target: Double, landing: Double?) -> Bool {
        guard let landing, buffered - target > jumpExcess else { return false }
        return landing - target <= jumpExcess - 0.5
    }
}
