/// The thread an output without a device runs on, with its switch: running or paused, a one-off
/// wake (a refresh while paused), and closed. The thread's body waits on `lock` and reads the
/// flags under it; start, pause, wake and close change them and wake it.
///
/// Like a sound card's pause, `pause` returns only once no call into the renderer is under way,
/// so the player can reset the clock right after without a late callback setting it again.
final class OutputThread: @unchecked Sendable {
    let lock = ConditionLock()
    /// Guarded by `lock`.
    private(set) var isRunning = false
    private(set) var isClosed = false
    var isWakeRequested = false
    /// The body is calling the renderer (set and cleared by the body, under the lock).
    private var isBusy = false
    private var thread: JoinableThread?

    /// Starts `body` at once; the thread keeps this object alive until `close`.
    init(name: String, body: @escaping @Sendable (OutputThread) -> Void) {
        thread = JoinableThread(name: name) { [self] in body(self) }
    }

    func start() { change { isRunning = true } }
    func wake() { change { isWakeRequested = true } }

    func pause() {
        lock.withLock {
            isRunning = false
            lock.broadcast()
            while isBusy { lock.wait() }
        }
    }

    /// The body, holding the lock, is about to call the renderer with the lock released.
    func beginWork() {
        isBusy = true
        lock.unlock()
    }

    /// The renderer call is over; the body holds the lock again.
    func endWork() {
        lock.lock()
        isBusy = false
        lock.broadcast()
    }

    /// Ends the body's loop and joins the thread.
    func close() {
        change { isClosed = true }
        thread?.join()
        thread = nil
    }

    private func change(_ body: () -> Void) {
        lock.withLock {
            body()
            lock.broadcast()
        }
    }
}
