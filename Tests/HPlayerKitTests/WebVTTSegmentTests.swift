import Foundation
import Testing
@testable import HPlayerKit

/// HLS WebVTT renditions: the segment files, their timestamp maps, and their cues' place on the
/// playback timeline across discontinuities.
@Suite struct WebVTTSegmentTests {
    @Test("WebVTT timestamps: mm:ss.ttt and hh:mm:ss.ttt, hours past 99; anything else refused",
          arguments: [
            ("00:01.500", 1.5), ("01:02:03.004", 3723.004), ("100:00:00.000", 360_000), ("59:59.999", 3599.999),
            ("1:02.000", nil), ("00:60.000", nil), ("60:00.000", nil), ("00:01.5", nil), ("00:01,500", nil), ("00:01", nil),
            ("", nil), ("a:00:01.000", nil), ("00:00:00:01.000", nil), ("00:-1.000", nil), ("00:00.-01", nil), ("+0:00.000", nil),
          ] as [(String, Double?)])
    func timestamps(text: String, expected: Double?) {
        let seconds = WebVTTDocument.timestamp(Substring(text))
        if let expected {
            #expect(seconds.map { abs($0 - expected) < 1e-9 } ?? false, "\(text): \(String(describing: seconds))")
        } else {
            #expect(seconds == nil, "\(text)")
        }
    }

    @Test("A WebVTT file: the signature (with a byte-order mark, a header text), X-TIMESTAMP-MAP in either order, cues with or without identifiers and settings, CRLF lines, NOTE and STYLE blocks passed over, a bad timing skipped and counted")
    func document() throws {
        let text = "\u{FEFF}WEBVTT - from a packager\r\nX-TIMESTAMP-MAP=MPEGTS:900000,LOCAL:00:00:00.000\r\n\r\n"
            + "NOTE a comment\r\nover two lines\r\n\r\nSTYLE\r\n::cue { color: red }\r\n\r\n"
            + "1\r\n00:01.000 --> 00:02.500 align:start line:0\r\n<v Anna>Hello &amp; <i>welcome</i>\r\n\r\n"
            + "00:03.000 --> 00:04.000\r\nTwo\r\nlines\r\n\r\n"
            + "00:05.000 --> 00:0x.000\r\nbroken\r\n\r\n"
            + "00:06.000 --> 00:07.000\r\n\r\n"
        let document = try WebVTTDocument.parse(Array(text.utf8))
        #expect(document.cues == [SubtitleCue(start: 1, end: 2.5, text: "Hello & welcome"), SubtitleCue(start: 3, end: 4, text: "Two\nlines")])
        #expect(document.timestampMap == WebVTTDocument.TimestampMap(local: 0, mpegTS: 900_000))
        #expect(document.timestampMap?.offset == 10)
        #expect(document.skippedBlocks == 1)
        let reversed = try WebVTTDocument.parse(Array("WEBVTT\nX-TIMESTAMP-MAP=LOCAL:01:00:00.000,MPEGTS:324000000\n".utf8))
        #expect(reversed.timestampMap?.offset == 0 && reversed.cues.isEmpty)
    }

    @Test("Not WebVTT: no signature, another word that begins so, an empty file",
          arguments: ["", "WEBVTTX\n\n00:01.000 --> 00:02.000\nx\n", "<tt/>", "1\n00:00:01,000 --> 00:00:02,000\nsrt\n"])
    func notWebVTT(text: String) {
        #expect(throws: WebVTTDocument.NotWebVTT.self) { try WebVTTDocument.parse(Array(text.utf8)) }
    }

    @Test("The timestamp map's MPEG-2 timestamp is 33 bits: one past the wrap is taken modulo 2^33")
    func mapWraps() {
        #expect(WebVTTDocument.TimestampMap(local: 0, mpegTS: (1 << 33) + 90_000).offset == 1)
    }

    struct ShiftRow: Sendable, CustomTestStringConvertible {
        var name: String
        var jumps: [(Int, Double)]
        var reading: [(Int, Double)]
        var position: Double
        var asked: Int
        var expected: Double?
        var testDescription: String { name }
    }

    static let shiftRows: [ShiftRow] = [
        ShiftRow(name: "the first discontinuity: no shift", jumps: [], reading: [], position: 0, asked: 3, expected: 0),
        ShiftRow(name: "one before the first: no shift", jumps: [], reading: [], position: 0, asked: 1, expected: 0),
        ShiftRow(name: "a later one not yet read: unknown", jumps: [], reading: [(3, 0)], position: 5, asked: 4, expected: nil),
        ShiftRow(name: "its jump's shift", jumps: [(4, 142.5)], reading: [(4, 5)], position: 5, asked: 4, expected: 142.5),
        ShiftRow(name: "read past with no jump: the one before's", jumps: [(4, 10)], reading: [(4, 5), (5, 9), (6, 12)], position: 12, asked: 5,
                 expected: 10),
        ShiftRow(name: "the latest, just begun, no jump yet: unknown", jumps: [(4, 10)], reading: [(4, 5), (5, 9)], position: 9.5, asked: 5,
                 expected: nil),
        ShiftRow(name: "the latest, a second of it with no jump: the one before's", jumps: [(4, 10)], reading: [(4, 5), (5, 9)], position: 10,
                 asked: 5, expected: 10),
    ]

