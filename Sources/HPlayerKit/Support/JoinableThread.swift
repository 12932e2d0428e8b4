import CHPlayerShim
import Glibc

/// A named pthread that is always joined: the read loop, each decode loop and the null outputs'
/// clocks run on these, and `join()` is called on close so no thread outlives its owner.
package final class JoinableThread: @unchecked Sendable {
    private final class Body {
        let name: String
        let run: () -> Void
        init(name: String, run: @escaping () -> Void) {
            self.name = name
            self.run = run
        }
    }

    private var thread: pthread_t?
    private let joinLock = ConditionLock()

    /// Starts `body` at once on a new thread called `name` (at most 15 characters are kept).
    package init(name: String, _ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Body(name: name, run: body)).toOpaque()
        var handle = pthread_t()
        let result = pthread_create(&handle, nil, { raw in
            let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
            hp_set_thread_name(body.name)
            body.run()
            return nil
        }, context)
        precondition(result == 0, "pthread_create failed: \(result)")
        thread = handle
    }

    /// Waits for the thread to end. Safe to call more than once and from several threads; on the
    /// thread itself (its owner let go of it there) the thread is detached instead.
    package func join() {
        joinLock.withLock {
            guard let handle = thread else { return }
            if pthread_equal(handle, pthread_self()) != 0 {
                pthread_detach(handle)
            } else {
                pthread_join(handle, nil)
            }
            thread = nil
        }
    }

    deinit { join() }
}
