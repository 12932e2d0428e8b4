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
}
