import ArgumentParser
import Glibc
import HPlayerKit

/// `hplayer cache`: what the disk cache holds, and its upkeep.
struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache", abstract: "List, remove and verify what the disk cache holds.",
        subcommands: [List.self, Remove.self, Verify.self, Prefetch.self])

    /// The cache folder option every cache subcommand takes.
    struct Folder: ParsableArguments {
        @Option(name: .customLong("cache-dir"), help: "The disk cache's folder (default $XDG_CACHE_HOME/hplayer).")
        var directory: String?

        func open(reconciles: Bool = true) throws(CommandLineFailure) -> CacheStore {
            let directory = directory ?? CacheStore.defaultDirectory()
            do {
                return try CacheStore(directory: directory, maxBytes: CacheStore.defaultMaxBytes, reconciles: reconciles)
            } catch {
                throw .media(error)
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ls", abstract: "Per URL: the bytes cached, the part of the whole they are, and the last use.")
        @OptionGroup var folder: Folder
        @OptionGroup var common: CommonOptions

        func run() throws {
            common.bootstrapLogging()
            for (entry, cached) in try folder.open().list() {
                let share = entry.contentLength.map { $0 > 0 ? "\(Int(100 * Double(cached) / Double($0)))%" : "100%" } ?? "?"
                print("\(CacheText.size(cached).leftPadded(to: 10))  \(share.leftPadded(to: 4))  \(CacheText.date(entry.lastUsed))  \(entry.url)")
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove a URL from the cache, or everything with --all.")
        @Argument(help: "The URL.") var url: String?
        @Flag(help: "Remove everything.") var all = false
        @OptionGroup var folder: Folder
        @OptionGroup var common: CommonOptions

        func validate() throws {
            guard all != (url != nil) else { throw ValidationError("give a URL or --all") }
        }

        func run() throws {
            common.bootstrapLogging()
            let store = try folder.open()
            if all {
                store.removeAll()
            } else if let url {
                guard store.entry(for: url) != nil else { throw CommandLineFailure.media(MediaError(input: url, reason: "not in the cache")) }
                store.remove(url)
            }
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Check that every fragment file is whole and matches the index, and repair what is not.",
            discussion: """
                Prints a line per problem found and repaired. With --origin, the bytes kept of each URL are also compared \
                with the server's (each fragment fetched as a range), and a URL whose bytes differ, or that the server \
                now describes otherwise, is removed. Exit 0 when the cache is consistent after repair, 1 otherwise \
                (with --origin, also when a server could not be asked).
                """)
        @Flag(help: "Compare the bytes kept with the servers' too.") var origin = false
        @OptionGroup var folder: Folder
        @OptionGroup(title: "Network") var requests: RequestArguments
        @OptionGroup var common: CommonOptions

        func run() throws {
            common.bootstrapLogging()
            let store = try folder.open(reconciles: false)
            for problem in store.verify(repair: true) { print("repaired: \(problem)") }
            let left = store.verify(repair: false)
            for problem in left { print("not repaired: \(problem)") }
            let unchecked = origin ? try compareWithServers(store) : 0
            if !left.isEmpty || unchecked > 0 { throw ExitCode(1) }
        }

        /// Compares each URL's bytes with its server's, removing those that differ; the count of
        /// URLs that could not be checked.
        private func compareWithServers(_ store: CacheStore) throws -> Int {
            var options = NetworkOptions()
            try requests.apply(to: &options)
            var unchecked = 0
            for (entry, _) in store.list() {
                switch OriginCheck.compare(entry, fragments: store.fragments(for: entry.url), options: options) {
                case .same:
                    continue
                case .changed(let change):
                    store.remove(entry.url)
                    print("repaired: \(entry.url): changed on the server (\(change)): removed")
                case .differs(let offset):
                    store.remove(entry.url)
                    print("repaired: \(entry.url): byte \(offset) differs from the server's: removed")
                case .unchecked(let reason):
                    unchecked += 1
                    print("not checked: \(entry.url): \(reason)")
                }
            }
            return unchecked
        }
    }
}

/// How `cache ls` writes sizes and dates.
enum CacheText {
    static func size(_ bytes: Int64) -> String {
        let units = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)]
        for (unit, scale) in units where bytes >= Int64(scale) {
            return "\(cFormat("%.1f", Double(bytes) / Double(scale))) \(unit)"
        }
        return "\(bytes) B"
    }

    /// Unix seconds as local time, "2026-11-24 00:10".
    static func date(_ seconds: Double) -> String {
        var time = time_t(seconds)
        var parts = tm()
        localtime_r(&time, &parts)
        var text = [CChar](repeating: 0, count: 32)
        let count = strftime(&text, text.count, "%Y-%m-%d %H:%M", &parts)
        return String(decoding: text[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
