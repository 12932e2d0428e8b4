/// Where each HLS discontinuity's timestamps land on the playback timeline, as the read loop
/// finds out: the seconds its timeline adds to the packets of each discontinuity sequence
/// number (StreamTimeline's shift at a timestamp jump). A WebVTT rendition's cues, stamped on
/// their discontinuity's own timestamps by X-TIMESTAMP-MAP, are shifted by the same amount, as
/// hls.js aligns its text by discontinuity. Pure; a text reader keeps one under its lock.
struct DiscontinuityShifts {
    /// The shift found at each discontinuity whose timestamps jumped.
    private var shifts: [Int: Double] = [:]
    /// The discontinuity the timeline starts on (its shift is none, unless a jump says so).
    private var first: Int
    /// The latest discontinuity whose media is being read, and the playback time reached when
    /// it was first seen: every one before it has been placed on the timeline.
    private var latest: (discontinuity: Int, since: Double)?
    /// Past this much media of a discontinuity with no jump, none is coming: its timestamps
    /// went on from the one before's (a jump is found at its first packet, read ahead of it by
    /// at most the demuxer's buffer).
    static let jumpWait = 1.0

    init(startingAt first: Int) {
        self.first = first
    }

    /// The media of `discontinuity` is being read; the read loop has reached `position`.
    mutating func noteReading(_ discontinuity: Int, at position: Double) {
        guard discontinuity > (latest?.discontinuity ?? .min) else { return }
        latest = (discontinuity, position)
    }

    /// The timeline jumped while `discontinuity` was being read: its packets are shifted by
    /// `shift` seconds.
    mutating func noteJump(_ discontinuity: Int, shift: Double) {
        shifts[discontinuity] = shift
    }

    /// The seconds to add to timestamps of `discontinuity`, with the read loop at `position`:
    /// its jump's shift; with none, the shift of the one before it, for the first, for one
    /// reading has gone past, or for the latest once `jumpWait` of it came with no jump. Nil:
    /// not known yet.
    func shift(for discontinuity: Int, position: Double) -> Double? {
        if let shift = shifts[discontinuity] { return shift }
        let isSettled = discontinuity <= first || latest.map {
            discontinuity < $0.discontinuity || (discontinuity == $0.discontinuity && position - $0.since >= Self.jumpWait)
        } ?? false
        guard isSettled else { return nil }
        return shifts.filter { $0.key < discontinuity }.max { $0.key < $1.key }?.value ?? 0
    }
}
