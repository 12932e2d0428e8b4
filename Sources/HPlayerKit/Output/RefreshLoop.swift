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
        while true {
            while !thread.isClosed, !thread.isRunning, !thread.isWakeRequested { lock.wait() }
            if thread.isClosed { break }
            thread.isWakeRequested = false
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
                // Paused: a step or preview waiting for its picture asks to be looked at again.
                if let retry = refresh.nextDeadline {
                    if retry > MonotonicClock.now() { lock.wait(until: retry) }
                    thread.isWakeRequested = true
                }
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