    @Test(arguments: shiftRows)
    func discontinuityShifts(_ row: ShiftRow) {
        var shifts = DiscontinuityShifts(startingAt: 3)
        for (discontinuity, position) in row.reading { shifts.noteReading(discontinuity, at: position) }
        for (discontinuity, shift) in row.jumps { shifts.noteJump(discontinuity, shift: shift) }
        #expect(shifts.shift(for: row.asked, position: row.position) == row.expected)
    }

    @Test("Segments with a timestamp map wait, in order, for their discontinuity's shift; the cues known up to the end of the last placed; a file with no map is timed from the presentation's start")
    func segmentsWaitForShifts() throws {
        var segments = WebVTTSegments(startTime: 10)
        let mapped = { (cue: String) in Array("WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:900000,LOCAL:00:00:00.000\n\n\(cue)\n".utf8) }
        _ = try segments.append(mapped("00:01.000 --> 00:02.000\nfirst"), discontinuity: 0, end: 12)
        _ = try segments.append(mapped("00:00.500 --> 00:01.000\nafter the jump"), discontinuity: 1, end: 14)
        _ = try segments.append(Array("WEBVTT\n\n00:04.500 --> 00:05.000\nno map\n".utf8), discontinuity: 1, end: 16)
        var known: [Int: Double] = [0: 0]
        #expect(segments.resolve(near: 11) { known[$0] } == [SubtitleCue(start: 11, end: 12, text: "first")])
        #expect(segments.readUntil == 12 && segments.isWaiting)
        known[1] = 3
        #expect(segments.resolve(near: 11) { known[$0] } == [SubtitleCue(start: 13.5, end: 14, text: "after the jump"), SubtitleCue(start: 14.5, end: 15, text: "no map")])
        #expect(segments.readUntil == 16 && !segments.isWaiting)
        #expect(throws: WebVTTDocument.NotWebVTT.self) { try segments.append(Array("<html>".utf8), discontinuity: 1, end: 18) }
        #expect(!segments.isWaiting)
    }

    @Test("A discontinuity whose timestamps went back was taken by libavformat as a 33-bit wrap: its cues take the turn of the wrap nearest where the media is read")
    func wrappedDiscontinuity() throws {
        var segments = WebVTTSegments(startTime: 140)
        _ = try segments.append(Array("WEBVTT\nX-TIMESTAMP-MAP=LOCAL:01:00:00.000,MPEGTS:324000000\n\n00:03.500 --> 00:05.500\nafter\n".utf8),
                                discontinuity: 1, end: 148.9)
        // The media starts over at 3.083 s, unwrapped to 3.083 s + 2^33 ticks, placed at 145.505 s.
        let shift = 145.505 - (3.083 + WebVTTSegments.wrapPeriod)
        let cues = segments.resolve(near: 145.6) { _ in shift }
        #expect(cues.count == 1 && abs(cues[0].start - 145.922) < 1e-6 && abs(cues[0].end - 147.922) < 1e-6, "\(cues)")
    }

    @Test("A text rendition's reader, on a local HLS playlist of WebVTT segments: the cues before a discontinuity on their timestamp map, those after it only once the read loop says where it jumped, shifted as the media is")
    func readerPlacesCuesAcrossADiscontinuity() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webvtt-reader-\(getpid())-\(UInt64.random(in: 0..<UInt64.max))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let files = [
            "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:900000,LOCAL:00:00:00.000\n\n00:00.500 --> 00:01.000\na\n",
            "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:900000,LOCAL:00:00:00.000\n\n00:02.500 --> 00:03.000\nb\n",
            "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000\n\n00:00.500 --> 00:01.000\nc\n",
        ]
        for (index, file) in files.enumerated() { try file.write(toFile: "\(folder)/\(index).vtt", atomically: true, encoding: .utf8) }
        try "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:2,\n0.vtt\n#EXTINF:2,\n1.vtt\n#EXT-X-DISCONTINUITY\n#EXTINF:2,\n2.vtt\n#EXT-X-ENDLIST\n"
            .write(toFile: folder + "/subs.m3u8", atomically: true, encoding: .utf8)
        let description = SubtitleTrackDescription(streamIndex: nil, path: nil, codec: "webvtt", language: nil, title: "test", isDefault: false)
        let reader = TextRenditionReader(url: "file://\(folder)/subs.m3u8", description: description, network: NetworkOptions(), startTime: 10)
        defer { reader.close() }
        // The read loop's first packet: the media is read at 10 s.
        reader.noteReadPosition(10, discontinuity: 0)
        // The cues themselves are waited for: waitForCues also ends while the reader waits on the
        // read loop, and under ThreadSanitizer it once ended before these were on the track.
        let first = MonotonicClock.now() + 20
        while reader.track.cues.count < 2, MonotonicClock.now() < first { Thread.sleep(forTimeInterval: 0.01) }
        #expect(reader.track.cues == [SubtitleCue(start: 10.5, end: 11, text: "a"), SubtitleCue(start: 12.5, end: 13, text: "b")])
        // The media's timestamps start over at the discontinuity, 13.5 s on the timeline.
        reader.noteReadPosition(13.5, discontinuity: 1)
        reader.noteTimelineJump(discontinuity: 1, shift: 13.5)
        let deadline = MonotonicClock.now() + 20
        while reader.track.cues.count < 3, MonotonicClock.now() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(reader.track.cues.last == SubtitleCue(start: 14, end: 14.5, text: "c"), "\(reader.track.cues)")
    }
}
