/// Which queued video frame to present at a refresh, as a pure function of the queued pts and
/// the master clock.
package enum VideoSync {
    package enum Mode: Sendable, Equatable {
        /// Audio is the master: present the newest frame whose pts ≤ clock, drop those skipped.
        case followAudio
        /// Video paces itself: present frames in order, none dropped; a frame later than
        /// `lateReset` seconds moves the clock to it instead.
        case selfPaced
        /// No clock: present the next frame at once.
        case untimed
    }

    package struct Decision: Equatable, Sendable {
        /// Frames before the presented one to drop (late ones).
        package var dropCount: Int
        /// Index of the frame to present, nil to present nothing now.
        package var present: Int?
        /// Move the clock to the presented frame's pts (self-paced and far behind).
        package var resetClock: Bool
        /// Clock time at which the next frame is due, when one is queued.
        package var nextDue: Double?

        package init(dropCount: Int = 0, present: Int? = nil, resetClock: Bool = false, nextDue: Double? = nil) {
            self.dropCount = dropCount
            self.present = present
            self.resetClock = resetClock
            self.nextDue = nextDue
        }
    }

    /// Frames due within this many seconds are shown now: an output never wakes up a hair early.
    package static let tolerance = 0.001
    /// A self-paced frame this many seconds late resets the clock rather than rushing to catch up.
    package static let lateReset = 0.1

    /// How far ahead of the audio clock the first frame after a start or a seek may be shown: the
    /// picture appears at once, as mpv's does, instead of waiting out the sound device's latency,
    /// and stays until the clock reaches the next frame.
    package static let restartLead = 0.1

    /// - Parameters:
    ///   - queued: pts of the queued frames, oldest first (in pts order).
    ///   - clock: the master clock now.
    ///   - isRestart: nothing has been presented since the start or the seek.
    package static func decide<Queue: RandomAccessCollection>(queued: Queue, clock: Double, mode: Mode, isRestart: Bool = false) -> Decision
    where Queue.Element == Double, Queue.Index == Int {
        guard let first = queued.first else { return Decision() }
        switch mode {
        case .untimed:
            return Decision(present: queued.startIndex)
        case .selfPaced:
            guard first <= clock + tolerance else { return Decision(nextDue: first) }
            let next = queued.count > 1 ? queued[queued.startIndex + 1] : nil
            return Decision(present: queued.startIndex, resetClock: clock - first > lateReset, nextDue: next)
        case .followAudio:
            var newest: Int?
            for index in queued.indices {
                guard queued[index] <= clock + tolerance else { break }
                newest = index
            }
            let restart = isRestart && first <= clock + restartLead ? queued.startIndex : nil
            guard let shown = newest ?? restart else { return Decision(nextDue: first) }
            let following = shown + 1 < queued.endIndex ? queued[shown + 1] : nil
            return Decision(dropCount: shown - queued.startIndex, present: shown, nextDue: following)
        }
    }
}
