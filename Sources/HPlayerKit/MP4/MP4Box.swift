/// An ISO BMFF box found in bytes: its type, where it lies whole, and where its payload lies.
package struct MP4Box: Equatable, Sendable {
    package let type: String
    package let range: Range<Int>
    package let payload: Range<Int>
}

/// Reading and writing ISO BMFF boxes (ISO/IEC 14496-12) over plain bytes.
package enum MP4Boxes {
    /// The boxes one after another in `range`; stops at one that does not fit.
    package static func children(of bytes: [UInt8], in range: Range<Int>) -> [MP4Box] {
        var boxes: [MP4Box] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound, let size32 = uint32(bytes, at: offset) {
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            var header = 8
            var size = Int(size32)
            if size32 == 1 {
                guard offset + 16 <= range.upperBound, let high = uint32(bytes, at: offset + 8), let low = uint32(bytes, at: offset + 12),
                      let large = Int(exactly: UInt64(high) << 32 | UInt64(low)) else { break }
                size = large
                header = 16
            } else if size32 == 0 {
                size = range.upperBound - offset
            }
            // Compared without adding: a size read from the network may be near Int.max.
            guard size >= header, size <= range.upperBound - offset else { break }
            boxes.append(MP4Box(type: type, range: offset..<(offset + size), payload: (offset + header)..<(offset + size)))
            offset += size
        }
        return boxes
    }

    /// The top-level boxes of `bytes`.
    package static func children(of bytes: [UInt8]) -> [MP4Box] { children(of: bytes, in: 0..<bytes.count) }

    /// The first child of `box` of `type`.
    package static func child(_ type: String, of box: MP4Box, in bytes: [UInt8]) -> MP4Box? {
        children(of: bytes, in: box.payload).first { $0.type == type }
    }

    package static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32? {
        guard offset >= 0, offset <= bytes.count - 4 else { return nil }
        return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    package static func uint16(_ bytes: [UInt8], at offset: Int) -> UInt16? {
        guard offset >= 0, offset <= bytes.count - 2 else { return nil }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    /// A track's handler (`vide`, `soun`) from its `mdia/hdlr`.
    package static func handler(of trak: MP4Box, in bytes: [UInt8]) -> String? {
        guard let mdia = child("mdia", of: trak, in: bytes), let hdlr = child("hdlr", of: mdia, in: bytes), hdlr.payload.count >= 12 else { return nil }
        return String(decoding: bytes[(hdlr.payload.lowerBound + 8)..<(hdlr.payload.lowerBound + 12)], as: UTF8.self)
    }

    /// A track's ID from its `tkhd` (version 1 has 8-byte times before it, version 0 4-byte ones).
    package static func trackID(of trak: MP4Box, in bytes: [UInt8]) -> UInt32? {
        guard let tkhd = child("tkhd", of: trak, in: bytes), !tkhd.payload.isEmpty else { return nil }
        let offset = tkhd.payload.lowerBound + (bytes[tkhd.payload.lowerBound] == 1 ? 20 : 12)
        return offset + 4 <= tkhd.payload.upperBound ? uint32(bytes, at: offset) : nil
    }

    // MARK: Writing

    /// A box of `type` around `payload` (32-bit size: what is written here is small).
    package static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        bytes(UInt32(8 + payload.count)) + Array(type.utf8) + payload
    }

    /// A full box: `version` and 24 bits of `flags` before `payload`.
    package static func fullBox(_ type: String, version: UInt8 = 0, flags: UInt32 = 0, _ payload: [UInt8]) -> [UInt8] {
        box(type, [version, UInt8(flags >> 16 & 0xff), UInt8(flags >> 8 & 0xff), UInt8(flags & 0xff)] + payload)
    }

    package static func bytes(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    package static func bytes(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xff)] }

    /// Writes `value` over the four bytes at `offset`.
    package static func set(_ value: UInt32, in bytes: inout [UInt8], at offset: Int) {
        bytes.replaceSubrange(offset..<(offset + 4), with: Self.bytes(value))
    }
}
