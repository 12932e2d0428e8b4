import Glibc
import Synchronization

/// Counts the locks (ConditionLock) a real-time callback takes, in debug builds, so that the audio
/// callback's promise (one short lock per callback) is checked by a test rather than assumed.
final class CallbackLockProbe: @unchecked Sendable {
    private let counter = UnsafeMutablePointer<Int>.allocate(capacity: 1)
    private let most = Atomic<Int>(0)
    private let callbacks = Atomic<Int>(0)

    init() { counter.initialize(to: 0) }

    deinit { counter.deallocate() }

    /// Starts counting the locks this thread takes.
    @inline(__always)
    func begin() {
        #if DEBUG
        counter.pointee = 0
        pthread_setspecific(lockCountKey, counter)
        #endif
    }

    /// Stops counting, and keeps the callback's count.
    @inline(__always)
    func end() {
        #if DEBUG
        pthread_setspecific(lockCountKey, nil)
        if counter.pointee > most.load(ordering: .relaxed) { most.store(counter.pointee, ordering: .relaxed) }
        callbacks.add(1, ordering: .relaxed)
        #endif
    }

    /// The callbacks counted and the most locks one took; nil in a release build, which counts nothing.
    var counts: (callbacks: Int, mostLocks: Int)? {
        #if DEBUG
        return (callbacks.load(ordering: .relaxed), most.load(ordering: .relaxed))
        #else
        return nil
        #endif
    }
}

#if DEBUG
/// The counter of the thread being probed, if it is.
let lockCountKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
}()

@inline(__always)
func noteLockTaken() {
    if let counter = pthread_getspecific(lockCountKey) { counter.assumingMemoryBound(to: Int.self).pointee += 1 }
}
#endif
