/// What the packager needs of each track to encrypt its samples.
struct CENCTrack: Equatable, Sendable {
    /// The picture: NAL units, each after a big-endian length of `nalLengthSize` bytes. The sound
    /// is encrypted whole.
    var nalLengthSize: Int?
    var isHEVC = false
    /// `mvex/trex`'s default sample size, for fragments that give none of their own.
    var defaultSampleSize: UInt32?
}

/// An initialization section made into an encrypted one (ISO/IEC 23001-7, scheme `cenc`): each
/// track's sample entry becomes `encv` or `enca`, with a `sinf` naming the original format
/// (`frma`), the scheme (`schm`) and the key ID with 8-byte per-sample IVs (`schi/tenc`).
/// Every box on the way up gets its new size.
enum CENCInitSection {
    static func protect(_ bytes: [UInt8], keyID: [UInt8]) throws(CENCPackagingError) -> (bytes: [UInt8], tracks: [UInt32: CENCTrack]) {
        var tracks: [UInt32: CENCTrack] = [:]
        var output: [UInt8] = []
        let boxes = MP4Boxes.children(of: bytes)
        guard boxes.last?.range.upperBound == bytes.count else { throw CENCPackagingError("an initialization section that ends inside a box") }
        for box in boxes {
            guard box.type == "moov" else {
                output += bytes[box.range]
                continue
            }
            var moov: [UInt8] = []
            for child in MP4Boxes.children(of: bytes, in: box.payload) {
                guard child.type == "trak" else {
                    moov += bytes[child.range]
                    continue
                }
                guard let handler = MP4Boxes.handler(of: child, in: bytes), let trackID = MP4Boxes.trackID(of: child, in: bytes) else {
                    throw CENCPackagingError("a track without a handler or an ID")
                }
                var track = CENCTrack()
                moov += try rebuild(child, in: bytes, handler: handler, keyID: keyID, track: &track)
                tracks[trackID] = track
            }
            output += MP4Boxes.box("moov", moov)
        }
        guard !tracks.isEmpty else { throw CENCPackagingError("no track to encrypt") }
        if let trexes = defaultSampleSizes(in: bytes) {
            for (trackID, size) in trexes { tracks[trackID]?.defaultSampleSize = size }
        }
        return (output, tracks)
    }

    /// `box` rebuilt down to its sample descriptions, each entry protected.
    private static func rebuild(_ box: MP4Box, in bytes: [UInt8], handler: String, keyID: [UInt8], track: inout CENCTrack) throws(CENCPackagingError) -> [UInt8] {
        switch box.type {
        case "trak", "mdia", "minf", "stbl":
            var payload: [UInt8] = []
            for child in MP4Boxes.children(of: bytes, in: box.payload) { payload += try rebuild(child, in: bytes, handler: handler, keyID: keyID, track: &track) }
            return MP4Boxes.box(box.type, payload)
        case "stsd":
            // Version, flags and the entry count, then the entries.
            guard box.payload.count >= 8 else { throw CENCPackagingError("a short stsd") }
            var payload = Array(bytes[box.payload.lowerBound..<(box.payload.lowerBound + 8)])
            for child in MP4Boxes.children(of: bytes, in: (box.payload.lowerBound + 8)..<box.payload.upperBound) {
                payload += try protectedEntry(child, handler: handler, keyID: keyID, in: bytes, track: &track)
            }
            return MP4Boxes.box("stsd", payload)
        default:
            return Array(bytes[box.range])
        }
    }

    private static func protectedEntry(_ entry: MP4Box, handler: String, keyID: [UInt8], in bytes: [UInt8], track: inout CENCTrack) throws(CENCPackagingError) -> [UInt8] {
        guard let fixed = CENCSampleEntry.fixedLength(of: entry, handler: handler, in: bytes), fixed <= entry.payload.count else {
            throw CENCPackagingError("a \(entry.type) sample entry of a \(handler) track: not encrypted by this packager")
        }
        if handler == "vide" {
            let children = MP4Boxes.children(of: bytes, in: (entry.payload.lowerBound + fixed)..<entry.payload.upperBound)
            // The NAL length size: avcC's fifth byte, hvcC's twenty-second, in their low two bits.
            if let avcC = children.first(where: { $0.type == "avcC" }), avcC.payload.count > 4 {
                track.nalLengthSize = Int(bytes[avcC.payload.lowerBound + 4] & 3) + 1
            } else if let hvcC = children.first(where: { $0.type == "hvcC" }), hvcC.payload.count > 21 {
                track.nalLengthSize = Int(bytes[hvcC.payload.lowerBound + 21] & 3) + 1
                track.isHEVC = true
            } else {
                throw CENCPackagingError("a \(entry.type) picture: only H.264 and HEVC are encrypted by this packager")
            }
        }
        let frma = MP4Boxes.box("frma", Array(entry.type.utf8))
        let schm = MP4Boxes.fullBox("schm", Array("cenc".utf8) + MP4Boxes.bytes(UInt32(0x0001_0000)))
        // Two reserved bytes, isProtected, an 8-byte IV per sample, the key ID.
        let tenc = MP4Boxes.fullBox("tenc", [0, 0, 1, 8] + keyID)
        let sinf = MP4Boxes.box("sinf", frma + schm + MP4Boxes.box("schi", tenc))
        return MP4Boxes.box(handler == "vide" ? "encv" : "enca", Array(bytes[entry.payload]) + sinf)
    }

    /// Each track's default sample size from `moov/mvex/trex` (track ID, then four 32-bit defaults).
    private static func defaultSampleSizes(in bytes: [UInt8]) -> [UInt32: UInt32]? {
        guard let moov = MP4Boxes.children(of: bytes).first(where: { $0.type == "moov" }),
              let mvex = MP4Boxes.child("mvex", of: moov, in: bytes) else { return nil }
        var sizes: [UInt32: UInt32] = [:]
        for trex in MP4Boxes.children(of: bytes, in: mvex.payload) where trex.type == "trex" && trex.payload.count >= 24 {
            if let trackID = MP4Boxes.uint32(bytes, at: trex.payload.lowerBound + 4),
               let size = MP4Boxes.uint32(bytes, at: trex.payload.lowerBound + 16) { sizes[trackID] = size }
        }
        return sizes
    }
}

struct CENCPackagingError: Error, Equatable {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
