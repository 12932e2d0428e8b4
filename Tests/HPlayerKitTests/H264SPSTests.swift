import Testing
@testable import HPlayerKit

/// Our SPS reader against what ffprobe says of the same parameter sets (copied from streams x264
/// wrote), and its parts by table.
@Suite struct H264SPSTests {
    @Test("A High-profile SPS (x264, 320x240, 25 fps, emulation-prevention bytes in it)")
    func highProfile() throws {
        let bytes: [UInt8] = [0x67, 0x64, 0x00, 0x0D, 0xAC, 0xD9, 0x41, 0x41, 0xFB, 0x01, 0x10, 0x00, 0x00, 0x03, 0x00, 0x10,
                              0x00, 0x00, 0x03, 0x03, 0x20, 0xF1, 0x42, 0x99, 0x60]
        let sps = try #require(H264SPS.parse(bytes[...]))
        #expect(sps == H264SPS(profileIDC: 100, constraintFlags: 0, levelIDC: 13, id: 0, chromaFormatIDC: 1, bitDepthLuma: 8,
                               width: 320, height: 240, frameRate: 25))
    }

    @Test("A Constrained Baseline SPS with a cropping window (1280x712 of 1280x720) at 30000/1001")
    func baselineCropped() throws {
        let bytes: [UInt8] = [0x67, 0x42, 0xC0, 0x1F, 0xD9, 0x00, 0x50, 0x05, 0xBF, 0x97, 0x01, 0x10, 0x00, 0x00, 0x3E, 0x90,
                              0x00, 0x0E, 0xA6, 0x00, 0xF1, 0x83, 0x24, 0x80]
        let sps = try #require(H264SPS.parse(bytes[...]))
        #expect(sps.profileIDC == 66 && sps.constraintFlags == 0xC0 && sps.levelIDC == 31)
        #expect(sps.width == 1280 && sps.height == 712)
        #expect(abs((sps.frameRate ?? 0) - 30000.0 / 1001) < 1e-9)
    }

    @Test("Not an SPS, or one cut short: nil, never a trap", arguments: [[], [0x68, 0x64], [0x67], [0x67, 0x64, 0x00, 0x0D], [0x67, 0x64, 0x00, 0x0D, 0x00]] as [[UInt8]])
    func refused(bytes: [UInt8]) {
        #expect(H264SPS.parse(bytes[...]) == nil)
    }

    @Test("Emulation-prevention bytes taken out", arguments: [
        ([0, 0, 3, 1], [0, 0, 1]), ([0, 0, 3, 0, 0, 3], [0, 0, 0, 0]), ([0, 3, 0], [0, 3, 0]), ([1, 0, 0, 3], [1, 0, 0]),
    ] as [([UInt8], [UInt8])])
    func unescaped(bytes: [UInt8], expected: [UInt8]) {
        #expect(RBSP.unescaped(bytes[...]) == expected)
    }

    @Test("Exp-Golomb codes: ue(v) and se(v)")
    func expGolomb() {
        // 1 | 010 | 011 | 00100 | 00101 → ue 0, 1, 2, 3, 4; then 010 | 011 as se: 1, -1.
        var bits = BitReader([0b1010_0110, 0b0100_0010, 0b1010_0110])
        #expect([bits.ue(), bits.ue(), bits.ue(), bits.ue(), bits.ue()] == [0, 1, 2, 3, 4])
        #expect([bits.se(), bits.se()] == [1, -1])
        #expect(bits.read(8) == nil)
    }
}
