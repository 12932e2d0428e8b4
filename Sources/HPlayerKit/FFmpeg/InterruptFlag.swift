import CFFmpeg
import Synchronization

/// A flag that ends libavformat's blocking calls: its interrupt callback reads it between the
/// retries of an open, a read or a write, which then return AVERROR_EXIT.
final class InterruptFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    var isSet: Bool { flag.load(ordering: .relaxed) }

    func set() { flag.store(true, ordering: .relaxed) }

    /// The callback for a context that this flag outlives.
    var callback: AVIOInterruptCB {
        AVIOInterruptCB(callback: { opaque in
            Unmanaged<InterruptFlag>.fromOpaque(opaque!).takeUnretainedValue().isSet ? 1 : 0
        }, opaque: Unmanaged.passUnretained(self).toOpaque())
    }
}
