import Testing
@testable import HPlayerKit

/// Our HEVC SPS reader against what ffprobe says of the same parameter sets (copied from streams
/// x265 wrote), and the summary's HEVC NAL unit header.
@Suite struct HEVCSPSTests {
    @Test("A Main-profile SPS (x265, 320x180, level 2, 25 fps, emulation-prevention bytes in it)")
    func mainProfile() throws {
        let bytes: [UInt8] = [0x42, 0x01, 0x01, 0x01, 0x60, 0x00, 0x00, 0x03, 0x00, 0x90, 0x00, 0x00, 0x03, 0x00, 0x00, 0x03,
                              0x00, 0x3C, 0xA0, 0x0A, 0x08, 0x0B, 0x9F, 0x79, 0x65, 0x66, 0x92, 0x4C, 0xAF, 0x01, 0x68, 0x08,
                              0x00, 0x00, 0x03, 0x00, 0x08, 0x00, 0x00, 0x03, 0x00, 0xC8, 0x40]
        let sps = try #require(HEVCSPS.parse(bytes[...]))
        #expect(sps == HEVCSPS(profileIDC: 1, tier: 0, levelIDC: 60, id: 0, chromaFormatIDC: 1, bitDepthLuma: 8,
                               width: 320, height: 180, frameRate: 25))
    }

    @Test("A Main 10 SPS with default scaling lists and a conformance window (1920x1080 of 1920x1088) at 30000/1001")
    func main10Windowed() throws {
        let bytes: [UInt8] = [0x42, 0x01, 0x01, 0x02, 0x20, 0x00, 0x00, 0x03, 0x00, 0x90, 0x00, 0x00, 0x03, 0x00, 0x00, 0x03,
                              0x00, 0x78, 0xA0, 0x03, 0xC0, 0x80, 0x10, 0xE4, 0xD9, 0x65, 0x65, 0x92, 0x4E, 0x57, 0x80, 0xB4,
                              0x04, 0x00, 0x00, 0x0F, 0xA4, 0x00, 0x01, 0xD4, 0xC0, 0x20]
        let sps = try #require(HEVCSPS.parse(bytes[...]))
        #expect(sps.profileIDC == 2 && sps.tier == 0 && sps.levelIDC == 120 && sps.bitDepthLuma == 10)
        #expect(sps.width == 1920 && sps.height == 1080)
        #expect(abs((sps.frameRate ?? 0) - 30000.0 / 1001) < 1e-9)
    }

    @Test("Not an HEVC SPS, or one cut short: nil, never a trap",
          arguments: [[], [0x42], [0x42, 0x01], [0x40, 0x01, 0x0C], [0x67, 0x64, 0x00, 0x0D], [0x42, 0x01, 0x01, 0x01, 0x60, 0x00]] as [[UInt8]])
    func refused(bytes: [UInt8]) {
        #expect(HEVCSPS.parse(bytes[...]) == nil)
    }

    @Test("Short-term reference picture sets, one predicted from the one before, are walked to the VUI")
    func referenceSets() {
        // Two sets: the first with one negative picture (delta 1, used); the second predicted from
        // it (sign 0, delta 1) with flags for its one picture and the current one: used, then not
        // used and not kept.
        var written = BitWriter()
        written.ue(2)
        written.ue(1); written.ue(0); written.ue(0); written.bits(1, 1)
        written.bits(1, 1); written.bits(0, 1); written.ue(0); written.bits(1, 1); written.bits(0, 1); written.bits(0, 1)
        written.bits(0b1011, 4)
        var bits = BitReader(written.bytes)
        #expect(bits.ue() == 2)
        let walked = bits.skipShortTermReferenceSets(count: 2)
        #expect(walked)
        #expect(bits.read(4) == 0b1011, "the fields after the sets are read where they are")
    }

    @Test("The summary reads HEVC's two-byte NAL header: types, IDR pictures, first slices")
    func summary() {
        // VPS, SPS (the Main one above), an IDR_W_RADL picture in two slices, a TRAIL_R picture, an IDR_N_LP picture.
        let sps: [UInt8] = [0x42, 0x01, 0x01, 0x01, 0x60, 0x00, 0x00, 0x03, 0x00, 0x90, 0x00, 0x00, 0x03, 0x00, 0x00, 0x03,
                            0x00, 0x3C, 0xA0, 0x0A, 0x08, 0x0B, 0x9F, 0x79, 0x65, 0x66, 0x92, 0x4C, 0xAF, 0x01, 0x68, 0x08,
                            0x00, 0x00, 0x03, 0x00, 0x08, 0x00, 0x00, 0x03, 0x00, 0xC8, 0x40]
        let units: [[UInt8]] = [[0x40, 0x01, 0x0C], sps, [0x26, 0x01, 0xAF], [0x26, 0x01, 0x2F], [0x02, 0x01, 0xD0], [0x28, 0x01, 0xAF]]
        let bytes = units.flatMap { [UInt8]([0, 0, 0, 1]) + $0 }
        let summary = AnnexBSummary(bytes: bytes, codec: .hevc)
        #expect(summary.units.map(\.name) == ["TRAIL_R", "IDR_W_RADL", "IDR_N_LP", "VPS", "SPS"])
        #expect(summary.units.first { $0.type == 19 }?.count == 2)
        #expect(summary.pictures == 3)
        #expect(summary.idrs.map(\.picture) == [0, 2])
        #expect(summary.hevcParameterSets.first?.width == 320 && summary.parameterSets.isEmpty)
    }
}

/// Writes bits most significant first, with Exp-Golomb codes: the test's side of BitReader.
private struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var count = 0

    mutating func bits(_ value: Int, _ width: Int) {
        for shift in stride(from: width - 1, through: 0, by: -1) {
            if count % 8 == 0 { bytes.append(0) }
            bytes[bytes.count - 1] |= UInt8((value >> shift) & 1) << (7 - count % 8)
            count += 1
        }
    }

    mutating func ue(_ value: Int) {
        let code = value + 1
        let width = Int.bitWidth - code.leadingZeroBitCount
        bits(0, width - 1)
        bits(code, width)
    }
}
