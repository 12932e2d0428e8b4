/// Commits fragments to the disk cache on a thread of its own: writing, fsync and the index row
/// take milliseconds, which the read thread must not wait for. Blocks wait in a queue bounded by
/// bytes; past the bound a block is not cached (playback never waits on the disk). The first
/// write error (a full disk, `ulimit -f`) is one warning, and nothing more is cached by this writer.
final class CacheWriter: @unchecked Sendable {
    private struct Block {
        let url: String
        let offset: Int64
        let bytes: [UInt8]
    }

    private let store: CacheStore
    /// The URLs committed to: never evicted by this writer (a player reads them now).
    private var inUse: Set<String> = []
    private let lock = ConditionLock()
    // Guarded by `lock`.
    private var queue: [Block] = []
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
            queue.append(Block(url: url, offset: offset, bytes: bytes))
            queuedBytes += bytes.count
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
            let block: Block? = lock.withLock {
                while queue.isEmpty, !isStopping { lock.wait() }
                guard !queue.isEmpty else { return nil }
                let first = queue.removeFirst()
                queuedBytes -= first.bytes.count
                return first
            }
            guard let block else { break }
            inUse.insert(block.url)
            var failure: MediaError?
            block.bytes.withUnsafeBytes { bytes in
                do throws(MediaError) {
                    try store.commitFragment(url: block.url, offset: block.offset, bytes: bytes)
                } catch {
                    failure = error
                }
            }
            if let failure {
                Log.cache.warning("\(failure.input): \(failure.reason); playing on without caching")
                lock.withLock {
                    hasFailed = true
                    queue.removeAll()
                    queuedBytes = 0
                }
                continue
            }
            store.evict(inUse: inUse)
        }
    }
}
