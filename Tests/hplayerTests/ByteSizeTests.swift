import Testing
@testable import hplayer

@Suite struct ByteSizeTests {
    @Test("Sizes as mpv writes them", arguments: [
        ("1000", 1000), ("64MiB", 64 << 20), ("64mib", 64 << 20), ("500KiB", 500 << 10), ("1GiB", 1 << 30), ("2M", 2 << 20),
        ("1.5MiB", 3 << 19), ("10b", 10),
    ] as [(String, Int)])
    func parses(text: String, bytes: Int) {
        #expect(ByteSize.parse(text) == bytes)
    }

    @Test("Not sizes", arguments: ["", "MiB", "-1", "ten", "1e400", "64 MiB"])
    func refuses(text: String) {
        #expect(ByteSize.parse(text) == nil)
    }
}

@Suite struct EncodeArgumentTests {
    @Test("Bit rates as ffmpeg takes them", arguments: [("800000", 800_000), ("800k", 800_000), ("2.5M", 2_500_000), ("128K", 128_000)] as [(String, Int)])
    func bitRate(text: String, bits: Int) throws {
        #expect(try BitRate.parse(text, option: "--video-bitrate") == bits)
    }

    @Test("Not bit rates", arguments: ["", "k", "-5k", "fast", "12", "1e12"])
    func notBitRate(text: String) {
        #expect(throws: (any Error).self) { try BitRate.parse(text, option: "--video-bitrate") }
    }

    @Test("Times on the progress line as ffmpeg writes them", arguments: [(0.0, "00:00:00.00"), (61.255, "00:01:01.26"), (3725.5, "01:02:05.50")] as [(Double, String)])
    func clock(seconds: Double, text: String) {
        #expect(ProgressLine.clock(seconds) == text)
    }
}
