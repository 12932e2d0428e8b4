/// How an initialization section says its track is encrypted (ISO/IEC 23001-7): a sample entry
/// `encv` or `enca` whose `sinf` names the scheme (`schm`: cenc, cbcs…) and the default key ID
/// (`schi/tenc`). Pure: read from the bytes alone.
package struct CENCProtection: Equatable, Sendable {
    /// "cenc" (AES-CTR), "cbcs", "cens" or "cbc1".
    package var scheme: String
    package var keyID: [UInt8]

    /// The scheme for a message: printable letters and digits, else in hex (it comes from the network).
    package var schemeName: String {
        scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } ? scheme : "scheme 0x" + ClearKey.hex(Array(scheme.utf8))
    }

    /// The first encrypted track's protection; nil when no track is encrypted.
    package static func read(initSection bytes: [UInt8]) -> CENCProtection? { all(initSection: bytes).first }

    /// Each encrypted track's protection, in order.
    package static func all(initSection bytes: [UInt8]) -> [CENCProtection] {
        var found: [CENCProtection] = []
        guard let moov = MP4Boxes.children(of: bytes).first(where: { $0.type == "moov" }) else { return [] }
        for trak in MP4Boxes.children(of: bytes, in: moov.payload) where trak.type == "trak" {
            guard let handler = MP4Boxes.handler(of: trak, in: bytes),
                  let stsd = path(["mdia", "minf", "stbl", "stsd"], from: trak, in: bytes), stsd.payload.count >= 8 else { continue }
            let entries = MP4Boxes.children(of: bytes, in: (stsd.payload.lowerBound + 8)..<stsd.payload.upperBound)
            for entry in entries where entry.type == "encv" || entry.type == "enca" {
                guard let fixed = CENCSampleEntry.fixedLength(of: entry, handler: handler, in: bytes), fixed <= entry.payload.count else { continue }
                let children = MP4Boxes.children(of: bytes, in: (entry.payload.lowerBound + fixed)..<entry.payload.upperBound)
                guard let sinf = children.first(where: { $0.type == "sinf" }) else { continue }
                let scheme = MP4Boxes.child("schm", of: sinf, in: bytes).flatMap { schm -> String? in
                    schm.payload.count >= 8 ? String(decoding: bytes[(schm.payload.lowerBound + 4)..<(schm.payload.lowerBound + 8)], as: UTF8.self) : nil
                } ?? "cenc"
                // tenc: version and flags, two reserved bytes, isProtected, the IV size, the key ID.
                guard let tenc = MP4Boxes.child("schi", of: sinf, in: bytes).flatMap({ MP4Boxes.child("tenc", of: $0, in: bytes) }),
                      tenc.payload.count >= 24 else { continue }
                let start = tenc.payload.lowerBound + 8
                found.append(CENCProtection(scheme: scheme, keyID: Array(bytes[start..<(start + 16)])))
                break
            }
        }
        return found
    }

    /// The box down `types` from `box`, each the first of its type.
    static func path(_ types: [String], from box: MP4Box, in bytes: [UInt8]) -> MP4Box? {
        var current = box
        for type in types {
            guard let next = MP4Boxes.child(type, of: current, in: bytes) else { return nil }
            current = next
        }
        return current
    }
}

/// What a sample entry holds before its child boxes.
enum CENCSampleEntry {
    /// Bytes before a sample entry's children: 8 of SampleEntry, then 70 of VisualSampleEntry or
    /// 20 of AudioSampleEntry (16 or 36 more in QuickTime's sound versions 1 and 2).
    static func fixedLength(of entry: MP4Box, handler: String, in bytes: [UInt8]) -> Int? {
        switch handler {
        case "vide": return 78
        case "soun":
            switch MP4Boxes.uint16(bytes, at: entry.payload.lowerBound + 8) {
            case 1: return 44
            case 2: return 64
            default: return 28
            }
        default: return nil
        }
    }
}
