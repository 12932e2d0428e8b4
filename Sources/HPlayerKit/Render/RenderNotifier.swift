import Glibc
import Synchronization

/// Carries what the renderers see (an end reached, a first frame shown, a loop pass begun) from
/// their threads, the audio callback among them, to the player on a thread of its own.
///
/// `post` takes no lock and allocates nothing: it stores the serial in the note kind's slot and
/// posts a semaphore, so it is safe in a real-time callback. Repeated posts of one kind before
/// delivery are merged (loop passes are counted).
final class RenderNotifier: @unchecked Sendable {
    enum Note: Int, CaseIterable {
        case audioEnded
        case videoEnded
        /// The first frame of a serial was presented.
        case firstFramePresented
        /// The first frame (or sample) of a new loop pass was presented.
        case loopPassed
        /// Playback reached an A-B loop's B.
        case loopEndReached
    }

    /// The order in which the notes of one wake are delivered.
    private static let deliveryOrder: [Note] = [.firstFramePresented, .loopPassed, .audioEnded, .videoEnded, .loopEndReached]

    /// Per note kind: 0 when none is waiting, else the serial of the latest post plus one in the
    /// high half and the number of posts in the low half.
    private let audioEnded = Atomic<UInt64>(0)
    private let videoEnded = Atomic<UInt64>(0)
    private let firstFramePresented = Atomic<UInt64>(0)
    private let loopPassed = Atomic<UInt64>(0)
    private let loopEndReached = Atomic<UInt64>(0)
    private let closed = Atomic<Bool>(false)
    private let wake = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    private var thread: JoinableThread?

    /// Starts delivering to `handler` on the notifier's own thread.
    init(handler: @escaping @Sendable (Note, Int) -> Void) {
        sem_init(wake, 0, 0)
        thread = JoinableThread(name: "hp-player") { [self] in run(handler) }
    }

    deinit {
        sem_destroy(wake)
        wake.deallocate()
    }

    func post(_ note: Note, serial: Int) {
        withSlot(note) { slot in
            var current = slot.load(ordering: .relaxed)
            while true {
                let count = current & 0xFFFF_FFFF
                let next = UInt64(UInt32(truncatingIfNeeded: serial + 1)) << 32 | min(count + 1, 0xFFFF_FFFF)
                let (exchanged, original) = slot.compareExchange(expected: current, desired: next, ordering: .acquiringAndReleasing)
                if exchanged { break }
                current = original
            }
        }
        sem_post(wake)
    }

    func close() {
        closed.store(true, ordering: .releasing)
        sem_post(wake)
        thread?.join()
        thread = nil
    }

    private func withSlot<Result>(_ note: Note, _ body: (borrowing Atomic<UInt64>) -> Result) -> Result {
        switch note {
        case .audioEnded: body(audioEnded)
        case .videoEnded: body(videoEnded)
        case .firstFramePresented: body(firstFramePresented)
        case .loopPassed: body(loopPassed)
        case .loopEndReached: body(loopEndReached)
        }
    }

    private func run(_ handler: (Note, Int) -> Void) {
        while true {
            while sem_wait(wake) != 0 {}  // EINTR
            if closed.load(ordering: .acquiring) { return }
            for note in Self.deliveryOrder {
                let value = withSlot(note) { $0.exchange(0, ordering: .acquiringAndReleasing) }
                guard value != 0 else { continue }
                let serial = Int(value >> 32) - 1
                let posts = note == .loopPassed ? Int(value & 0xFFFF_FFFF) : 1
                for _ in 0..<posts { handler(note, serial) }
            }
        }
    }
}
