import Synchronization

/// The disk cache as configured (`--cache-dir`, `--cache-max-bytes`), opened the first time a
/// network resource needs it: playing a local file never touches it. One that cannot be opened
/// is one warning, and everything is fetched uncached.
public final class DiskCache: Sendable {
    public let directory: String
    public let maxBytes: Int64
    private let opened = Mutex<Result<CacheStore, MediaError>?>(nil)

    public init(directory: String = CacheStore.defaultDirectory(), maxBytes: Int64 = CacheStore.defaultMaxBytes) {
        self.directory = directory
        self.maxBytes = maxBytes
    }

    /// The store, opened now if it was not yet; nil when it cannot be.
    func store() -> CacheStore? {
        opened.withLock { opened in
            if opened == nil {
                do throws(MediaError) {
                    opened = .success(try CacheStore(directory: directory, maxBytes: maxBytes))
                } catch {
                    Log.cache.warning("\(error.input): \(error.reason); playing without the disk cache")
                    opened = .failure(error)
                }
            }
            return try? opened?.get()
        }
    }
}

extension DiskCache: Equatable {
    public static func == (lhs: DiskCache, rhs: DiskCache) -> Bool { lhs === rhs }
}
