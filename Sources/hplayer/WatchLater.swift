import FoundationEssentials
import Glibc
import HPlayerKit

/// Positions remembered per file, as mpv's watch later: `Q` quits and remembers where playback
/// stood (so does `q` with `--save-position-on-quit`), and `--resume` starts there and forgets it.
/// One small file per media file in `$XDG_STATE_HOME/hplayer/watch_later` (`~/.local/state` when
/// unset), named by a hash of the media's absolute path.
struct WatchLater {
    let folder: String

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let state = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? "/") + "/.local/state"
        folder = state + "/hplayer/watch_later"
    }

    func save(position: Double, for url: String) throws(MediaError) {
        try Self.makeDirectories(folder)
        let path = file(for: url)
        // Whole or not at all: a kill while saving leaves the last position remembered.
        do {
            try WholeFile.write(Array("# \(Self.absolute(url))\nstart=\(position)\n".utf8), to: path)
        } catch {
            throw MediaError(input: path, reason: "cannot remember the position: \(error.reason)")
        }
    }

    /// The remembered position, which is forgotten: a later `--resume` starts from the top
    /// unless the position is remembered again.
    func takePosition(for url: String) -> Double? {
        let path = file(for: url)
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        try? FileManager.default.removeItem(atPath: path)
        return text.split(separator: "\n").lazy.compactMap { line in
            line.hasPrefix("start=") ? Double(line.dropFirst("start=".count)) : nil
        }.first.flatMap { $0 >= 0 ? $0 : nil }
    }

    func file(for url: String) -> String {
        folder + "/" + Self.key(for: Self.absolute(url))
    }

    /// A file given by a relative path is the same file from any folder.
    static func absolute(_ url: String) -> String {
        guard !url.contains("://"), !url.hasPrefix("/") else { return url }
        return FileManager.default.currentDirectoryPath + "/" + url
    }

    /// FNV-1a, 64 bits, in hex: a stable name for a path (no cryptography wanted).
    static func key(for path: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in path.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Makes `path` a folder, and the folders above it, where they are not already; the error
    /// names the part of the path that is in the way.
    static func makeDirectories(_ path: String) throws(MediaError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            var status = stat()
            if stat(prefix, &status) == 0 {
                guard status.st_mode & S_IFMT == S_IFDIR else { throw MediaError(input: prefix, reason: "not a directory") }
            } else if mkdir(prefix, 0o755) != 0, errno != EEXIST {
                throw MediaError(input: prefix, reason: String(cString: strerror(errno)))
            }
            prefix += "/"
        }
    }
}
