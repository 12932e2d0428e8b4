
/// The disk cache as configured (`--cache-dir`, `--cache-max-bytes`), opened the first time a
/// network resource needs it: playing a local file never touches it. One that cannot be opened
/// is one warning, and everything is fetched uncached.
public final class DiskCache: Sendable {
    public let directory: String
    public let maxBytes: Int64
    /// Seconds after which what the server last confirmed is checked with it again.
    public let revalidationAge: Double
    private let opened = Locked<Result<CacheStore, MediaError>?>(nil)

    /// An hour: media is seldom replaced, and a check costs a request per resource.
    public static let defaultRevalidationAge = 3600.0

    public init(directory: String = CacheStore.defaultDirectory(), maxBytes: Int64 = CacheStore.defaultMaxBytes,
                revalidationAge: Double = DiskCache.defaultRevalidationAge) {
        self.directory = directory
        self.maxBytes = maxBytes
        self.revalidationAge = revalidationAge
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
