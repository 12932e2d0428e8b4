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
        guard let moov = MP4Boxes.children(of: initSection, in: 0..<initSection.count).first(where: { $0.type == "moov" }),
              let video = videoTrack(in: initSection, moov: moov.payload),
              let moof = MP4Boxes.children(of: fragment, in: 0..<fragment.count).first(where: { $0.type == "moof" }) else { return nil }
        for traf in MP4Boxes.children(of: fragment, in: moof.payload) where traf.type == "traf" {
            let boxes = MP4Boxes.children(of: fragment, in: traf.payload)
            guard let tfhd = boxes.first(where: { $0.type == "tfhd" }), tfhd.payload.count >= 8,
                  let trackID = MP4Boxes.uint32(fragment, at: tfhd.payload.lowerBound + 4), trackID == video.trackID else { continue }
            guard let flags = firstSampleFlags(fragment, tfhd: tfhd.payload, trun: boxes.first(where: { $0.type == "trun" })?.payload)
                    ?? video.defaultFlags else { return nil }
            return flags & nonSyncSample == 0
        }
        return nil
    }

    /// sample_is_non_sync_sample in a sample's flags (ISO/IEC 14496-12, 8.8.3.1).
    static let nonSyncSample: UInt32 = 0x0001_0000

    /// The first track whose handler is `vide`: its ID and, from `mvex/trex`, its default sample flags.
    private static func videoTrack(in bytes: [UInt8], moov: Range<Int>) -> (trackID: UInt32, defaultFlags: UInt32?)? {
        let boxes = MP4Boxes.children(of: bytes, in: moov)
        for trak in boxes where trak.type == "trak" && MP4Boxes.handler(of: trak, in: bytes) == "vide" {
            guard let trackID = MP4Boxes.trackID(of: trak, in: bytes) else { return nil }
            let trex = boxes.first { $0.type == "mvex" }
                .flatMap { mvex in MP4Boxes.children(of: bytes, in: mvex.payload).first { $0.type == "trex" && MP4Boxes.uint32(bytes, at: $0.payload.lowerBound + 4) == trackID } }
            let defaultFlags = trex.flatMap { $0.payload.count >= 24 ? MP4Boxes.uint32(bytes, at: $0.payload.lowerBound + 20) : nil }
            return (trackID, defaultFlags)
        }
        return nil
    }

    /// The first sample's flags from `trun` (first_sample_flags, else the first sample's own),
    /// else `tfhd`'s default_sample_flags; nil where neither says.
    private static func firstSampleFlags(_ bytes: [UInt8], tfhd: Range<Int>, trun: Range<Int>?) -> UInt32? {
        if let trun, trun.count >= 8, let head = MP4Boxes.uint32(bytes, at: trun.lowerBound), let count = MP4Boxes.uint32(bytes, at: trun.lowerBound + 4), count > 0 {
            let flags = head & 0x00FF_FFFF
            var offset = trun.lowerBound + 8
            if flags & 0x1 != 0 { offset += 4 }  // data_offset
            if flags & 0x4 != 0 { return offset + 4 <= trun.upperBound ? MP4Boxes.uint32(bytes, at: offset) : nil }
            if flags & 0x400 != 0 {
                if flags & 0x100 != 0 { offset += 4 }  // sample_duration
                if flags & 0x200 != 0 { offset += 4 }  // sample_size
                return offset + 4 <= trun.upperBound ? MP4Boxes.uint32(bytes, at: offset) : nil
            }
        }
        guard let head = MP4Boxes.uint32(bytes, at: tfhd.lowerBound), head & 0x20 != 0 else { return nil }
        var offset = tfhd.lowerBound + 8  // version and flags, track ID
        if head & 0x01 != 0 { offset += 8 }  // base_data_offset
        if head & 0x02 != 0 { offset += 4 }  // sample_description_index
        if head & 0x08 != 0 { offset += 4 }  // default_sample_duration
        if head & 0x10 != 0 { offset += 4 }  // default_sample_size
        return offset + 4 <= tfhd.upperBound ? MP4Boxes.uint32(bytes, at: offset) : nil
    }
}
