/// The Segment Index box (`sidx`, ISO/IEC 14496-12 §8.16.3) that a SegmentBase's `indexRange`
/// points at: the sizes and durations of the media's subsegments, read as a pure function.
package struct SidxBox: Equatable, Sendable {
    package struct Reference: Equatable, Sendable {
        package var size: UInt32
        package var duration: UInt32
    }

    package var timescale: UInt32
    package var earliestPresentationTime: UInt64
    /// From the first byte after the box to the first subsegment.
    package var firstOffset: UInt64
    package var references: [Reference]
    /// Where the box ends in the bytes it was read from: the subsegments follow (after `firstOffset`).
    package var boxEnd: Int

    /// The first `sidx` box among the top-level boxes of `bytes`.
    package static func parse(_ bytes: [UInt8]) throws(MPDError) -> SidxBox {
        var reader = BoxReader(bytes: bytes)
        while reader.remaining >= 8 {
            let start = reader.position
            guard let size32 = reader.uint32(), let type = reader.fourCC() else { break }
            var size = Int(size32)
            if size32 == 1 {
                guard let large = reader.uint64(), large <= UInt64(Int.max) else { throw MPDError("a box of a size past any file") }
                size = Int(large)
            } else if size32 == 0 {
                size = bytes.count - start
            }
            // Compared as lengths: a declared size can be anything up to 2^63.
            guard size >= reader.position - start, size <= bytes.count - start else {
                throw MPDError(type == "sidx" ? "a truncated sidx box" : "a box running past the index range")
            }
            if type == "sidx" { return try body(&reader, start: start, size: size) }
            reader.position = start + size
        }
        throw MPDError("no sidx box in the index range")
    }

    private static func body(_ reader: inout BoxReader, start: Int, size: Int) throws(MPDError) -> SidxBox {
        let truncated = MPDError("a truncated sidx box")
        guard let versionAndFlags = reader.uint32(), reader.uint32() != nil, let timescale = reader.uint32() else { throw truncated }
        guard timescale > 0 else { throw MPDError("a sidx box of timescale 0") }
        let version = versionAndFlags >> 24
        let earliest: UInt64
        let first: UInt64
        if version == 0 {
            guard let a = reader.uint32(), let b = reader.uint32() else { throw truncated }
            (earliest, first) = (UInt64(a), UInt64(b))
        } else {
            guard let a = reader.uint64(), let b = reader.uint64() else { throw truncated }
            (earliest, first) = (a, b)
        }
        guard reader.uint16() != nil, let count = reader.uint16() else { throw truncated }
        guard Int(count) * 12 <= start + size - reader.position else { throw truncated }
        var references: [Reference] = []
        references.reserveCapacity(Int(count))
        for _ in 0..<count {
            let typeAndSize = reader.uint32()!
            let duration = reader.uint32()!
            _ = reader.uint32()
            guard typeAndSize >> 31 == 0 else { throw MPDError("a sidx box pointing to other sidx boxes (not read yet)") }
            guard typeAndSize > 0 else { throw MPDError("a sidx box listing an empty subsegment") }
            references.append(Reference(size: typeAndSize & 0x7fff_ffff, duration: duration))
        }
        guard first <= UInt64(Int32.max) else { throw MPDError("a sidx box's first offset past any file") }
        return SidxBox(timescale: timescale, earliestPresentationTime: earliest, firstOffset: first, references: references, boxEnd: start + size)
    }
}

/// Big-endian reads over bytes, nil past their end.
struct BoxReader {
    let bytes: [UInt8]
    var position = 0

    var remaining: Int { bytes.count - position }

    mutating func uint16() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { position += 2 }
        return UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1])
    }

    mutating func uint32() -> UInt32? {
        guard remaining >= 4 else { return nil }
        defer { position += 4 }
        return bytes[position..<(position + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func uint64() -> UInt64? {
        guard remaining >= 8 else { return nil }
        defer { position += 8 }
        return bytes[position..<(position + 8)].reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func fourCC() -> String? {
        guard remaining >= 4 else { return nil }
        defer { position += 4 }
        return String(decoding: bytes[position..<(position + 4)], as: UTF8.self)
    }
}
