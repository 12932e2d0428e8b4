
/// The disk cache as configured (`--cache-dir`, `--cache-max-bytes`), opened the first time a
/// network resource needs it: playing a local file never touches it. One that cannot be opened
/// is one warning, and everything is fetched uncached. Set it as `NetworkOptions.cache`; one
/// instance may serve several players, and processes may share a directory.
public final class DiskCache: Sendable {
    /// Where the index and the fragment files are; made when the cache is first opened.
    public let directory: String
    /// The size in bytes the cache is kept to: past it, the least recently used entries not in
    /// use are given up.
    public let maxBytes: Int64
    /// Seconds after which what the server last confirmed is checked with it again.
    public let revalidationAge: Double
    private let opened = Locked<Result<CacheStore, MediaError>?>(nil)

    /// An hour: media is seldom replaced, and a check costs a request per resource.
    public static let defaultRevalidationAge = 3600.0

    /// The size `--cache-max-bytes` defaults to: 2 GiB.
    public static var defaultMaxBytes: Int64 { CacheStore.defaultMaxBytes }

    /// `$XDG_CACHE_HOME/hplayer`, else `$HOME/.cache/hplayer`.
    public static func defaultDirectory() -> String { CacheStore.defaultDirectory() }

    /// Opens nothing yet: the directory is made and the index opened when a network resource
    /// first needs them.
    public init(directory: String = DiskCache.defaultDirectory(), maxBytes: Int64 = DiskCache.defaultMaxBytes,
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
    /// The same instance.
    public static func == (lhs: DiskCache, rhs: DiskCache) -> Bool { lhs === rhs }
}
