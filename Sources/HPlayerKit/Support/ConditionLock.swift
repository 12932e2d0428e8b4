import Glibc

/// A pthread mutex with one condition variable on the monotonic clock.
///
/// The building block of every queue and wait in the engine: ring buffers, the read loop's pause,
/// the output threads. Timed waits use CLOCK_MONOTONIC so a wall-clock change never stalls playback.
/// (`Locked` wraps one; the engine has no other lock type, so ThreadSanitizer sees every lock.)
///
/// ## Lock order
/// A thread holding a lock takes only locks further down this list, and never calls into another
/// layer while it holds one. Most locks are leaves: nothing is taken under them.
/// 1. `Player.observers`, then `Player.lock` (`events()` looks at the machine); the observers'
///    lock is held while an event is yielded to each stream (the stream's own lock).
/// 2. `Player.lock`: a leaf. The machine decides under it; its effects run after it is released.
/// 3. `FFmpegSource.lock`, `FFmpegSource.recording`, `StreamRecorder`'s lock: leaves, except that a
///    recorder writes its file under its own lock.
/// 4. `SubtitleTracks`' state, then `SubtitleTrack`'s (placing a file on the media's timeline).
/// 5. A `RingBuffer`'s lock, then an `ObjectPool`'s: what is flushed or dropped from a queue is
///    given back to its pool inside `flush` and `withContents`.
/// 6. `OutputThread.lock`: released around each call into its renderer (`beginWork`).
/// 7. Leaves: `AudioTempoStage.control` (the audio callback's one lock), `VideoRenderer.control`,
///    `Track.lock`, `SubtitleSelection`'s state, `SubtitleDrawer`'s, `ObjectPool`'s, `CacheStore`'s index (held over
///    its SQLite calls and a fragment's rename, never over a download or a fragment's write).
/// The audio callback takes only (7)'s `AudioTempoStage.control`, once; the master clock and the
/// render notifier take no lock at all (atomics and a semaphore).
package final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    package func lock() {
        #if DEBUG
        noteLockTaken()
        #endif
        pthread_mutex_lock(mutex)
    }
    package func unlock() { pthread_mutex_unlock(mutex) }

    @inline(__always)
    package func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        #if DEBUG
        noteLockTaken()
        #endif
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits for a broadcast; the caller holds the lock and re-checks its predicate after.
    package func wait() { pthread_cond_wait(condition, mutex) }

    /// Waits for a broadcast or until `deadline` (monotonic seconds); false when the deadline passed.
    @discardableResult
    package func wait(until deadline: Double) -> Bool {
        var time = timespec()
        let seconds = deadline.rounded(.down)
        time.tv_sec = Int(saturating: seconds)
        time.tv_nsec = Int(saturating: (deadline - seconds) * 1e9, rounding: .down)
        return pthread_cond_timedwait(condition, mutex, &time) != ETIMEDOUT
    }

    package func broadcast() { pthread_cond_broadcast(condition) }
}
