import CFFmpeg
import Synchronization

/// A flag that ends libavformat's blocking calls: its interrupt callback reads it between the
/// retries of an open, a read or a write, which then return AVERROR_EXIT. It is set at once, or
/// from a deadline on (monotonic seconds).
final class InterruptFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    /// The deadline's bit pattern; 0 for none.
    private let deadline = Atomic<UInt64>(0)
    private let deadlinePassed = Atomic<Bool>(false)

    var isSet: Bool {
        if flag.load(ordering: .relaxed) { return true }
        let bits = deadline.load(ordering: .relaxed)
        guard bits != 0, MonotonicClock.now() >= Double(bitPattern: bits) else { return false }
        deadlinePassed.store(true, ordering: .relaxed)
        return true
    }

    /// Whether a deadline has ever ended a call.
    var hasDeadlinePassed: Bool { deadlinePassed.load(ordering: .relaxed) }

    func set() { flag.store(true, ordering: .relaxed) }

    func set(at seconds: Double) { deadline.store(seconds.bitPattern, ordering: .relaxed) }

    func clearDeadline() { deadline.store(0, ordering: .relaxed) }

    /// Whether `set()` was called, whatever the deadline.
    var isRaised: Bool { flag.load(ordering: .relaxed) }

    /// The callback for a context that this flag outlives.
    var callback: AVIOInterruptCB {
        AVIOInterruptCB(callback: { opaque in
            Unmanaged<InterruptFlag>.fromOpaque(opaque!).takeUnretainedValue().isSet ? 1 : 0
        }, opaque: Unmanaged.passUnretained(self).toOpaque())
    }
}
