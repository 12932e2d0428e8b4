import Synchronization

/// A content key of Common Encryption: the 16-byte key ID that a track's `tenc` and a
/// manifest's `default_KID` name, and the 16-byte AES key. Held in memory alone: never in the
/// disk cache, a log line or a stats file.
package struct ClearKey: Equatable, Sendable {
    package var keyID: [UInt8]
    package var key: [UInt8]

    package init(keyID: [UInt8], key: [UInt8]) {
        self.keyID = keyID
        self.key = key
    }

    /// `KID:KEY[,KID:KEY…]`, each 32 hex digits (a key ID may be written as a UUID, with dashes).
    package static func parseList(_ text: String) throws(ClearKeyError) -> [ClearKey] {
        var keys: [ClearKey] = []
        for pair in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = pair.split(separator: ":", omittingEmptySubsequences: false)
            // The pair is not repeated in the message: it may hold a key.
            guard parts.count == 2 else { throw ClearKeyError("expected KID:KEY pairs separated by commas") }
            guard let keyID = bytes(hex: parts[0].filter { $0 != "-" }) else { throw ClearKeyError("a key ID is 32 hex digits, got '\(parts[0])'") }
            guard let key = bytes(hex: String(parts[1])) else { throw ClearKeyError("the key for \(hex(keyID)) is not 32 hex digits") }
            keys.append(ClearKey(keyID: keyID, key: key))
        }
        return keys
    }

    /// 16 bytes from 32 hex digits; nil for anything else.
    package static func bytes(hex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count == 32 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 32, by: 2) {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    package static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xf)]] }, as: UTF8.self)
    }

    /// A key ID as a UUID (8-4-4-4-12), as an MPD's `cenc:default_KID` writes it.
    package static func uuid(_ keyID: [UInt8]) -> String {
        let text = Array(hex(keyID))
        guard text.count == 32 else { return hex(keyID) }
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(text[$0]) }.joined(separator: "-")
    }
}

package struct ClearKeyError: Error, Equatable {
    package let reason: String
    init(_ reason: String) { self.reason = reason }
}

/// The keys a presentation's streams know: the user's, then those a license server gave. The
/// picture's stream and its audio rendition's share one, so a key is asked for once.
package final class ClearKeyRing: Sendable {
    private let keys: Mutex<[ClearKey]>

    package init(_ keys: [ClearKey]) {
        self.keys = Mutex(keys)
    }

    package func key(for keyID: [UInt8]) -> [UInt8]? {
        keys.withLock { keys in keys.first { $0.keyID == keyID }?.key }
    }

    package func add(_ more: [ClearKey]) {
        keys.withLock { $0 += more }
    }
}
