/// The thread an output without a device runs on, with its switch: running or paused, a one-off
/// wake (a refresh while paused), and closed. The thread's body waits on `lock` and reads the
/// flags under it; start, pause, wake and close change them and wake it.
final class OutputThread: @unchecked Sendable {
    let lock = ConditionLock()
    /// Guarded by `lock`.
    private(set) var isRunning = false
    private(set) var isClosed = false
    var isWakeRequested = false
    private var thread: JoinableThread?

    /// Starts `body` at once; the thread keeps this object alive until `close`.
    init(name: String, body: @escaping @Sendable (OutputThread) -> Void) {
        thread = JoinableThread(name: name) { [self] in body(self) }
    }

    func start() { change { isRunning = true } }
    func pause() { change { isRunning = false } }
    func wake() { change { isWakeRequested = true } }

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
