import Testing
@testable import HPlayerKit

/// Whether a segment starts with a key frame, on transport streams built here packet by packet.
@Suite struct SegmentKeyFrameTests {
    /// A 188-byte packet of `pid`: `payload` after the header (and an adaptation field with the
    /// random access flag when `randomAccess`), padded with 0xFF.
    static func packet(pid: Int, unitStart: Bool, randomAccess: Bool = false, _ payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [0x47, UInt8(pid >> 8) | (unitStart ? 0x40 : 0), UInt8(pid & 0xFF), randomAccess ? 0x30 : 0x10]
        if randomAccess { bytes += [1, 0x40] }
        bytes += payload
        return bytes + [UInt8](repeating: 0xFF, count: 188 - bytes.count)
    }

    /// PAT (program 1 at PID 0x1000), PMT (the video of `streamType` at PID 0x100), then the
    /// first picture's PES holding `nalHeaders` (each after a start code), then the next PES.
    static func segment(streamType: UInt8 = 0x1B, randomAccess: Bool = false, nalHeaders: [[UInt8]]) -> [UInt8] {
        let pat: [UInt8] = [0, 0x00, 0xB0, 13, 0, 1, 0xC1, 0, 0, 0, 1, 0xF0, 0x00, 0, 0, 0, 0]
        let pmt: [UInt8] = [0, 0x02, 0xB0, 18, 0, 1, 0xC1, 0, 0, 0xE1, 0x00, 0xF0, 0, streamType, 0xE1, 0x00, 0xF0, 0, 0, 0, 0, 0]
        var pes: [UInt8] = [0, 0, 1, 0xE0, 0, 0, 0x80, 0x80, 5, 0x21, 0, 1, 0, 1]
        for header in nalHeaders { pes += [0, 0, 0, 1] + header + [0x88, 0x84] }
        return packet(pid: 0, unitStart: true, pat) + packet(pid: 0x1000, unitStart: true, pmt)
            + packet(pid: 0x100, unitStart: true, randomAccess: randomAccess, pes)
            + packet(pid: 0x100, unitStart: true, [0, 0, 1, 0xE0, 0, 0, 0x80, 0, 0])
    }

    @Test("H.264 and HEVC: an IDR or IRAP picture, or the random access flag, is a key frame", arguments: [
        (segment(nalHeaders: [[0x09, 0xF0], [0x67], [0x68], [0x65]]), true),  // AUD, SPS, PPS, IDR
        (segment(nalHeaders: [[0x09, 0xF0], [0x41]]), false),  // a non-IDR slice
        (segment(randomAccess: true, nalHeaders: [[0x41]]), true),
        (segment(streamType: 0x24, nalHeaders: [[0x46, 0x01], [0x40, 0x01], [0x26, 0x01]]), true),  // AUD, VPS, IDR_W_RADL
        (segment(streamType: 0x24, nalHeaders: [[0x46, 0x01], [0x02, 0x01]]), false),  // TRAIL_R
    ] as [([UInt8], Bool)])
    func startsWithKeyFrame(bytes: [UInt8], isKey: Bool) {
        #expect(SegmentKeyFrame.startsWithKeyFrame(bytes) == isKey)
    }

    @Test func whatItCannotTellIsNil() {
        #expect(SegmentKeyFrame.startsWithKeyFrame([UInt8](repeating: 0, count: 400)) == nil, "not MPEG-TS")
        #expect(SegmentKeyFrame.startsWithKeyFrame(Self.segment(streamType: 0x0F, nalHeaders: [[0x65]])) == nil, "no H.264 or HEVC (AAC)")
        #expect(SegmentKeyFrame.startsWithKeyFrame(Array(Self.segment(nalHeaders: [[0x65]]).prefix(376))) == nil, "cut before the picture")
    }

    /// A picture's PES holding `nalHeaders`, in one packet of PID 0x100.
    static func picture(_ nalHeaders: [[UInt8]], randomAccess: Bool = false) -> [UInt8] {
        var pes: [UInt8] = [0, 0, 1, 0xE0, 0, 0, 0x80, 0x80, 5, 0x21, 0, 1, 0, 1]
        for header in nalHeaders { pes += [0, 0, 0, 1] + header + [0x88, 0x84] }
        return packet(pid: 0x100, unitStart: true, randomAccess: randomAccess, pes)
    }

    static let tables = Array(segment(nalHeaders: [[0x41]]).prefix(376))
    static let sound = packet(pid: 0x101, unitStart: true, [0, 0, 1, 0xC0, 0, 0, 0x80, 0, 0])
    static let slice = packet(pid: 0x100, unitStart: false, [0x88, 0x84])

