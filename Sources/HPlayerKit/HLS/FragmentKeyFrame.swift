/// Whether an fMP4 segment's picture starts with a sync sample, read from its boxes: a segment
/// switched to at a boundary must, as an MPEG-TS one must start with a key frame
/// (SegmentKeyFrame). Pure: the initialization section's `moov` names the video track (its
/// `hdlr` says `vide`) and that track's default sample flags (`trex`); the fragment's first
/// `moof` gives the first sample's flags in the video track's `traf` (`trun`'s first-sample or
/// per-sample flags, else `tfhd`'s default, else `trex`'s). A sample is a sync sample unless
/// its flags set sample_is_non_sync_sample.
package enum FragmentKeyFrame {
    /// true or false for a fragment with a video track; nil where it cannot tell.
    package static func startsWithKeyFrame(initSection: [UInt8], fragment: [UInt8]) -> Bool? {
        guard let moov = children(of: initSection, in: 0..<initSection.count).first(where: { $0.type == "moov" }),
              let video = videoTrack(in: initSection, moov: moov.payload),
              let moof = children(of: fragment, in: 0..<fragment.count).first(where: { $0.type == "moof" }) else { return nil }
        for traf in children(of: fragment, in: moof.payload) where traf.type == "traf" {
            let boxes = children(of: fragment, in: traf.payload)
            guard let tfhd = boxes.first(where: { $0.type == "tfhd" }), tfhd.payload.count >= 8,
                  let trackID = uint32(fragment, at: tfhd.payload.lowerBound + 4), trackID == video.trackID else { continue }
            guard let flags = firstSampleFlags(fragment, tfhd: tfhd.payload, trun: boxes.first(where: { $0.type == "trun" })?.payload)
                    ?? video.defaultFlags else { return nil }
            return flags & nonSyncSample == 0
        }
        return nil
    }

    /// sample_is_non_sync_sample in a sample's flags (ISO/IEC 14496-12, 8.8.3.1).
    static let nonSyncSample: UInt32 = 0x0001_0000

    private struct Box {
        let type: String
        let payload: Range<Int>
    }

    /// The boxes one after another in `range`; stops at one that does not fit.
    private static func children(of bytes: [UInt8], in range: Range<Int>) -> [Box] {
        var boxes: [Box] = []
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
            boxes.append(Box(type: type, payload: (offset + header)..<(offset + size)))
            offset += size
        }
        return boxes
    }

    /// The first track whose handler is `vide`: its ID and, from `mvex/trex`, its default sample flags.
    private static func videoTrack(in bytes: [UInt8], moov: Range<Int>) -> (trackID: UInt32, defaultFlags: UInt32?)? {
        let boxes = children(of: bytes, in: moov)
        for trak in boxes where trak.type == "trak" {
            let parts = children(of: bytes, in: trak.payload)
            guard let tkhd = parts.first(where: { $0.type == "tkhd" }),
                  let mdia = parts.first(where: { $0.type == "mdia" }),
                  let hdlr = children(of: bytes, in: mdia.payload).first(where: { $0.type == "hdlr" }),
                  hdlr.payload.count >= 12,
                  String(decoding: bytes[(hdlr.payload.lowerBound + 8)..<(hdlr.payload.lowerBound + 12)], as: UTF8.self) == "vide" else { continue }
            // tkhd: version 1 has 8-byte times before the track ID, version 0 4-byte ones.
            guard !tkhd.payload.isEmpty else { return nil }
            let idOffset = tkhd.payload.lowerBound + (bytes[tkhd.payload.lowerBound] == 1 ? 20 : 12)
            guard idOffset + 4 <= tkhd.payload.upperBound, let trackID = uint32(bytes, at: idOffset) else { return nil }
            let trex = boxes.first { $0.type == "mvex" }
                .flatMap { mvex in children(of: bytes, in: mvex.payload).first { $0.type == "trex" && uint32(bytes, at: $0.payload.lowerBound + 4) == trackID } }
            let defaultFlags = trex.flatMap { $0.payload.count >= 24 ? uint32(bytes, at: $0.payload.lowerBound + 20) : nil }
            return (trackID, defaultFlags)
        }
        return nil
    }

    /// The first sample's flags from `trun` (first_sample_flags, else the first sample's own),
    /// else `tfhd`'s default_sample_flags; nil where neither says.
    private static func firstSampleFlags(_ bytes: [UInt8], tfhd: Range<Int>, trun: Range<Int>?) -> UInt32? {
        if let trun, trun.count >= 8, let head = uint32(bytes, at: trun.lowerBound), let count = uint32(bytes, at: trun.lowerBound + 4), count > 0 {
            let flags = head & 0x00FF_FFFF
            var offset = trun.lowerBound + 8
            if flags & 0x1 != 0 { offset += 4 }  // data_offset
            if flags & 0x4 != 0 { return offset + 4 <= trun.upperBound ? uint32(bytes, at: offset) : nil }
            if flags & 0x400 != 0 {
                if flags & 0x100 != 0 { offset += 4 }  // sample_duration
                if flags & 0x200 != 0 { offset += 4 }  // sample_size
                return offset + 4 <= trun.upperBound ? uint32(bytes, at: offset) : nil
            }
        }
        guard let head = uint32(bytes, at: tfhd.lowerBound), head & 0x20 != 0 else { return nil }
        var offset = tfhd.lowerBound + 8  // version and flags, track ID
        if head & 0x01 != 0 { offset += 8 }  // base_data_offset
        if head & 0x02 != 0 { offset += 4 }  // sample_description_index
        if head & 0x08 != 0 { offset += 4 }  // default_sample_duration
        if head & 0x10 != 0 { offset += 4 }  // default_sample_size
        return offset + 4 <= tfhd.upperBound ? uint32(bytes, at: offset) : nil
    }

    private static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }
}
