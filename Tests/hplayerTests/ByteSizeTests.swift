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
