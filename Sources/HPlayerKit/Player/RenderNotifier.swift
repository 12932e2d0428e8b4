/// Carries what the renderers see (an end reached, a first frame shown, a loop pass begun) from
/// their threads, the audio callback among them, to the player on a thread of its own.
///
/// `post` only takes a lock briefly and signals: nothing is allocated, so it is safe in a
/// real-time callback. Repeated posts of one kind before delivery are merged.
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

    private let lock = ConditionLock()
    /// The serial of each note kind's latest post, -1 when none is waiting. One slot per kind.
    private var audioEnded = -1
    private var videoEnded = -1
    private var firstFramePresented = -1
    private var loopPassed = -1
    private var loopPassCount = 0
    private var loopEndReached = -1
    private var closed = false
    private var thread: JoinableThread?

    /// Starts delivering to `handler` on the notifier's own thread.
    init(handler: @escaping @Sendable (Note, Int) -> Void) {
        thread = JoinableThread(name: "hp-player") { [self] in run(handler) }
    }

    func post(_ note: Note, serial: Int) {
        lock.withLock {
            switch note {
            case .audioEnded: audioEnded = serial
            case .videoEnded: videoEnded = serial
            case .firstFramePresented: firstFramePresented = serial
            case .loopPassed:
                loopPassed = serial
                loopPassCount += 1
            case .loopEndReached: loopEndReached = serial
            }
            lock.broadcast()
        }
    }

    func close() {
        lock.withLock {
            closed = true
            lock.broadcast()
        }
        thread?.join()
        thread = nil
    }

    private func run(_ handler: (Note, Int) -> Void) {
        while true {
            var pending: [(Note, Int)] = []
            lock.withLock {
                while !closed, audioEnded < 0, videoEnded < 0, firstFramePresented < 0, loopPassed < 0, loopEndReached < 0 { lock.wait() }
                if firstFramePresented >= 0 { pending.append((.firstFramePresented, firstFramePresented)) }
                if loopPassed >= 0 {
                    for _ in 0..<loopPassCount { pending.append((.loopPassed, loopPassed)) }
                }
                if audioEnded >= 0 { pending.append((.audioEnded, audioEnded)) }
                if videoEnded >= 0 { pending.append((.videoEnded, videoEnded)) }
                if loopEndReached >= 0 { pending.append((.loopEndReached, loopEndReached)) }
                (audioEnded, videoEnded, firstFramePresented, loopPassed, loopPassCount, loopEndReached) = (-1, -1, -1, -1, 0, -1)
            }
            if pending.isEmpty { return }
            for (note, serial) in pending { handler(note, serial) }
        }
    }
}
