import Glibc

/// The disk cache: byte ranges of URLs kept in files under `directory/data`, indexed by an
/// SQLite database, `directory/index.sqlite`, which several processes may share.
///
/// Crash-safe by order: a fragment's file is complete and synced before a row names it, and a row
/// is deleted before its file. A kill at any instant leaves at worst a file without a row or a
/// temporary file, which the next start removes (`verify(repair: true)`).
package final class CacheStore: Sendable {
    /// The index's layout. An index of another version is moved aside rather than misread.
    static let schemaVersion: Int64 = 1

    /// The size `--cache-max-bytes` defaults to: 2 GiB.
    package static let defaultMaxBytes: Int64 = 2 << 30

    package let directory: String
    package let maxBytes: Int64
    private let files: FragmentDirectory
    /// DIR/owners: the lock files of the processes that hold range claims.
    private let owners: String
    /// This store's mark for its range claims, made at its first claim.
    private let owner = Locked<CacheOwner?>(nil)
    /// Held for each use of the connection, which is not thread-safe.
    private let index: Locked<SQLiteDatabase>

    /// `$XDG_CACHE_HOME/hplayer`, else `$HOME/.cache/hplayer`.
    package static func defaultDirectory() -> String {
        // The XDG spec has a relative path ignored.
        if let cache = getenv("XDG_CACHE_HOME").map({ String(cString: $0) }), cache.hasPrefix("/") {
            return cache + "/hplayer"
        }
        return (getenv("HOME").map { String(cString: $0) } ?? "") + "/.cache/hplayer"
    }

    /// Creates the directory, opens or creates DIR/index.sqlite (WAL mode, busy_timeout ≥ 5 s so
    /// two processes can share it), and, with `reconciles`, reconciles files with the index
    /// (`verify(repair: true)`; `hplayer cache verify` does that itself, to report it). A
    /// directory whose index cannot be opened, is damaged, or has a schema version other than
    /// this code's (a newer hplayer's) is moved aside to DIR.broken-<unix time> with a warning,
    /// and a fresh one is made; throws MediaError(input: directory, reason:) only when even that
    /// fails (not writable, say), or when another process holds the index locked past the busy
    /// timeout.
    package init(directory: String, maxBytes: Int64, reconciles: Bool = true) throws(MediaError) {
        let directory = Self.absolutePath(directory)
        self.directory = directory
        self.maxBytes = maxBytes
        files = FragmentDirectory(path: directory + "/data")
        owners = directory + "/owners"
        try Self.makeDirectories(directory)
        let database: SQLiteDatabase
        do {
            database = try Self.openIndex(in: directory)
        } catch {
            switch error {
            case .busy(let reason):
                // A sound index another process is using: moving it aside would wreck that process's cache.
                throw MediaError(input: directory, reason: "the cache index is locked by another process: \(reason)")
            case .unusable(let reason):
                let aside = try Self.moveAside(directory, because: reason)
                Log.cache.warning("the cache index in \(directory) cannot be used (\(reason)): moved the cache to \(aside), starting an empty one")
                try Self.makeDirectories(directory)
                do {
                    database = try Self.openIndex(in: directory)
                } catch {
                    switch error {
                    case .busy(let reason), .unusable(let reason): throw MediaError(input: directory, reason: reason)
                    }
                }
            }
        }
        index = Locked(database)
        if reconciles {
            let widened = CachePermissions.check(directory, repair: true)
            if !widened.isEmpty {
                Log.cache.warning("the cache at \(directory) could be read by other users: made private (folders 0700, files 0600; \(widened.count) changed)")
            }
        }
        let repaired = reconciles ? verify(repair: true) : []
        if !repaired.isEmpty {
            Log.cache.info("repaired \(repaired.count) problems in the cache at \(directory)")
            for problem in repaired {
                Log.cache.debug("repaired: \(problem)")
            }
        }
    }

    package func entry(for url: String) -> CacheEntry? {
        withIndex("read the entry of \(url)", fallback: nil) { database throws(SQLiteError) in
            try Self.entry(for: url, in: database)
        }
    }

    /// Upserts the entry. When a stored entry exists and !stored.hasSameContent(as: new), its
    /// fragments (rows and files) are dropped first: two versions are never mixed.
    package func save(_ entry: CacheEntry) {
        let dropped = withIndex("save the entry of \(entry.url)", fallback: []) { database throws(SQLiteError) in
            try database.writeTransaction { () throws(SQLiteError) -> [String] in
                var dropped: [String] = []
                if let stored = try Self.entry(for: entry.url, in: database), !stored.hasSameContent(as: entry) {
                    dropped = try Self.deleteFragments(of: entry.url, in: database)
                }
                try database.run("INSERT OR REPLACE INTO entries (\(Self.entryColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [
                    .text(entry.url), SQLiteValue(entry.contentLength), SQLiteValue(entry.mimeType),
                    SQLiteValue(entry.entityTag), SQLiteValue(entry.lastModified), .integer(entry.acceptsRanges ? 1 : 0),
                    .real(entry.lastUsed), .real(entry.checkedAt),
                ])
                return dropped
            }
        }
        if !dropped.isEmpty {
            Log.cache.info("\(entry.url) has changed: dropped its \(dropped.count) cached fragments")
        }
        files.remove(dropped)
    }

    /// Sorted by offset.
    package func fragments(for url: String) -> [CachedFragment] {
        withIndex("read the fragments of \(url)", fallback: []) { database throws(SQLiteError) in
            try fragments(of: url, in: database)
        }
    }

    /// Writes the bytes to a temporary file in DIR/data/, fsyncs it, renames it to its final
    /// name, fsyncs the directory, then inserts the row (in that order: a kill at any instant
    /// loses at most this fragment). Requires an entry for `url` to exist (save first). Throws
    /// MediaError on a write error (disk full, ulimit -f: the caller warns once and goes on
    /// uncached); with SIGXFSZ ignored, as the caller's process does, a file size limit is EFBIG.
    /// No bytes, no fragment.
    package func commitFragment(url: String, offset: Int64, bytes: UnsafeRawBufferPointer) throws(MediaError) {
        guard !bytes.isEmpty else { return }
        // Written and synced before the index is locked: the slow part keeps no reader waiting.
        let (id, descriptor) = try files.writeTemporary(bytes)
        // Closing releases the temporary file's lock, once it has its final name or is discarded.
        defer { close(descriptor) }
        let outcome: Result<Void, MediaError> = index.withLock { database in
            do throws(SQLiteError) {
                return try database.writeTransaction { () throws(SQLiteError) -> Result<Void, MediaError> in
                    guard try Self.entry(for: url, in: database) != nil else {
                        return .failure(MediaError(input: url, reason: "no cache entry: a URL's entry is saved before its fragments"))
                    }
                    // Renamed under the index's write lock, so that a reconcile in another
                    // process never sees the file before its row.
                    do throws(MediaError) {
                        try files.publish(id)
                    } catch {
                        return .failure(error)
                    }
                    try database.run("INSERT INTO fragments (url, offset, length, file) VALUES (?, ?, ?, ?)", [
                        .text(url), .integer(offset), .integer(Int64(bytes.count)), .text(FragmentDirectory.fragmentName(id)),
                    ])
                    return .success(())
                }
            } catch {
                return .failure(MediaError(input: url, reason: "cannot index a cached fragment: \(error.message)"))
            }
        }
        do {
            try outcome.get()
        } catch {
            files.discard(id)
            throw error
        }
    }

    /// Sets lastUsed to now.
    package func touch(_ url: String) {
        withIndex("touch \(url)", fallback: ()) { database throws(SQLiteError) in
            try database.run("UPDATE entries SET last_used = ? WHERE url = ?", [.real(WallClock.now()), .text(url)])
        }
    }

    package func remove(_ url: String) {
        let dropped = withIndex("remove \(url)", fallback: []) { database throws(SQLiteError) in
            try database.writeTransaction { () throws(SQLiteError) -> [String] in
                try Self.deleteEntry(of: url, in: database)
            }
        }
        files.remove(dropped)
    }

    package func removeAll() {
        withIndex("empty the cache", fallback: ()) { database throws(SQLiteError) in
            try database.writeTransaction { () throws(SQLiteError) in
                try database.execute("DELETE FROM fragments; DELETE FROM entries; DELETE FROM claims; DELETE FROM estimates")
                // Under the write lock no other process publishes a fragment, so every file
                // can go but a temporary one still being written.
                do throws(MediaError) {
                    try files.removeAll()
                } catch {
                    Log.cache.warning("cannot empty \(error.input): \(error.reason)")
                }
                // The keys kept on purpose for the cached streams go with them.
                unlink(KeptKeys(directory: directory).path)
            }
        }
    }

    /// For each URL and byte range (nil: the whole resource), whether the cache holds every
    /// byte of it: one read of the index for them all (the segments of a playlist).
    package func holds(_ wanted: [(url: String, range: ByteRange?)]) -> [Bool] {
        withIndex("read what is cached", fallback: wanted.map { _ in false }) { database throws(SQLiteError) in
            var known: [String: (entry: CacheEntry?, fragments: [CachedFragment])] = [:]
            return try wanted.map { item throws(SQLiteError) in
                if known[item.url] == nil {
                    let entry = try Self.entry(for: item.url, in: database)
                    known[item.url] = (entry, entry == nil ? [] : try fragments(of: item.url, in: database))
                }
                let (entry, fragments) = known[item.url]!
                guard let entry, let range = item.range ?? entry.contentLength.map({ ByteRange(start: 0, end: $0) }),
                      range.end > range.start else { return false }
                return FragmentCoverage.pieces(offset: range.start, length: range.end - range.start, contentLength: entry.contentLength,
                                               fragments: fragments).allSatisfy { if case .cached = $0 { true } else { false } }
            }
        }
    }

    /// The throughput estimate saved for `host` by the last session that played from it.
    package func savedThroughput(for host: String) -> StartupEstimate.Saved? {
        withIndex("read the throughput estimate for \(host)", fallback: nil) { database throws(SQLiteError) in
            try database.query("SELECT bits_per_second, saved_at FROM estimates WHERE host = ?", [.text(host)]) { row in
                StartupEstimate.Saved(bitsPerSecond: row.real(0) ?? 0, savedAt: row.real(1) ?? 0)
            }.first
        }
    }

    /// Keeps `bitsPerSecond` as `host`'s estimate, for the next session's first variant.
    package func saveThroughput(_ bitsPerSecond: Double, for host: String) {
        withIndex("save the throughput estimate for \(host)", fallback: ()) { database throws(SQLiteError) in
            try database.run("INSERT OR REPLACE INTO estimates (host, bits_per_second, saved_at) VALUES (?, ?, ?)",
                             [.text(host), .real(bitsPerSecond), .real(WallClock.now())])
        }
    }

    /// Claims for this store's writers the parts of `range` of `url` that no live writer claims
    /// (this store's other readers included): what it may keep of what it fetches there. Another
    /// writer's claim whose owner has died (its lock file is free) is dropped first. Where the
    /// index cannot be asked, the whole range comes back unclaimed (id nil): a range kept twice
    /// only costs space. Release with `releaseClaims`.
    package func claim(_ range: ByteRange, of url: String) -> [RangeClaim] {
        let unchecked = [RangeClaim(id: nil, range: range)]
        let name: String
        do {
            name = try owner.withLock { owner throws(MediaError) in
                if owner == nil { owner = try CacheOwner(folder: owners) }
                return owner!.name
            }
        } catch {
            Log.cache.debug("\(error.input): \(error.reason): caching without range claims")
            return unchecked
        }
        return withIndex("claim a range of \(url)", fallback: unchecked) { database throws(SQLiteError) in
            try database.writeTransaction { () throws(SQLiteError) -> [RangeClaim] in
                let rows = try database.query("SELECT offset, end_offset, owner FROM claims WHERE url = ? AND offset < ? AND end_offset > ?",
                                              [.text(url), .integer(range.end), .integer(range.start)]) { row in
                    (range: ByteRange(start: row.integer(0) ?? 0, end: row.integer(1) ?? 0), owner: row.text(2) ?? "")
                }
                var held: [ByteRange] = []
                var dead: Set<String> = []
                for row in rows where !dead.contains(row.owner) {
                    if row.owner == name || CacheOwner.isAlive(row.owner, in: owners) {
                        held.append(row.range)
                    } else {
                        dead.insert(row.owner)
                    }
                }
                for stale in dead {
                    try database.run("DELETE FROM claims WHERE owner = ?", [.text(stale)])
                }
                return try RangeClaims.unclaimed(range, held: held).map { free throws(SQLiteError) in
                    try database.run("INSERT INTO claims (url, offset, end_offset, owner) VALUES (?, ?, ?, ?)",
                                     [.text(url), .integer(free.start), .integer(free.end), .text(name)])
                    return RangeClaim(id: database.lastInsertedRowID, range: free)
                }
            }
        }
    }

    /// Ends claims made by `claim`: other writers may keep those bytes from now on.
    package func releaseClaims(_ claims: [RangeClaim]) {
        let ids = claims.compactMap(\.id)
        guard !ids.isEmpty else { return }
        withIndex("release range claims", fallback: ()) { database throws(SQLiteError) in
            try database.writeTransaction { () throws(SQLiteError) in
                for id in ids {
                    try database.run("DELETE FROM claims WHERE id = ?", [.integer(id)])
                }
            }
        }
    }

    /// Drops least recently used URLs (rows and files) until the total fragment bytes are at or
    /// under maxBytes; never a URL in `inUse`, nor one another live player is fetching (it holds
    /// a range claim on it). Returns the URLs dropped.
    @discardableResult
    package func evict(inUse: Set<String>) -> [String] {
        let (victims, dropped) = withIndex("evict", fallback: ([], [])) { database throws(SQLiteError) in
            try database.writeTransaction { () throws(SQLiteError) -> ([String], [String]) in
                let sizes = try database.query("""
                    SELECT entries.url, COALESCE(SUM(fragments.length), 0), entries.last_used
                    FROM entries LEFT JOIN fragments ON fragments.url = entries.url GROUP BY entries.url
                    """) { row in (url: row.text(0) ?? "", bytes: row.integer(1) ?? 0, lastUsed: row.real(2) ?? 0) }
                let claimed = try database.query("SELECT DISTINCT url, owner FROM claims") { row in (url: row.text(0) ?? "", owner: row.text(1) ?? "") }
                let fetched = claimed.filter { CacheOwner.isAlive($0.owner, in: owners) }.map(\.url)
                let victims = CacheEviction.victims(sizes: sizes, maxBytes: maxBytes, inUse: inUse.union(fetched))
                var dropped: [String] = []
                for url in victims {
                    dropped += try Self.deleteEntry(of: url, in: database)
                }
                return (victims, dropped)
            }
        }
        files.remove(dropped)
        if !victims.isEmpty {
            Log.cache.debug("evicted \(victims.count) URLs, \(dropped.count) fragments, to stay under \(maxBytes) bytes")
        }
        return victims
    }

    /// Per URL: the entry, the bytes cached (FragmentCoverage.coveredBytes), in lastUsed order,
    /// newest first.
    package func list() -> [(entry: CacheEntry, cachedBytes: Int64)] {
        withIndex("list the cache", fallback: []) { database throws(SQLiteError) in
            let entries = try database.query("SELECT \(Self.entryColumns) FROM entries ORDER BY last_used DESC, url", row: Self.entry(from:))
            var fragments: [String: [CachedFragment]] = [:]
            let rows = try database.query("SELECT url, offset, length, file FROM fragments") { row in
                (url: row.text(0) ?? "", fragment: fragment(from: row, column: 1))
            }
            for row in rows {
                if let fragment = row.fragment { fragments[row.url, default: []].append(fragment) }
            }
            return entries.map { entry in
                (entry, FragmentCoverage.coveredBytes(of: fragments[entry.url] ?? [], contentLength: entry.contentLength))
            }
        }
    }

    /// Checks every row against its file (exists, size equals length) and every file in DIR/data
    /// against a row; with `repair`, deletes what is wrong (rows without files, files without
    /// rows or of the wrong size, temporary files no writer holds, rows without an entry).
    /// Returns one line per problem found (empty: consistent).
    ///
    /// Runs under the index's write lock: no fragment is published meanwhile, so a file found
    /// without a row is one whose row will never come.
    package func verify(repair: Bool) -> [String] {
        index.withLock { database in
            do throws(SQLiteError) {
                return try database.writeTransaction { () throws(SQLiteError) -> [String] in
                    try reconcile(database, repair: repair)
                }
            } catch {
                Log.cache.warning("cannot check the cache at \(directory): \(error.message)")
                return ["index.sqlite: \(error.message)"]
            }
        }
    }

    private func reconcile(_ database: SQLiteDatabase, repair: Bool) throws(SQLiteError) -> [String] {
        if repair {
            try? files.create()
        }
        let modes = CachePermissions.check(directory, repair: repair).map { "\($0) (readable by other users)" }
        var sizes: [String: Int64]
        do {
            sizes = try files.list()
        } catch {
            // Without the listing every row would look orphaned: check nothing.
            return ["data: \(error.reason)"]
        }
        let rows = try database.query("""
            SELECT fragments.id, fragments.url, fragments.offset, fragments.length, fragments.file, entries.url IS NOT NULL
            FROM fragments LEFT JOIN entries ON entries.url = fragments.url ORDER BY fragments.url, fragments.offset
            """) { row in
            (id: row.integer(0) ?? 0, url: row.text(1) ?? "", offset: row.integer(2) ?? 0, length: row.integer(3) ?? 0,
             file: row.text(4) ?? "", hasEntry: row.integer(5) == 1)
        }
        var problems: [String] = []
        var badRows: [Int64] = []
        var badFiles: [String] = []
        for row in rows {
            let fragment = "\(row.url) at \(row.offset)"
            guard FragmentDirectory.isFragmentName(row.file) else {
                problems.append("\(fragment): the row names no fragment file (\(row.file))")
                badRows.append(row.id)
                continue
            }
            guard let size = sizes.removeValue(forKey: row.file) else {
                problems.append("\(fragment): data/\(row.file) is missing")
                badRows.append(row.id)
                continue
            }
            if !row.hasEntry {
                problems.append("\(fragment): the URL has no entry")
            } else if size != row.length {
                problems.append("\(fragment): data/\(row.file) holds \(size) bytes, its row says \(row.length)")
            } else {
                continue
            }
            badRows.append(row.id)
            badFiles.append(row.file)
        }
        for name in sizes.keys.sorted() {
            if name.hasSuffix(".tmp") {
                if files.isAbandonedTemporary(name, removing: repair) {
                    problems.append("data/\(name): left by an interrupted write")
                }
            } else {
                problems.append("data/\(name): no row names it")
                badFiles.append(name)
            }
        }
        if repair {
            for id in badRows {
                try database.run("DELETE FROM fragments WHERE id = ?", [.integer(id)])
            }
            files.remove(badFiles)
        }
        return modes + problems
    }

    // MARK: The index

    /// Why an index cannot be used.
    private enum IndexFailure: Error {
        /// Another process holds it locked: it may be sound.
        case busy(String)
        /// It cannot be opened, is damaged, or is of another schema version.
        case unusable(String)
    }

    private static let entryColumns = "url, content_length, mime_type, etag, last_modified, accepts_ranges, last_used, checked_at"

    private static let schema = """
        CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
        INSERT INTO meta (name, value) VALUES ('schema_version', \(schemaVersion));
        CREATE TABLE entries (
            url TEXT PRIMARY KEY,
            content_length INTEGER,
            mime_type TEXT,
            etag TEXT,
            last_modified TEXT,
            accepts_ranges INTEGER NOT NULL,
            last_used REAL NOT NULL,
            checked_at REAL NOT NULL
        );
        CREATE TABLE fragments (
            id INTEGER PRIMARY KEY,
            url TEXT NOT NULL,
            offset INTEGER NOT NULL,
            length INTEGER NOT NULL,
            file TEXT NOT NULL
        );
        CREATE INDEX fragments_by_url ON fragments (url);
        """

    /// Tables added since version 1, made where an index lacks them, with no change of version:
    /// range claims, only meaningful while their owners live, and each server's last throughput
    /// estimate (bits per second, and when it was saved).
    private static let addedTables = """
        CREATE TABLE IF NOT EXISTS estimates (
            host TEXT PRIMARY KEY,
            bits_per_second REAL NOT NULL,
            saved_at REAL NOT NULL
        );
        CREATE TABLE IF NOT EXISTS claims (
            id INTEGER PRIMARY KEY,
            url TEXT NOT NULL,
            offset INTEGER NOT NULL,
            end_offset INTEGER NOT NULL,
            owner TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS claims_by_url ON claims (url);
        """

    private static func openIndex(in directory: String) throws(IndexFailure) -> SQLiteDatabase {
        do {
            try FragmentDirectory(path: directory + "/data").create()
        } catch {
            throw .unusable("data: \(error.reason)")
        }
        // Made private before SQLite makes it (0644), since its -wal and -shm take its mode.
        let indexFile = open(directory + "/index.sqlite", O_RDWR | O_CREAT | O_CLOEXEC, CachePermissions.fileMode)
        if indexFile >= 0 { close(indexFile) }
        let database: SQLiteDatabase
        let version: Int64
        do {
            database = try SQLiteDatabase(path: directory + "/index.sqlite")
            // Set before anything reads the file: another process may be writing.
            try database.execute("PRAGMA busy_timeout = 5000")
            // WAL: readers never wait for a writer. NORMAL syncs at checkpoints only: a power
            // cut may lose the last commits, never the index's consistency, and the files of
            // lost rows are removed by the reconcile.
            try database.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
            try database.checkIntegrity()
            version = try database.writeTransaction { () throws(SQLiteError) -> Int64 in
                let hasMeta: [Void] = try database.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'") { _ in () }
                guard !hasMeta.isEmpty else {
                    try database.execute(schema + addedTables)
                    return schemaVersion
                }
                let version = try database.query("SELECT value FROM meta WHERE name = 'schema_version'") { $0.integer(0) ?? 0 }.first ?? 0
                if version == schemaVersion { try database.execute(addedTables) }
                return version
            }
        } catch {
            throw error.isBusy ? .busy(error.message) : .unusable(error.message)
        }
        guard version == schemaVersion else {
            throw .unusable("schema version \(version), where this hplayer reads \(schemaVersion)")
        }
        return database
    }

    /// Runs `body` on the connection, under its lock; a failure is logged and gives `fallback`:
    /// a cache that fails only makes playback fetch its bytes again.
    private func withIndex<Result>(_ action: @autoclosure () -> String, fallback: Result, _ body: (SQLiteDatabase) throws(SQLiteError) -> Result) -> Result {
        index.withLock { database in
            do throws(SQLiteError) {
                return try body(database)
            } catch {
                Log.cache.warning("cannot \(action()) in the cache at \(directory): \(error.message)")
                return fallback
            }
        }
    }

    private static func entry(for url: String, in database: SQLiteDatabase) throws(SQLiteError) -> CacheEntry? {
        try database.query("SELECT \(entryColumns) FROM entries WHERE url = ?", [.text(url)], row: entry(from:)).first
    }

    /// The columns of `entryColumns`, in order.
    private static func entry(from row: SQLiteRow) -> CacheEntry {
        CacheEntry(url: row.text(0) ?? "", contentLength: row.integer(1), mimeType: row.text(2), entityTag: row.text(3),
                   lastModified: row.text(4), acceptsRanges: row.integer(5) != 0, lastUsed: row.real(6) ?? 0,
                   checkedAt: row.real(7) ?? 0)
    }

    /// The fragments of `url`, sorted by offset.
    private func fragments(of url: String, in database: SQLiteDatabase) throws(SQLiteError) -> [CachedFragment] {
        try database.query("SELECT offset, length, file FROM fragments WHERE url = ? ORDER BY offset, id", [.text(url)]) { row in
            fragment(from: row, column: 0)
        }.compactMap { $0 }
    }

    /// Offset, length and file name from `column` on; nil for a name that is not a fragment file's.
    private func fragment(from row: SQLiteRow, column: Int32) -> CachedFragment? {
        guard let name = row.text(column + 2), FragmentDirectory.isFragmentName(name) else { return nil }
        return CachedFragment(offset: row.integer(column) ?? 0, length: row.integer(column + 1) ?? 0, path: files.path(of: name))
    }

    /// Deletes the fragment rows of `url`; returns their files' names, to delete once the
    /// transaction has committed (a row never outlives its file).
    private static func deleteFragments(of url: String, in database: SQLiteDatabase) throws(SQLiteError) -> [String] {
        let names = try database.query("SELECT file FROM fragments WHERE url = ?", [.text(url)]) { $0.text(0) ?? "" }
        try database.run("DELETE FROM fragments WHERE url = ?", [.text(url)])
        return names.filter(FragmentDirectory.isFragmentName)
    }

    /// Deletes the entry of `url` and its fragment rows; returns the fragments' file names.
    private static func deleteEntry(of url: String, in database: SQLiteDatabase) throws(SQLiteError) -> [String] {
        let names = try deleteFragments(of: url, in: database)
        try database.run("DELETE FROM entries WHERE url = ?", [.text(url)])
        return names
    }

    // MARK: The directory

    private static func absolutePath(_ path: String) -> String {
        var path = path
        // A trailing slash would put DIR.broken-… inside DIR.
        while path.count > 1, path.hasSuffix("/") {
            path.removeLast()
        }
        guard !path.hasPrefix("/"), let current = getcwd(nil, 0) else { return path }
        defer { free(current) }
        return String(cString: current) + "/" + path
    }

    /// Creates `path` and any parent folder it lacks, each private.
    private static func makeDirectories(_ path: String) throws(MediaError) {
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            guard mkdir(prefix, CachePermissions.folderMode) == 0 || errno == EEXIST else {
                throw MediaError(input: path, reason: "cannot create the cache folder: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Renames the cache folder to DIR.broken-<unix time> (with a counter where that is taken);
    /// returns the new name.
    private static func moveAside(_ directory: String, because reason: String) throws(MediaError) -> String {
        let base = "\(directory).broken-\(Int(WallClock.now()))"
        var aside = base
        var counter = 1
        while rename(directory, aside) != 0 {
            guard errno == EEXIST || errno == ENOTEMPTY else {
                throw MediaError(input: directory, reason: "the cache index cannot be used (\(reason)), nor moved aside: \(String(cString: strerror(errno)))")
            }
            aside = "\(base).\(counter)"
            counter += 1
        }
        return aside
    }
}
