/// H.264 in Annex B form: NAL units after 3- or 4-byte start codes (00 00 01, 00 00 00 01).
package enum AnnexB {
    /// One NAL unit: its type (the low 5 bits of its first byte) and where its bytes lie,
    /// start code excluded.
    package struct NALUnit: Equatable, Sendable {
        package var type: Int
        package var range: Range<Int>
    }

    /// The H.264 NAL unit types a writer and a checker care about (ITU-T H.264 table 7-1).
    package enum H264Type {
        package static let slice = 1
        package static let idrSlice = 5
        package static let sei = 6
        package static let sps = 7
        package static let pps = 8
        package static let accessUnitDelimiter = 9
    }

    /// The NAL units in `bytes`, in order. Bytes before the first start code are skipped; the
    /// zero bytes before a start code belong to it, not to the unit before (trailing_zero_8bits).
    package static func nalUnits(in bytes: UnsafeBufferPointer<UInt8>) -> [NALUnit] {
        var units: [NALUnit] = []
        var unitStart: Int?
        var index = 0
        let count = bytes.count
        while index + 2 < count {
            if bytes[index + 2] > 1 {
                index += 3
            } else if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 {
                if let start = unitStart { units.append(unit(bytes, start, trimmingZerosBefore: index)) }
                unitStart = index + 3
                index += 3
            } else {
                index += 1
            }
        }
        if let start = unitStart, start < count { units.append(unit(bytes, start, trimmingZerosBefore: count)) }
        return units.filter { !$0.range.isEmpty }
    }

    package static func nalUnits(in bytes: [UInt8]) -> [NALUnit] {
        bytes.withUnsafeBufferPointer { nalUnits(in: $0) }
    }

    private static func unit(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, trimmingZerosBefore end: Int) -> NALUnit {
        var end = end
        while end > start, bytes[end - 1] == 0 { end -= 1 }
        let type = start < end ? Int(bytes[start] & 0x1F) : -1
        return NALUnit(type: type, range: start..<end)
    }

    /// Whether every access unit that holds an IDR slice also holds an SPS and a PPS before the
    /// IDR's first slice. `accessUnits` are the NAL unit types of each access unit, in order.
    package static func everyIDRHasParameterSets(_ accessUnits: [[Int]]) -> Bool {
        accessUnits.allSatisfy { types in
            guard let idr = types.firstIndex(of: H264Type.idrSlice) else { return true }
            let before = types[..<idr]
            return before.contains(H264Type.sps) && before.contains(H264Type.pps)
        }
    }
}
