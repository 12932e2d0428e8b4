import CFFmpeg

/// The refresh of an output with no display: a thread that asks the renderer for a frame,
/// presents it, and sleeps until the next one is due (the monotonic clock stands in for vsync).
final class RefreshLoop: @unchecked Sendable {
    /// Longest sleep when no frame is due yet, so a frame that arrives late is seen soon.
    static let pollInterval = 0.01

    private let lock = ConditionLock()
    private var running = false
    private var refreshRequested = false
    private var closed = false
    private var thread: JoinableThread?

    /// - Parameters:
    ///   - paced: false presents each frame as soon as it is there (untimed).
    ///   - present: shows a frame (null: nothing; recording: log it).
    init(name: String, renderer: VideoRendering, paced: Bool, present: @escaping @Sendable (Frame, Double) -> Void) {
        thread = JoinableThread(name: name) { [self] in run(renderer: renderer, paced: paced, present: present) }
    }

    func start() { update { running = true } }
    func pause() { update { running = false } }
    func requestRefresh() { update { refreshRequested = true } }

    func close() {
        update { closed = true }
        thread?.join()
        thread = nil
    }

    private func update(_ change: () -> Void) {
        lock.withLock {
            change()
            lock.broadcast()
        }
    }

    private func run(renderer: VideoRendering, paced: Bool, present: (Frame, Double) -> Void) {
        lock.lock()
        while true {
            while !closed, !running, !refreshRequested { lock.wait() }
            if closed { break }
            refreshRequested = false
            lock.unlock()

            let now = MonotonicClock.now()
            let refresh = renderer.refresh(at: now)
            if let frame = refresh.frame {
                present(frame, now)
                renderer.didPresent(frame, at: now)
            }

            lock.lock()
            guard running, !closed, !refreshRequested else { continue }
            let deadline: Double
            if paced {
                deadline = min(refresh.nextDeadline ?? .infinity, now + Self.pollInterval)
            } else {
                deadline = refresh.frame == nil ? now + 0.001 : now
            }
            if deadline > MonotonicClock.now() { lock.wait(until: deadline) }
        }
        lock.unlock()
    }
}
