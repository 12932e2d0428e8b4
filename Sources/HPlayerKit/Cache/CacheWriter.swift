/// Commits fragments to the disk cache on a thread of its own: writing, fsync and the index row
/// take milliseconds, which the read thread must not wait for. Blocks wait in a queue bounded by
/// bytes; past the bound a block is not cached (playback never waits on the disk). The first
/// write error (a full disk, `ulimit -f`) is one warning, and nothing more is cached by this writer.
final class CacheWriter: @unchecked Sendable {
    private enum Job {
        case fragment(url: String, offset: Int64, bytes: [UInt8])
        /// Claims whose blocks are all queued before this: released once those are committed.
        case release([RangeClaim])
    }

    private let store: CacheStore
    /// The URLs committed to: never evicted by this writer (a player reads them now).
    private var inUse: Set<String> = []
    private let lock = ConditionLock()
    // Guarded by `lock`.
    private var queue: [Job] = []
    private var queuedBytes = 0
    private var isStopping = false
    private var hasFailed = false
    private var thread: JoinableThread?

    /// Blocks queued past this many bytes are not cached.
    static let queueLimit = 32 << 20

    init(store: CacheStore) {
        self.store = store
        thread = JoinableThread(name: "hp-cache") { [self] in run() }
    }

    /// Queues `bytes`, received whole from `offset` of `url`, to be committed.
    func commit(url: String, offset: Int64, bytes: [UInt8]) {
        lock.withLock {
            guard !hasFailed, !isStopping else { return }
            guard queuedBytes + bytes.count <= Self.queueLimit else {
                Log.cache.debug("\(url): the cache writer is behind; bytes \(offset)+\(bytes.count) not cached")
                return
            }
            queue.append(.fragment(url: url, offset: offset, bytes: bytes))
            queuedBytes += bytes.count
            lock.broadcast()
        }
    }

    /// Queues the release of `claims`, after the blocks queued so far (always done, even after a
    /// write error: another writer may then keep those bytes).
    func release(_ claims: [RangeClaim]) {
        guard !claims.isEmpty else { return }
        lock.withLock {
            queue.append(.release(claims))
            lock.broadcast()
        }
    }

    /// Commits what is queued, then ends the thread.
    func stop() {
        lock.withLock {
            isStopping = true
            lock.broadcast()
        }
        thread?.join()
    }

    private func run() {
        while true {
            let job: Job? = lock.withLock {
                while queue.isEmpty, !isStopping { lock.wait() }
                guard !queue.isEmpty else { return nil }
                let first = queue.removeFirst()
                if case let .fragment(_, _, bytes) = first { queuedBytes -= bytes.count }
                return first
            }
            switch job {
            case nil:
                return
            case let .release(claims):
                store.releaseClaims(claims)
            case let .fragment(url, offset, bytes):
                write(url: url, offset: offset, bytes: bytes)
            }
        }
    }

    private func write(url: String, offset: Int64, bytes: [UInt8]) {
        inUse.insert(url)
        var failure: MediaError?
        bytes.withUnsafeBytes { bytes in
            do throws(MediaError) {
                try store.commitFragment(url: url, offset: offset, bytes: bytes)
            } catch {
                failure = error
            }
        }
        guard let failure else {
            store.evict(inUse: inUse)
            return
        }
        Log.cache.warning("\(failure.input): \(failure.reason); playing on without caching")
        lock.withLock {
            hasFailed = true
            // Releases still to come are kept.
            queue.removeAll { if case .fragment = $0 { true } else { false } }
            queuedBytes = 0
        }
    }
}
