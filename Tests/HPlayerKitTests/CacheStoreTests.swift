import Foundation
import Glibc
import Testing
@testable import HPlayerKit

@Suite struct CacheStoreTests {
    /// A cache folder's path, `cache` in a folder of its own that is removed after `body`.
    static func withFolder(_ body: (String) async throws -> Void) async throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("hplayer-cache-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: parent) }
        try await body(parent + "/cache")
    }

    static func withCache(maxBytes: Int64 = 1 << 30, _ body: (CacheStore) async throws -> Void) async throws {
        try await withFolder { directory in
            try await body(try CacheStore(directory: directory, maxBytes: maxBytes))
        }
    }

    static let url = "https://example.com/movie.mp4"
    static let entry = CacheEntry(url: url, contentLength: 1000, mimeType: "video/mp4", entityTag: "\"v1\"",
                                  lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", acceptsRanges: true, lastUsed: 100, checkedAt: 90)

    static func commit(_ store: CacheStore, _ url: String = url, offset: Int64, _ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try store.commitFragment(url: url, offset: offset, bytes: $0) }
    }

    static func bytes(_ count: Int, from first: UInt8 = 0) -> [UInt8] {
        (0..<count).map { first &+ UInt8(truncatingIfNeeded: $0) }
    }

    static func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { Array($0) }
    }

    static func dataFiles(_ store: CacheStore) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: store.directory + "/data")) ?? []).sorted()
    }

    static func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path)
    }

    @Test func anEntryIsSavedAndReadBack() async throws {
        try await Self.withCache { store in
            #expect(store.entry(for: Self.url) == nil)
            store.save(Self.entry)
            #expect(store.entry(for: Self.url) == Self.entry)
            let sparse = CacheEntry(url: "https://example.com/live", acceptsRanges: false)
            store.save(sparse)
            #expect(store.entry(for: sparse.url) == sparse)
            var later = Self.entry
            later.lastUsed = 200
            later.mimeType = nil
            store.save(later)
            #expect(store.entry(for: Self.url) == later)
        }
    }

    @Test func aThroughputEstimateIsKeptPerServerAndReplaced() async throws {
        try await Self.withFolder { directory in
            let store = try CacheStore(directory: directory, maxBytes: 1 << 30)
            #expect(store.savedThroughput(for: "http://a.test") == nil)
            let before = Date().timeIntervalSince1970
            store.saveThroughput(2_500_000, for: "http://a.test")
            store.saveThroughput(900_000, for: "http://b.test")
            store.saveThroughput(3_000_000, for: "http://a.test")
            // Read by another store on the folder, as the next session would.
            let reopened = try CacheStore(directory: directory, maxBytes: 1 << 30)
            let saved = try #require(reopened.savedThroughput(for: "http://a.test"))
            #expect(saved.bitsPerSecond == 3_000_000 && saved.savedAt >= before - 1 && saved.savedAt <= Date().timeIntervalSince1970 + 1)
            #expect(reopened.savedThroughput(for: "http://b.test")?.bitsPerSecond == 900_000)
            reopened.removeAll()
            #expect(store.savedThroughput(for: "http://a.test") == nil)
        }
    }

    @Test func sameContentIsTheSameLengthAndValidators() {
        let entry = Self.entry
        var other = entry
        other.lastUsed = 5
        other.mimeType = "video/webm"
        #expect(entry.hasSameContent(as: other))
        other.entityTag = "\"v2\""
        #expect(!entry.hasSameContent(as: other))
        other = entry
        other.contentLength = 1001
        #expect(!entry.hasSameContent(as: other))
        other = entry
        other.lastModified = nil
        #expect(!entry.hasSameContent(as: other))
        #expect(CacheEntry(url: "a").hasSameContent(as: CacheEntry(url: "a", checkedAt: 5)))
    }

    @Test func committedBytesAreReadBackFromTheirFiles() async throws {
        try await Self.withCache { store in
            store.save(Self.entry)
            let first = Self.bytes(300, from: 7)
            let second = Self.bytes(100, from: 1)
            try Self.commit(store, offset: 500, second)
            try Self.commit(store, offset: 0, first)
            let fragments = store.fragments(for: Self.url)
            #expect(fragments.map(\.offset) == [0, 500])
            #expect(fragments.map(\.length) == [300, 100])
            #expect(fragments.allSatisfy { $0.path.hasPrefix(store.directory + "/data/") && $0.path.hasSuffix(".frag") })
            #expect(Self.contents(fragments[0].path) == first)
            #expect(Self.contents(fragments[1].path) == second)
            #expect(store.fragments(for: "https://example.com/other").isEmpty)
            #expect(store.verify(repair: false).isEmpty)
        }
    }

    @Test func aFragmentNeedsItsEntry() async throws {
        try await Self.withCache { store in
            #expect(throws: MediaError.self) { try Self.commit(store, offset: 0, Self.bytes(10)) }
            #expect(Self.dataFiles(store).isEmpty)
            #expect(store.fragments(for: Self.url).isEmpty)
        }
    }

    @Test func changedValidatorsDropTheFragments() async throws {
        try await Self.withCache { store in
            store.save(Self.entry)
            try Self.commit(store, offset: 0, Self.bytes(10))
            let path = try #require(store.fragments(for: Self.url).first).path
            var touched = Self.entry
            touched.lastUsed = 500
            touched.checkedAt = 500
            store.save(touched)
            #expect(store.fragments(for: Self.url).count == 1)
            var changed = touched
            changed.entityTag = "\"v2\""
            store.save(changed)
            #expect(store.entry(for: Self.url) == changed)
            #expect(store.fragments(for: Self.url).isEmpty)
            #expect(!Self.exists(path))
        }
    }

    @Test func aNewStoreOnTheSameFolderKeepsEverything() async throws {
        try await Self.withCache { store in
            store.save(Self.entry)
            try Self.commit(store, offset: 100, Self.bytes(50))
            let reopened = try CacheStore(directory: store.directory, maxBytes: store.maxBytes)
            #expect(reopened.entry(for: Self.url) == Self.entry)
            #expect(reopened.fragments(for: Self.url) == store.fragments(for: Self.url))
            #expect(reopened.list().map(\.cachedBytes) == [50])
            #expect(Self.contents(reopened.fragments(for: Self.url)[0].path) == Self.bytes(50))
            // Shared by processes: readers never wait for a writer.
            let database = try SQLiteDatabase(path: store.directory + "/index.sqlite")
            #expect(try database.query("PRAGMA journal_mode") { $0.text(0) } == ["wal"])
        }
    }

    /// Commits three fragments, then plants what a crash or a meddler leaves: a temporary file, a
    /// file without a row, a truncated file, and a row whose file is gone.
    static func damage(_ store: CacheStore) throws -> (kept: CachedFragment, planted: [String]) {
        store.save(entry)
        try commit(store, offset: 0, bytes(100))
        try commit(store, offset: 100, bytes(100))
        try commit(store, offset: 200, bytes(100))
        let fragments = store.fragments(for: url)
        let data = store.directory + "/data/"
        let temporary = data + "00000000000000aa.tmp"
        let orphan = data + "00000000000000bb.frag"
        // Private, as the cache makes its own: the damage here is to the content, not the modes.
        #expect(FileManager.default.createFile(atPath: temporary, contents: Data(count: 10), attributes: [.posixPermissions: 0o600]))
        #expect(FileManager.default.createFile(atPath: orphan, contents: Data(count: 10), attributes: [.posixPermissions: 0o600]))
        #expect(truncate(fragments[1].path, 40) == 0)
        try FileManager.default.removeItem(atPath: fragments[2].path)
        return (fragments[0], [temporary, orphan, fragments[1].path])
    }

    @Test func openingReconcilesFilesWithTheIndex() async throws {
        try await Self.withCache { store in
            let (kept, planted) = try Self.damage(store)
            let reopened = try CacheStore(directory: store.directory, maxBytes: store.maxBytes)
            #expect(reopened.fragments(for: Self.url) == [kept])
            #expect(Self.dataFiles(reopened) == [String(kept.path.split(separator: "/").last!)])
            #expect(!planted.contains(where: Self.exists))
            #expect(reopened.verify(repair: false).isEmpty)
        }
    }

    @Test func verifyReportsEachProblemThenRepairsThem() async throws {
        try await Self.withCache { store in
            let (kept, planted) = try Self.damage(store)
            let problems = store.verify(repair: false)
            #expect(problems.count == 4, "\(problems)")
            #expect(planted.allSatisfy(Self.exists))
            #expect(store.fragments(for: Self.url).count == 3)
            #expect(store.verify(repair: true) == problems)
            #expect(store.verify(repair: false).isEmpty)
            #expect(store.fragments(for: Self.url) == [kept])
            #expect(!planted.contains(where: Self.exists))
        }
    }

    @Test func aTemporaryFileBeingWrittenIsLeftAlone() async throws {
        try await Self.withCache { store in
            let files = FragmentDirectory(path: store.directory + "/data")
            let (id, descriptor) = try Self.bytes(10).withUnsafeBytes { try files.writeTemporary($0) }
            let temporary = files.path(of: id + ".tmp")
            // Another process opening the cache meanwhile.
            _ = try CacheStore(directory: store.directory, maxBytes: store.maxBytes)
            #expect(store.verify(repair: true).isEmpty)
            #expect(Self.exists(temporary))
            close(descriptor)
            #expect(store.verify(repair: true).count == 1)
            #expect(!Self.exists(temporary))
        }
    }

    @Test func evictionDropsTheLeastRecentlyUsedButNotThoseInUse() async throws {
        try await Self.withCache(maxBytes: 100) { store in
            for (index, url) in ["a", "b", "c", "d"].enumerated() {
                store.save(CacheEntry(url: url, contentLength: 40, lastUsed: Double(index)))
                try Self.commit(store, url, offset: 0, Self.bytes(40))
            }
            let paths = store.fragments(for: "b").map(\.path) + store.fragments(for: "c").map(\.path)
            #expect(store.evict(inUse: ["a"]) == ["b", "c"])
            #expect(store.list().map(\.entry.url) == ["d", "a"])
            #expect(store.fragments(for: "b").isEmpty && store.fragments(for: "c").isEmpty)
            #expect(!paths.contains(where: Self.exists))
            #expect(store.evict(inUse: []).isEmpty)
            #expect(store.verify(repair: false).isEmpty)
        }
    }

    @Test func evictionSparesWhatAnotherLivePlayerIsFetching() async throws {
        try await Self.withCache(maxBytes: 50) { store in
            for (index, url) in ["a", "b"].enumerated() {
                store.save(CacheEntry(url: url, contentLength: 40, lastUsed: Double(index)))
                try Self.commit(store, url, offset: 0, Self.bytes(40))
            }
            let other = try CacheStore(directory: store.directory, maxBytes: store.maxBytes)
            withExtendedLifetime(other) {
                #expect(other.claim(ByteRange(start: 40, end: 80), of: "a").count == 1)
                #expect(store.evict(inUse: []) == ["b"], "a, used longest ago, is being fetched by the other player")
            }
        }
    }

    @Test func touchMakesAnEntryTheMostRecentlyUsed() async throws {
        try await Self.withCache { store in
            store.save(CacheEntry(url: "a", lastUsed: 1))
            store.save(CacheEntry(url: "b", lastUsed: 2))
            let before = Date().timeIntervalSince1970
            store.touch("a")
            let lastUsed = try #require(store.entry(for: "a")).lastUsed
            #expect(lastUsed >= before - 1 && lastUsed <= Date().timeIntervalSince1970 + 1)
            #expect(store.list().map(\.entry.url) == ["a", "b"])
        }
    }

    @Test func listCountsOverlappingBytesOnce() async throws {
        try await Self.withCache { store in
            store.save(CacheEntry(url: "a", contentLength: 1000, lastUsed: 1))
            store.save(CacheEntry(url: "b", lastUsed: 2))
            try Self.commit(store, "a", offset: 0, Self.bytes(100))
            try Self.commit(store, "a", offset: 50, Self.bytes(100))
            let list = store.list()
            #expect(list.map(\.entry.url) == ["b", "a"])
            #expect(list.map(\.cachedBytes) == [0, 150])
        }
    }

    @Test func removingDropsRowsAndFiles() async throws {
        try await Self.withCache { store in
            for url in ["a", "b"] {
                store.save(CacheEntry(url: url))
                try Self.commit(store, url, offset: 0, Self.bytes(10))
            }
            store.remove("a")
            #expect(store.entry(for: "a") == nil && store.fragments(for: "a").isEmpty)
            #expect(store.entry(for: "b") != nil)
            #expect(Self.dataFiles(store).count == 1)
            store.removeAll()
            #expect(store.list().isEmpty)
            #expect(Self.dataFiles(store).isEmpty)
        }
    }

    @Test func aDamagedIndexIsMovedAsideAndAFreshCacheWorks() async throws {
        try await Self.withFolder { directory in
            // Closed, as by a process that has ended: the index is whole in index.sqlite.
            do {
                let store = try CacheStore(directory: directory, maxBytes: 1000)
                store.save(Self.entry)
                try Self.commit(store, offset: 0, Self.bytes(10))
            }
            #expect(!Self.exists(directory + "/index.sqlite-wal"))
            #expect(FileManager.default.createFile(atPath: directory + "/index.sqlite", contents: Data(repeating: 0x47, count: 8192)))
            let fresh = try CacheStore(directory: directory, maxBytes: 1000)
            #expect(fresh.entry(for: Self.url) == nil)
            #expect(Self.dataFiles(fresh).isEmpty)
            fresh.save(Self.entry)
            try Self.commit(fresh, offset: 0, Self.bytes(10))
            #expect(fresh.fragments(for: Self.url).count == 1)
            let parent = (directory as NSString).deletingLastPathComponent
            #expect(try FileManager.default.contentsOfDirectory(atPath: parent).contains { $0.hasPrefix("cache.broken-") })
        }
    }

    @Test func anIndexOfANewerSchemaIsMovedAside() async throws {
        try await Self.withCache { store in
            store.save(Self.entry)
            let database = try SQLiteDatabase(path: store.directory + "/index.sqlite")
            try database.run("UPDATE meta SET value = ? WHERE name = 'schema_version'", [.integer(CacheStore.schemaVersion + 1)])
            let fresh = try CacheStore(directory: store.directory, maxBytes: store.maxBytes)
            #expect(fresh.entry(for: Self.url) == nil)
            let parent = (store.directory as NSString).deletingLastPathComponent
            #expect(try FileManager.default.contentsOfDirectory(atPath: parent).contains { $0.hasPrefix("cache.broken-") })
        }
    }

    @Test func twoStoresOnOneFolderBothCommit() async throws {
        try await Self.withCache { store in
            let other = try CacheStore(directory: store.directory, maxBytes: store.maxBytes)
            store.save(Self.entry)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, writer) in [store, other].enumerated() {
                    group.addTask {
                        for fragment in 0..<20 {
                            let offset = Int64(index * 20 + fragment) * 10
                            try Self.commit(writer, offset: offset, Self.bytes(10, from: UInt8(offset / 10)))
                        }
                    }
                }
                try await group.waitForAll()
            }
            for reader in [store, other] {
                let fragments = reader.fragments(for: Self.url)
                #expect(fragments.map(\.offset) == (0..<40).map { Int64($0) * 10 })
                #expect(fragments.allSatisfy { Self.contents($0.path) == Self.bytes(10, from: UInt8($0.offset / 10)) })
                #expect(reader.verify(repair: false).isEmpty)
            }
        }
    }

    @Test func aRangeIsClaimedByOneStoreAtATime() async throws {
        try await Self.withCache { store in
            let other = try CacheStore(directory: store.directory, maxBytes: store.maxBytes)
            let first = store.claim(ByteRange(start: 0, end: 100), of: Self.url)
            #expect(first.map(\.range) == [ByteRange(start: 0, end: 100)])
            // The other gets only what the first did not claim; another URL is free.
            #expect(other.claim(ByteRange(start: 50, end: 150), of: Self.url).map(\.range) == [ByteRange(start: 100, end: 150)])
            #expect(other.claim(ByteRange(start: 0, end: 10), of: Self.url + "?2").map(\.range) == [ByteRange(start: 0, end: 10)])
            // A store's own claims count too: its second reader of those bytes keeps none of them.
            #expect(store.claim(ByteRange(start: 0, end: 50), of: Self.url).isEmpty)
            store.releaseClaims(first)
            #expect(other.claim(ByteRange(start: 0, end: 100), of: Self.url).map(\.range) == [ByteRange(start: 0, end: 100)])
        }
    }

    @Test func theClaimsOfAStoreThatIsGoneAreStale() async throws {
        try await Self.withCache { store in
            do {
                // Never released: as a process killed while fetching leaves them.
                let gone = try CacheStore(directory: store.directory, maxBytes: store.maxBytes)
                withExtendedLifetime(gone) {
                    #expect(gone.claim(ByteRange(start: 0, end: .max), of: Self.url).count == 1)
                    #expect(store.claim(ByteRange(start: 0, end: 10), of: Self.url).isEmpty)
                }
            }
            #expect(store.claim(ByteRange(start: 0, end: 10), of: Self.url).map(\.range) == [ByteRange(start: 0, end: 10)])
            #expect((try? FileManager.default.contentsOfDirectory(atPath: store.directory + "/owners"))?.count == 1)
        }
    }

    @Test func holdsTellsWhetherEveryByteOfARangeOrAResourceIsCached() async throws {
        try await Self.withCache { store in
            store.save(Self.entry)  // 1000 bytes
            try Self.commit(store, offset: 0, Self.bytes(400))
            try Self.commit(store, offset: 400, Self.bytes(600))
            let other = "https://example.com/other.ts"
            store.save(CacheEntry(url: other, contentLength: 100))
            try Self.commit(store, other, offset: 0, Self.bytes(50))
            let held = store.holds([
                (Self.url, nil), (Self.url, ByteRange(start: 100, end: 900)), (other, nil), (other, ByteRange(start: 0, end: 50)),
                (other, ByteRange(start: 40, end: 60)), ("https://example.com/none.ts", nil),
            ])
            #expect(held == [true, true, false, true, false, false])
        }
    }
}