    @Test("From the last key frame: the PAT and PMT, then the video from that picture on, without the sound", arguments: [
        // P, IDR, its second packet, sound, P: the IDR on.
        (tables + picture([[0x41]]) + picture([[0x09, 0xF0], [0x65]]) + slice + sound + picture([[0x41]]),
         tables + picture([[0x09, 0xF0], [0x65]]) + slice + picture([[0x41]])),
        // Two key frames (one by its random access flag): the second on.
        (tables + picture([[0x65]]) + sound + picture([[0x41]]) + picture([[0x41]], randomAccess: true) + sound + picture([[0x41]]),
         tables + picture([[0x41]], randomAccess: true) + picture([[0x41]])),
    ] as [([UInt8], [UInt8])])
    func videoFromLastKeyFrame(bytes: [UInt8], expected: [UInt8]) {
        #expect(SegmentKeyFrame.videoFromLastKeyFrame(bytes) == expected)
    }

    @Test func aPictureWhoseFirstSliceIsPastWhatIsReadIsNotSaidToBeNoKeyFrame() {
        // An SEI longer than the head read, the IDR slice after it, no random access flag.
        var pes: [UInt8] = [0, 0, 1, 0xE0, 0, 0, 0x80, 0x80, 5, 0x21, 0, 1, 0, 1, 0, 0, 0, 1, 0x06]
        pes += [UInt8](repeating: 0x42, count: SegmentKeyFrame.pictureHeadLimit + 400) + [0, 0, 0, 1, 0x65, 0x88, 0x84]
        var bytes = Self.tables
        var offset = 0
        while offset < pes.count {
            let body = Array(pes[offset..<min(pes.count, offset + 184)])
            bytes += Self.packet(pid: 0x100, unitStart: offset == 0, body)
            offset += 184
        }
        #expect(SegmentKeyFrame.startsWithKeyFrame(bytes) == nil)
    }

    @Test func noKeyFrameNoVideoFromIt() {
        #expect(SegmentKeyFrame.videoFromLastKeyFrame(Self.tables + Self.picture([[0x41]]) + Self.sound + Self.picture([[0x41]])) == nil)
        #expect(SegmentKeyFrame.videoFromLastKeyFrame([UInt8](repeating: 0, count: 400)) == nil, "not MPEG-TS")
    }
}

/// Whether an fMP4 fragment starts with a sync sample, on boxes built here.
@Suite struct FragmentKeyFrameTests {
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let size = UInt32(8 + payload.count)
        return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array(type.utf8) + payload
    }

    static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static let nonSync: UInt32 = 0x0101_0000  // depends on others, not a sync sample
    static let sync: UInt32 = 0x0200_0000  // depends on no other

    /// An initialization section: track 1 sound, track 2 video; trex gives each `defaultFlags`.
    static func initSection(defaultFlags: UInt32) -> [UInt8] {
        func trak(id: UInt32, handler: String) -> [UInt8] {
            box("trak", box("tkhd", [0, 0, 0, 3] + be32(0) + be32(0) + be32(id) + [UInt8](repeating: 0, count: 68))
                + box("mdia", box("hdlr", [0, 0, 0, 0] + be32(0) + Array(handler.utf8) + [UInt8](repeating: 0, count: 13))))
        }
        func trex(id: UInt32) -> [UInt8] { box("trex", [0, 0, 0, 0] + be32(id) + be32(1) + be32(0) + be32(0) + be32(defaultFlags)) }
        return box("ftyp", Array("iso5".utf8) + be32(0)) + box("moov", trak(id: 1, handler: "soun") + trak(id: 2, handler: "vide")
                                                                    + box("mvex", trex(id: 1) + trex(id: 2)))
    }

    /// A fragment: a traf for the sound (its first sample a sync sample), then one for the
    /// video with `tfhdFlags` (default_sample_flags when set) and a trun of `trunFlags`.
    static func fragment(tfhdDefault: UInt32? = nil, trunFirst: UInt32? = nil, trunPerSample: UInt32? = nil) -> [UInt8] {
        let sound = box("traf", box("tfhd", [0, 0x02, 0, 0x20] + be32(1) + be32(sync)) + box("trun", [0, 0, 0, 0] + be32(1)))
        var tfhd: [UInt8] = [0, 0x02, 0, tfhdDefault == nil ? 0 : 0x20] + be32(2)
        if let tfhdDefault { tfhd += be32(tfhdDefault) }
        var trunFlags: UInt32 = 0x1  // data_offset
        var trun = be32(2) + be32(0)
        if let trunFirst {
            trunFlags |= 0x4
            trun += be32(trunFirst)
        }
        if let trunPerSample {
            trunFlags |= 0x300 | 0x400  // duration, size, flags per sample
            trun += be32(40) + be32(1000) + be32(trunPerSample) + be32(40) + be32(1000) + be32(nonSync)
        }
        let video = box("traf", box("tfhd", tfhd) + box("trun", be32(trunFlags) + trun))
        return box("styp", Array("msdh".utf8)) + box("moof", box("mfhd", be32(0) + be32(1)) + sound + video) + box("mdat", [1, 2, 3])
    }

    @Test("The video track's first sample: trun's first-sample flags, else its own, else tfhd's default, else trex's", arguments: [
        (initSection(defaultFlags: nonSync), fragment(trunFirst: sync), true),
        (initSection(defaultFlags: sync), fragment(trunFirst: nonSync), false),
        (initSection(defaultFlags: nonSync), fragment(trunPerSample: sync), true),
        (initSection(defaultFlags: sync), fragment(trunPerSample: nonSync), false),
        (initSection(defaultFlags: sync), fragment(tfhdDefault: nonSync), false),
        (initSection(defaultFlags: nonSync), fragment(tfhdDefault: sync), true),
        (initSection(defaultFlags: nonSync), fragment(), false),
        (initSection(defaultFlags: sync), fragment(), true),
    ] as [([UInt8], [UInt8], Bool)])
    func startsWithSyncSample(initSection: [UInt8], fragment: [UInt8], isKey: Bool) {
        #expect(FragmentKeyFrame.startsWithKeyFrame(initSection: initSection, fragment: fragment) == isKey)
    }

    @Test func whatItCannotTellIsNil() {
        #expect(FragmentKeyFrame.startsWithKeyFrame(initSection: [], fragment: Self.fragment(trunFirst: Self.sync)) == nil, "no initialization section")
        #expect(FragmentKeyFrame.startsWithKeyFrame(initSection: Self.initSection(defaultFlags: Self.sync), fragment: Self.box("mdat", [1])) == nil, "no moof")
        #expect(FragmentKeyFrame.startsWithKeyFrame(initSection: Array(Self.initSection(defaultFlags: Self.sync).prefix(40)), fragment: Self.fragment()) == nil, "cut short")
        // Sizes from the network: a 64-bit size past Int.max, one near it, an empty tkhd.
        let huge = [0, 0, 0, 1] + Array("moof".utf8) + Self.be32(0xFFFF_FFFF) + Self.be32(0xFFFF_FFFF)
        let nearMax = [0, 0, 0, 1] + Array("moof".utf8) + Self.be32(0x7FFF_FFFF) + Self.be32(0xFFFF_FFF0)
        let emptyTrackHeader = Self.box("moov", Self.box("trak", Self.box("tkhd", []) + Self.box("mdia", Self.box("hdlr", [UInt8](repeating: 0, count: 8) + Array("vide".utf8)))))
        #expect(FragmentKeyFrame.startsWithKeyFrame(initSection: Self.initSection(defaultFlags: Self.sync), fragment: huge) == nil)
        #expect(FragmentKeyFrame.startsWithKeyFrame(initSection: Self.initSection(defaultFlags: Self.sync), fragment: nearMax) == nil)
        #expect(FragmentKeyFrame.startsWithKeyFrame(initSection: emptyTrackHeader, fragment: Self.fragment()) == nil)
    }
}

