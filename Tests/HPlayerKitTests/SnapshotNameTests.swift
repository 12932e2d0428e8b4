import Testing
@testable import HPlayerKit

@Suite struct SnapshotNameTests {
    @Test("The media's name in a snapshot's file name", arguments: [
        ("clip.mp4", "clip"),
        ("/videos/holiday.2024.mkv", "holiday.2024"),
        ("/videos/.hidden", ".hidden"),
        ("/videos/no-extension", "no-extension"),
        ("https://example.com/live/stream.m3u8?token=a/b.c#t=5", "stream"),
        ("https://example.com/shows/", "shows"),
        ("/", "snapshot"),
    ])
    func name(_ url: String, _ expected: String) {
        #expect(Snapshot.name(of: url) == expected)
    }

    @Test("Positions to the millisecond", arguments: [
        (0.0, "00:00:00.000"), (0.52, "00:00:00.520"), (61.0 / 25, "00:00:02.440"),
        (3723.4567, "01:02:03.457"), (59.9996, "00:01:00.000"), (-1.0, "00:00:00.000"),
    ])
    func precise(_ seconds: Double, _ expected: String) {
        #expect(TimeText.precise(seconds) == expected)
    }

    @Test func fileNamesUseDashes() {
        #expect(TimeText.precise(3723.5, separator: "-") == "01-02-03.500")
    }
}
