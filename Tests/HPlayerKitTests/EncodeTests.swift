import Testing
@testable import HPlayerKit

/// The pure parts of `hplayer encode`: ADTS headers, the Annex B parser, what --from names.
@Suite struct EncodeTests {
    struct HeaderCase: CustomTestStringConvertible, Sendable {
        var sampleRate: Int
        var channels: Int
        var payload: Int
        var bytes: [UInt8]
        var testDescription: String { "\(sampleRate) Hz \(channels) ch, \(payload) bytes" }
    }

    @Test("ADTS headers as FFmpeg's adts muxer writes them (the first two rows copied from its output)", arguments: [
        HeaderCase(sampleRate: 48000, channels: 2, payload: 285, bytes: [0xFF, 0xF1, 0x4C, 0x80, 0x24, 0x9F, 0xFC]),
        HeaderCase(sampleRate: 44100, channels: 1, payload: 258, bytes: [0xFF, 0xF1, 0x50, 0x40, 0x21, 0x3F, 0xFC]),
        // 7.1 is channel configuration 7; the 13-bit length's top bits land in byte 3.
        HeaderCase(sampleRate: 96000, channels: 8, payload: 8184, bytes: [0xFF, 0xF1, 0x41, 0xC3, 0xFF, 0xFF, 0xFC]),
        HeaderCase(sampleRate: 7350, channels: 6, payload: 0, bytes: [0xFF, 0xF1, 0x71, 0x80, 0x00, 0xFF, 0xFC]),
    ])
    func adtsHeader(_ row: HeaderCase) throws {
        let header = try ADTSHeader(objectType: 2, sampleRate: row.sampleRate, channelCount: row.channels)
        #expect(try header.bytes(payloadLength: row.payload) == row.bytes)
    }

    @Test("What ADTS cannot carry is refused, with the reason", arguments: [
        (2, 37800, 2, "ADTS cannot express a sample rate of 37800 Hz"),
        (2, 48000, 7, "ADTS cannot express 7 channels"),
        (2, 48000, 0, "ADTS cannot express 0 channels"),
        (5, 48000, 2, "ADTS carries AAC Main, LC, SSR or LTP only (audio object type 5)"),
    ] as [(Int, Int, Int, String)])
    func adtsRefusal(objectType: Int, sampleRate: Int, channels: Int, reason: String) {
        #expect(throws: ADTSError(reason: reason)) {
            try ADTSHeader(objectType: objectType, sampleRate: sampleRate, channelCount: channels)
        }
    }

    @Test("An AAC frame too long for the 13-bit length is refused")
    func adtsTooLong() throws {
        let header = try ADTSHeader(objectType: 2, sampleRate: 48000, channelCount: 2)
        #expect(throws: ADTSError.self) { try header.bytes(payloadLength: 8185) }
    }

    @Test("NAL units after 3- and 4-byte start codes, with their types and the zero bytes before a start code left out", arguments: [
        ([0, 0, 0, 1, 0x67, 1, 2, 0, 0, 1, 0x68, 3, 0, 0, 0, 1, 0x65, 4, 5], [(7, 4..<7), (8, 10..<12), (5, 16..<19)]),
        // Leading garbage, and a trailing zero byte.
        ([9, 9, 0, 0, 1, 0x41, 7, 0], [(1, 5..<7)]),
        // 00 00 03 is an emulation-prevented byte inside a unit, not a start code.
        ([0, 0, 1, 0x06, 0, 0, 3, 1, 0x80], [(6, 3..<9)]),
        ([1, 2, 3], []),
        ([0, 0, 1], []),
    ] as [([UInt8], [(Int, Range<Int>)])])
    func nalUnits(bytes: [UInt8], expected: [(Int, Range<Int>)]) {
        let units = AnnexB.nalUnits(in: bytes)
        #expect(units.map(\.type) == expected.map(\.0))
        #expect(units.map(\.range) == expected.map(\.1))
    }

    @Test("An access unit with an IDR needs an SPS and a PPS before the IDR's first slice", arguments: [
        ([[7, 8, 6, 5], [1], [1]], true),
        ([[9, 7, 8, 5, 5]], true),
        ([[7, 8, 5], [8, 5]], false),
        ([[5, 7, 8]], false),
        ([[1, 1]], true),
    ] as [([[Int]], Bool)])
    func parameterSetsBeforeIDR(accessUnits: [[Int]], expected: Bool) {
        #expect(AnnexB.everyIDRHasParameterSets(accessUnits) == expected)
    }

    @Test("What --from names", arguments: [
        ("clip.mp4", "clip.mp4", nil),
        ("https://example.com/a.m3u8", "https://example.com/a.m3u8", nil),
        ("lavfi:testsrc2=d=1[out0]", "testsrc2=d=1[out0]", "lavfi"),
        ("pattern:640x360@25", "testsrc2=size=640x360:rate=25[out0];sine=frequency=440:sample_rate=48000,aformat=channel_layouts=stereo[out1]", "lavfi"),
        ("pattern:", "testsrc2=size=1280x720:rate=30[out0];sine=frequency=440:sample_rate=48000,aformat=channel_layouts=stereo[out1]", "lavfi"),
        ("pulse:", "default", "pulse"),
        ("alsa:hw:1", "hw:1", "alsa"),
        ("x11:", ":5", "x11grab"),
        ("x11::7.0", ":7.0", "x11grab"),
    ] as [(String, String, String?)])
    func source(text: String, url: String, format: String?) throws {
        let source = try EncodeSource.parse(text, display: ":5")
        #expect(source.url == url)
        #expect(source.format?.name == format)
    }

    @Test("A --from that cannot be opened says why", arguments: [
        ("v4l2:/dev/no-such-camera", ":5", "no camera: /dev/no-such-camera does not exist"),
        ("x11:", nil, "no X display: DISPLAY is not set"),
        ("pattern:320", ":5", "expected pattern:WIDTHxHEIGHT[@FPS], sides 16 to 8192"),
        ("pattern:320x240@0", ":5", "expected a frame rate of 1 to 240 after @"),
        ("lavfi:", ":5", "no filter graph after lavfi:"),
    ] as [(String, String?, String)])
    func sourceRefused(text: String, display: String?, reason: String) {
        #expect(throws: MediaError(input: text, reason: reason)) { try EncodeSource.parse(text, display: display) }
    }
}
