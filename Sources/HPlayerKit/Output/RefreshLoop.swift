import CFFmpeg

/// The refresh of an output with no display: a thread that asks the renderer for a frame,
/// presents it, and sleeps until the next one is due (the monotonic clock stands in for vsync).
final class RefreshLoop: Sendable {
    /// Longest sleep when no frame is due yet, so a frame that arrives late is seen soon.
    static let pollInterval = 0.01

    private let thread: OutputThread

    /// - Parameters:
    ///   - paced: false presents each frame as soon as it is there (untimed).
    ///   - present: shows a frame (null: nothing; recording: log it).
    init(name: String, renderer: VideoRendering, paced: Bool, present: @escaping @Sendable (Frame, Double) -> Void) {
        thread = OutputThread(name: name) { thread in
            Self.run(thread, renderer: renderer, paced: paced, present: present)
        }
    }

    func start() { thread.start() }
    func pause() { thread.pause() }
    func requestRefresh() { thread.wake() }
    func close() { thread.close() }

    private static func run(_ thread: OutputThread, renderer: VideoRendering, paced: Bool, present: (Frame, Double) -> Void) {
        let lock = thread.lock
        lock.lock()
        // Paused, when a step or preview waiting for its picture asks to be looked at again.
        var retry: Double?
        while true {
            while !thread.isClosed, !thread.isRunning, !thread.isWakeRequested {
                guard let due = retry else {
                    lock.wait()
                    continue
                }
                if MonotonicClock.now() >= due { break }
                lock.wait(until: due)  // woken for something else (a pause), it stays due when it was
            }
            if thread.isClosed { break }
            thread.isWakeRequested = false
            retry = nil
            let isPaused = !thread.isRunning
            thread.beginWork()

            let now = MonotonicClock.now()
            let refresh = renderer.refresh(at: now)
            if let frame = refresh.frame {
                present(frame, now)
                renderer.didPresent(frame, at: now)
            }
            thread.endWork()
            guard !thread.isClosed, !thread.isWakeRequested else { continue }
            guard thread.isRunning else {
                // A running refresh's deadline is the next frame's, not a paused one's retry.
                if isPaused { retry = refresh.nextDeadline }
                continue
            }
            let deadline: Double
            if paced {
                deadline = min(refresh.nextDeadline ?? .infinity, now + pollInterval)
            } else {
                deadline = refresh.frame == nil ? now + 0.001 : now
            }
            if deadline > MonotonicClock.now() { lock.wait(until: deadline) }
        }
        lock.unlock()
    }
}
