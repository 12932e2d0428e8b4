/// The RFC 6381 codec names a master playlist's CODECS lists.
enum CodecString {
    /// `avc1.PPCCLL` from an SPS unit (its NAL header first): profile_idc, the constraint flags
    /// and level_idc, in hex; nil for anything shorter.
    static func avc(sps: ArraySlice<UInt8>) -> String? {
        guard sps.count >= 4 else { return nil }
        let start = sps.startIndex
        return "avc1." + [sps[start + 1], sps[start + 2], sps[start + 3]].map(hex).joined()
    }

    /// AAC: `mp4a.40.` and the audio object type (2 for LC).
    static func aac(objectType: Int) -> String { "mp4a.40.\(objectType)" }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }
}
