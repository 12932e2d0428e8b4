import Glibc

/// HLS keys kept on disk on purpose, for playing an encrypted stream offline: only
/// `hplayer cache prefetch --keep-keys` writes them. They lie in DIR/keys (the cache folder's),
/// mode 0600, a line per key: its 32 hex digits, a space, its URL. Nothing else writes a key to
/// disk: a key fetched while playing is held in memory alone. Whoever can read this file can
/// decrypt the cached segments it names, as the user who kept them can.
struct KeptKeys {
    let path: String

    init(directory: String) { path = directory + "/keys" }

    /// The key kept for `url`; nil when none is (or the file cannot be read).
    func key(for url: String) -> [UInt8]? {
        entries()[url]
    }

    /// Keeps `key` for `url`, replacing one kept before; the file is rewritten whole.
    func keep(_ key: [UInt8], for url: String) throws(MediaError) {
        var kept = entries()
        kept[url] = key
        let text = kept.keys.sorted().map { url in Self.hex(kept[url]!) + " " + url + "\n" }.joined()
        try WholeFile.write(Array(text.utf8), to: path, mode: CachePermissions.fileMode)
    }

    private func entries() -> [String: [UInt8]] {
        guard let bytes = try? WholeFile.read(path, limit: 1 << 20) else { return [:] }
        var kept: [String: [UInt8]] = [:]
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            guard let space = line.firstIndex(of: " "), let key = Self.bytes(ofHex: line[..<space]) else { continue }
            kept[String(line[line.index(after: space)...])] = key
        }
        return kept
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0 >> 4, radix: 16) + String($0 & 15, radix: 16) }.joined()
    }

    /// 32 hex digits as 16 bytes; nil for anything else.
    private static func bytes(ofHex text: Substring) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count == 2 * SegmentDecryptor.blockSize else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }
}