/// Which pictures a switch brings that the variant before showed, by table: video packets as
/// the demuxer reads them (position, pts), and the switches' byte ranges.
@Suite struct SwitchOverlapTests {
    @Test("Pictures after a switch at or before the pts the variant before reached are not shown again", arguments: [
        // No switch: all shown.
        ([(0, 10), (100, 11), (200, 12)], [], [false, false, false]),
        // The switch's bytes from 300: a key frame at 8 and the pictures to 12 decoded only; 13 on shown.
        ([(0, 10), (100, 12), (200, 11), (300, 8), (310, 9), (320, 10), (330, 11), (340, 12), (350, 13), (400, 14)], [300..<380],
         [false, false, false, true, true, true, true, true, false, false]),
        // A B picture (11) after the switch's first P (13): not shown; after the switch's bytes, all shown.
        ([(0, 10), (100, 12), (300, 13), (310, 11), (320, 14), (500, 11)], [300..<400], [false, false, false, true, false, false]),
        // Two switches: each compares with what was read before it.
        ([(0, 1), (100, 2), (200, 2), (210, 3), (300, 3), (310, 4)], [200..<250, 300..<350], [false, false, true, false, true, false]),
    ] as [([(Int64, Int64)], [Range<Int64>], [Bool])])
    func alreadyShown(packets: [(Int64, Int64)], switches: [Range<Int64>], expected: [Bool]) {
        var overlap = SwitchOverlap()
        let shown = packets.map { overlap.isAlreadyShown(position: $0.0, pts: $0.1, switches: switches) }
        #expect(shown == expected)
    }

    @Test func aSeekForgetsWhatWasReadBeforeIt() {
        var overlap = SwitchOverlap()
        _ = overlap.isAlreadyShown(position: 0, pts: 100, switches: [])
        overlap.reset()
        let shown = [(1000, 5, []), (2000, 5, [2000..<3000]), (2100, 6, [2000..<3000])].map { (position: Int64, pts: Int64, switches: [Range<Int64>]) in
            overlap.isAlreadyShown(position: position, pts: pts, switches: switches)
        }
        #expect(shown == [false, true, false])
    }
}
