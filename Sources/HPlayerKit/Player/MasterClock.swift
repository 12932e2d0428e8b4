/// The clock video follows: the pts being heard now when audio plays, otherwise the pts of the
/// video itself moving on the monotonic clock.
///
/// It is set at a moment (`set(_:at:)`) and runs on from there at its rate (the playback speed)
/// times real time; it can be frozen (pause, an audio underrun) and resumed where it stood.
final class MasterClock: @unchecked Sendable {
    private let lock = ConditionLock()
    private var basePts = 0.0
    private var baseTime = 0.0
    private var isValid = false
    private var isFrozen = false
    /// Clock seconds per real second.
    private var rateValue = 1.0
    /// Timeline pts minus media pts of what is playing (non-zero in later passes of a loop).
    private var loopOffset = 0.0

    /// The clock reads `pts` at monotonic `time` and runs on from there at `rate` (the rate it
    /// had when nil).
    func set(_ pts: Double, at time: Double, loopOffset: Double, rate: Double? = nil) {
        lock.withLock {
            basePts = pts
            baseTime = time
            isValid = true
            isFrozen = false
            self.loopOffset = loopOffset
            if let rate { rateValue = rate }
        }
    }

    /// Clock seconds per real second.
    var rate: Double { lock.withLock { rateValue } }

    /// Runs on at `rate` from where it stands at `time` (a new speed with no sound to set it).
    func setRate(_ rate: Double, at time: Double) {
        lock.withLock {
            if isValid, !isFrozen {
                basePts += (time - baseTime) * rateValue
                baseTime = time
            }
            rateValue = rate
        }
    }

    /// Timeline seconds at monotonic `time`, or nil until the clock has been set.
    func time(at time: Double) -> Double? {
        lock.withLock {
            guard isValid else { return nil }
            return timeLocked(at: time)
        }
    }

    /// Seconds as in the file at monotonic `time`.
    func mediaTime(at time: Double) -> Double? {
        lock.withLock {
            guard isValid else { return nil }
            return timeLocked(at: time) - loopOffset
        }
    }

    /// Stops the clock where it stands at `time`.
    func freeze(at time: Double) {
        lock.withLock {
            guard isValid, !isFrozen else { return }
            basePts = timeLocked(at: time)
            isFrozen = true
        }
    }

    private func timeLocked(at time: Double) -> Double {
        isFrozen ? basePts : basePts + (time - baseTime) * rateValue
    }

    /// Runs a frozen clock on from where it stopped.
    func resume(at time: Double) {
        lock.withLock {
            guard isFrozen else { return }
            baseTime = time
            isFrozen = false
        }
    }

    /// Forgets the time (after a seek, until the first frame at the new position).
    func invalidate() {
        lock.withLock {
            isValid = false
            isFrozen = false
        }
    }
}
