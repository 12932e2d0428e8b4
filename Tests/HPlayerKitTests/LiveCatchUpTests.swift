@testable import HPlayerKit
import Testing

@Suite struct LiveCatchUpTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var buffered: Double
        var current: Double
        var expected: Double
        var testDescription: String { name }
    }

    // Target 0.1 s throughout.
    static let rows: [Row] = [
        Row(name: "at the target: 1x", buffered: 0.1, current: 1, expected: 1),
        Row(name: "jitter over the target does not start a catch-up", buffered: 0.19, current: 1, expected: 1),
        Row(name: "past the band: 1.05x", buffered: 0.25, current: 1, expected: 1.05),
        Row(name: "far behind: 1.1x", buffered: 0.7, current: 1, expected: 1.1),
        Row(name: "a catch-up goes on inside the band", buffered: 0.15, current: 1.05, expected: 1.05),
        Row(name: "fast stays fast until well under the far mark", buffered: 0.45, current: 1.1, expected: 1.1),
        Row(name: "down from far: 1.05x", buffered: 0.35, current: 1.1, expected: 1.05),
        Row(name: "1.05x goes fast only past the far mark", buffered: 0.55, current: 1.05, expected: 1.05),
        Row(name: "1.05x past the far mark: 1.1x", buffered: 0.65, current: 1.05, expected: 1.1),
        Row(name: "a catch-up ends near the target", buffered: 0.11, current: 1.05, expected: 1),
        Row(name: "below the target: 1x", buffered: 0.02, current: 1.05, expected: 1),
    ]

    @Test(arguments: rows)
    func speed(_ row: Row) {
        #expect(LiveCatchUp.speed(buffered: row.buffered, target: 0.1, current: row.current) == row.expected)
    }

    @Test("A jump to the newest key frame only when a catch-up would take long (over 1.5 s past the target), to land under 1 s past it",
          arguments: [(0.1, 0.1, 0.1, false), (1.0, 0.1, 0.2, false), (1.59, 0.1, 0.2, false), (1.61, 0.1, 0.2, true), (3, 0.1, 0.2, true),
                      (2, 1, 1, false), (2.6, 1, 1, true),
                      (3, 0.1, 1.05, true), (3, 0.1, 1.2, false), (3, 0.1, nil, false)] as [(Double, Double, Double?, Bool)])
    func jumps(buffered: Double, target: Double, landing: Double?, expected: Bool) {
        #expect(LiveCatchUp.jumps(buffered: buffered, target: target, landing: landing) == expected)
    }

    @Test("HLS: a catch-up starts half a segment past the hold-back (three target durations), at most a second, at least as for live mode",
          arguments: [(0.3, 0.1), (3, 0.5), (6, 1), (18, 1)] as [(Double, Double)])
    func segmentedTolerance(holdBack: Double, expected: Double) {
        #expect(LiveCatchUp.segmentedTolerance(holdBack: holdBack) == expected)
    }
}

@Suite struct LiveStartTests {
    /// A live playlist of `durations`, the live edge `lead` past its end (nil: not known).
    static func playlist(_ durations: [Double], lead: Double?) -> HLSMediaPlaylist {
        var playlist = HLSMediaPlaylist()
        playlist.segments = durations.enumerated().map { HLSSegment(uri: "\($0.offset).m4s", duration: $0.element, sequenceNumber: $0.offset) }
        playlist.liveEdgeLead = lead
        return playlist
    }

    @Test("Live start: the segment the target behind the edge, and with a clock (the edge past the list's end) how far into it",
          arguments: [
            // No clock: segments back from the list's end until the target is covered, from their start.
            ([1, 1, 1, 1, 1], nil, 3, 2, 0), ([2, 2, 2], nil, 3, 1, 0), ([1, 1], nil, 3, 0, 0),
            // The edge 0.4 s past the end: 2.6 s back from it, 0.4 into the segment.
            ([1, 1, 1, 1, 1], 0.4, 3, 2, 0.4), ([1, 1, 1, 1, 1], 0, 3, 2, 0), ([1, 1, 1, 1, 1], 0.99, 3, 2, 0.99),
            ([2, 2, 2, 2], 1.5, 4, 2, 1.5), ([2, 2, 2, 2], 0.5, 6, 1, 0.5),
            // A list shorter than the target: its first segment, from the start.
            ([1, 1], 0.5, 3, 0, 0),
          ] as [([Double], Double?, Double, Int, Double)])
    func liveStart(durations: [Double], lead: Double?, target: Double, index: Int, skip: Double) {
        let start = SegmentStream.liveStart(of: Self.playlist(durations, lead: lead), target: target)
        #expect(start.index == index && abs(start.skip - skip) < 1e-9, "\(start)")
    }

