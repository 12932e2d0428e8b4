import Synchronization

/// The clock video follows: the pts being heard now when audio plays, otherwise the pts of the
/// video itself moving on the monotonic clock.
///
/// It is set at a moment (`set`) and runs on from there at its rate (the playback speed) times
/// real time; it can be frozen (pause, an audio underrun) and resumed where it stood.
///
/// It carries a serial, as ffplay's clock does: `invalidate(serial:)` starts a new one (a seek),
/// and a renderer's update for another serial is dropped, so a callback still playing the old
/// position cannot set the clock for the new one.
///
/// No lock: the audio callback sets it too. Each writer (the player, the audio renderer, the
/// video renderer) publishes its updates in a slot of its own, and the newest update of the
/// current serial is the clock.
final class MasterClock: Sendable {
    enum Writer: Int {
        /// The player: pause and resume, a new speed, a seek. Its updates always count.
        case player
        case audio
        case video
    }

    private let slots = [ClockSlot(), ClockSlot(), ClockSlot()]
    /// Orders the updates of all writers: the newest is the one with the highest stamp.
    private let stamps = Atomic<UInt64>(0)
    private let serial = Atomic<Int>(0)

    /// The clock reads `pts` at monotonic `time` and runs on from there at `rate` (the rate it
    /// had when nil); dropped when `serial` is not the clock's.
    func set(_ pts: Double, at time: Double, loopOffset: Double, rate: Double? = nil, serial: Int, by writer: Writer) {
        guard serial == self.serial.load(ordering: .acquiring) else { return }
        let rate = rate ?? latest()?.rate ?? 1
        publish(ClockState(pts: pts, time: time, rate: rate, loopOffset: loopOffset, isValid: true, isFrozen: false, serial: serial), by: writer)
    }

    /// Clock seconds per real second.
    var rate: Double { latest()?.rate ?? 1 }

    /// Runs on at `rate` from where it stands at `time` (a new speed with no sound to set it).
    func setRate(_ rate: Double, at time: Double) {
        var state = current() ?? ClockState(serial: serial.load(ordering: .acquiring))
        if state.isValid, !state.isFrozen {
            state.pts = state.time(at: time)
            state.time = time
        }
        state.rate = rate
        publish(state, by: .player)
    }

    /// Timeline seconds at monotonic `time`, or nil until the clock has been set.
    func time(at time: Double) -> Double? {
        guard let state = current() else { return nil }
        return state.time(at: time)
    }

    /// Seconds as in the file at monotonic `time`.
    func mediaTime(at time: Double) -> Double? {
        guard let state = current() else { return nil }
        return state.time(at: time) - state.loopOffset
    }

    /// Stops the clock where it stands at `time`; a renderer's freeze for another serial is dropped.
    func freeze(at time: Double, serial: Int? = nil, by writer: Writer = .player) {
        if let serial, serial != self.serial.load(ordering: .acquiring) { return }
        guard var state = current(), !state.isFrozen else { return }
        state.pts = state.time(at: time)
        state.isFrozen = true
        publish(state, by: writer)
    }

    /// Runs a frozen clock on from where it stopped; a renderer's resume for another serial is dropped.
    func resume(at time: Double, serial: Int? = nil, by writer: Writer = .player) {
        if let serial, serial != self.serial.load(ordering: .acquiring) { return }
        guard var state = current(), state.isFrozen else { return }
        state.time = time
        state.isFrozen = false
        publish(state, by: writer)
    }

    /// Forgets the time and starts `serial` (a seek: no time until its first frame plays).
    func invalidate(serial newSerial: Int) {
        let rate = rate
        serial.store(newSerial, ordering: .releasing)
        publish(ClockState(rate: rate, serial: newSerial), by: .player)
    }

    private func publish(_ state: ClockState, by writer: Writer) {
        var state = state
        state.stamp = stamps.add(1, ordering: .relaxed).newValue
        slots[writer.rawValue].store(state)
    }

    /// The newest update of any serial, valid or not (what the rate was last set to).
    private func latest() -> ClockState? {
        var newest: ClockState?
        for slot in slots {
            let state = slot.load()
            if state.stamp > (newest?.stamp ?? 0) { newest = state }
        }
        return newest
    }

    /// The newest update of the current serial, when it has a time.
    private func current() -> ClockState? {
        let serial = self.serial.load(ordering: .acquiring)
        var newest: ClockState?
        for slot in slots {
            let state = slot.load()
            if state.serial == serial, state.stamp > (newest?.stamp ?? 0) { newest = state }
        }
        return newest?.isValid == true ? newest : nil
    }
}

/// One writer's update of the clock.
struct ClockState: Equatable {
    var pts = 0.0
    /// The monotonic time at which the clock read `pts`.
    var time = 0.0
    var rate = 1.0
    /// Timeline pts minus media pts of what is playing (non-zero in later passes of a loop).
    var loopOffset = 0.0
    var isValid = false
    var isFrozen = false
    var serial = 0
    /// 0: never written.
    var stamp: UInt64 = 0

    func time(at now: Double) -> Double { isFrozen ? pts : pts + (now - time) * rate }
}

/// A ClockState published without a lock, for one writer at a time (a seqlock): the writer makes
/// `sequence` odd, stores, and makes it even again; a reader retries while it is odd or has moved.
/// Every field is atomic, so a torn read is only ever retried, never a race.
private final class ClockSlot: Sendable {
    private let sequence = Atomic<UInt64>(0)
    private let pts = Atomic<UInt64>(0)
    private let time = Atomic<UInt64>(0)
    private let rate = Atomic<UInt64>(1.0.bitPattern)
    private let loopOffset = Atomic<UInt64>(0)
    private let flags = Atomic<UInt8>(0)
    private let serial = Atomic<Int>(0)
    private let stamp = Atomic<UInt64>(0)

    func store(_ state: ClockState) {
        let start = sequence.load(ordering: .relaxed)
        sequence.store(start &+ 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        pts.store(state.pts.bitPattern, ordering: .relaxed)
        time.store(state.time.bitPattern, ordering: .relaxed)
        rate.store(state.rate.bitPattern, ordering: .relaxed)
        loopOffset.store(state.loopOffset.bitPattern, ordering: .relaxed)
        flags.store((state.isValid ? 1 : 0) | (state.isFrozen ? 2 : 0), ordering: .relaxed)
        serial.store(state.serial, ordering: .relaxed)
        stamp.store(state.stamp, ordering: .relaxed)
        sequence.store(start &+ 2, ordering: .releasing)
    }

    func load() -> ClockState {
        while true {
            let before = sequence.load(ordering: .acquiring)
            let flags = flags.load(ordering: .relaxed)
            let state = ClockState(
                pts: Double(bitPattern: pts.load(ordering: .relaxed)), time: Double(bitPattern: time.load(ordering: .relaxed)),
                rate: Double(bitPattern: rate.load(ordering: .relaxed)),
                loopOffset: Double(bitPattern: loopOffset.load(ordering: .relaxed)),
                isValid: flags & 1 != 0, isFrozen: flags & 2 != 0, serial: serial.load(ordering: .relaxed),
                stamp: stamp.load(ordering: .relaxed))
            atomicMemoryFence(ordering: .acquiring)
            if before & 1 == 0, sequence.load(ordering: .relaxed) == before { return state }
        }
    }
}