    @Test("The live edge's lead past the last listed segment: never negative, at most that segment (a manifest's lag beyond)",
          arguments: [(10.5, 10, 1, 0.5), (9.8, 10, 1, 0), (13, 10, 2, 2), (10, 10, 1, 0)] as [(Double, Double, Double, Double)])
    func liveEdgeLead(now: Double, lastEnd: Double, lastDuration: Double, expected: Double) {
        #expect(DASHManifests.liveEdgeLead(now: now, lastEnd: lastEnd, lastDuration: lastDuration) == expected)
    }
}

@Suite struct LiveInputTests {
    @Test(arguments: [
        ("udp://239.0.0.1:1234", true, true), ("rtp://127.0.0.1:5004", true, true), ("tcp://127.0.0.1:9000", true, false),
        ("rtmp://host/app/key", true, false), ("RTSP://host/stream", true, false), ("srt://host:9000", true, false),
        ("http://host/live.m3u8", false, false), ("/tmp/udp.ts", false, false), ("udp.ts", false, false), ("file:udp", false, false),
    ])
    func classification(url: String, isLive: Bool, waitsThroughSilence: Bool) {
        #expect(LiveInput.isLive(url) == isLive)
        #expect(LiveInput.waitsThroughSilence(url) == waitsThroughSilence)
        #expect(LiveInput.endsAfterSilence(url) == (isLive && !waitsThroughSilence))
        #expect(LiveInput.mayStartWithSoundAlone(url) == url.hasPrefix("rtmp"))
    }

    /// A dry queue at the live edge is not starvation; only a track that has had nothing for a
    /// while is (a quarter second, or 2.5 packet intervals of a sparse track).
    @Test(arguments: [
        ("audio dry, its packet read 10 ms ago", MediaKind.audio, 0, 0, 46.875, 0.01, false),
        ("audio dry, nothing for 0.3 s", .audio, 0, 0, 46.875, 0.3, true),
        ("audio with a frame queued, nothing for 1 s", .audio, 0, 1, 46.875, 1.0, false),
        ("video dry, nothing for 0.2 s", .video, 0, 0, 30, 0.2, false),
        ("video at 2 fps dry, nothing for 1 s", .video, 0, 0, 2, 1.0, false),
        ("video at 2 fps dry, nothing for 1.3 s", .video, 0, 0, 2, 1.3, true),
        ("video with a packet queued, nothing for 2 s", .video, 1, 0, 30, 2.0, false),
        ("a track with no rate yet, nothing for 0.3 s", .video, 0, 0, 0, 0.3, true),
    ])
    func starvation(name: String, kind: MediaKind, packets: Int, frames: Int, rate: Double, quiet: Double, starved: Bool) {
        let track = TrackBuffer(kind: kind, packetCount: packets, packetCapacity: 256, frameCount: frames, frameCapacity: 4,
                                packetsPerSecond: rate, isEndOfFile: false)
        #expect(LiveInput.isStarved(track, quietFor: quiet) == starved, "\(name)")
    }

    @Test func modes() {
        #expect(LiveOptions(mode: .auto).applies(to: "udp://127.0.0.1:1234"))
        #expect(!LiveOptions(mode: .auto).applies(to: "/tmp/a.ts"))
        #expect(LiveOptions(mode: .always).applies(to: "/tmp/a.ts"))
        #expect(!LiveOptions(mode: .never).applies(to: "udp://127.0.0.1:1234"))
    }
}
