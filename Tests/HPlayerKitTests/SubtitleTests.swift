import Testing
@testable import HPlayerKit

@Suite struct SubtitleTextTests {
    @Test("Plain text from the ASS events libavcodec's text decoders give",
          arguments: [
            ("0,0,Default,,0,0,0,,Hello world!", "Hello world!"),
            ("3,0,Default,,0,0,0,,Two\\Nlines", "Two\nlines"),
            ("3,0,Default,,0,0,0,,soft\\nbreak", "soft\nbreak"),
            ("1,0,Default,,0,0,0,,{\\i1}Italic{\\i0} and {\\b1}bold{\\b0}", "Italic and bold"),
            ("1,0,Default,,0,0,0,,{\\an8\\pos(10,20)}Top, with a comma", "Top, with a comma"),
            ("1,0,Default,,0,0,0,,hard\\hspace", "hard\u{00A0}space"),
            ("1,0,Default,,0,0,0,,{\\p1}m 0 0 l 100 0 100 100{\\p0}After the drawing", "After the drawing"),
            ("1,0,Default,,0,0,0,,Trailing spaces   \\N\\N", "Trailing spaces"),
            ("Dialogue: 0,0:00:01.00,0:00:02.00,Default,,0,0,0,,Old style", "Old style"),
            ("1,0,Default,,0,0,0,,", ""),
            ("not an event", ""),
          ])
    func plain(event: String, expected: String) {
        #expect(SubtitleText.plain(fromASSEvent: event) == expected)
    }
}

@Suite struct SubtitleTrackTests {
    private func track(_ cues: [SubtitleCue]) -> SubtitleTrack {
        let track = SubtitleTrack(description: SubtitleTrackDescription(streamIndex: 2, path: nil, codec: "subrip", language: nil,
                                                                        title: nil, isDefault: true))
        for cue in cues { track.add(cue) }
        return track
    }

    @Test("What is shown at each time: nothing between cues, overlapping cues together, an end exclusive",
          arguments: [(0.5, nil), (1.0, "one"), (2.4, "one"), (2.5, "one\ntwo"), (3.0, "two"), (4.0, nil), (10.0, nil)] as [(Double, String?)])
    func shown(at pts: Double, expected: String?) {
        let cues = track([SubtitleCue(start: 2.5, end: 4, text: "two"), SubtitleCue(start: 1, end: 3, text: "one")])
        #expect(cues.shown(at: pts)?.text == expected)
    }

    @Test("The same answer holds until the next change, asked in any order")
    func lookupsInAnyOrder() {
        let cues = track([SubtitleCue(start: 1, end: 2, text: "a"), SubtitleCue(start: 3, end: 4, text: "b")])
        let times = [0.0, 1.5, 1.9, 3.5, 1.2, 2.5, 0.9, 3.99, 4.0]
        #expect(times.map { cues.shown(at: $0)?.text } == [nil, "a", "a", "b", "a", nil, nil, "b", nil])
    }

    @Test("A cue read again after a seek back is kept once; a cue with no end ends where the next begins")
    func addingCues() {
        let cues = track([SubtitleCue(start: 1, end: .infinity, text: "open"), SubtitleCue(start: 5, end: 6, text: "closed"),
                          SubtitleCue(start: 1, end: .infinity, text: "open")])
        #expect(cues.cues == [SubtitleCue(start: 1, end: 5, text: "open"), SubtitleCue(start: 5, end: 6, text: "closed")])
        cues.add(SubtitleCue(start: 3, end: .infinity, text: "late"))
        #expect(cues.cues.map(\.end) == [5, 5, 6])
    }

    @Test("Two ASS events of the same text at the same time (an outline layer and a fill) are both kept")
    func layersOfTheSameText() {
        let cues = track([SubtitleCue(start: 1, end: 2, text: "Hi", event: "1,0,Outline,,0,0,0,,Hi"),
                          SubtitleCue(start: 1, end: 2, text: "Hi", event: "2,1,Fill,,0,0,0,,Hi"),
                          SubtitleCue(start: 1, end: 2, text: "Hi", event: "2,1,Fill,,0,0,0,,Hi")])
        #expect(cues.shown(at: 1.5)?.cues.map(\.event) == ["1,0,Outline,,0,0,0,,Hi", "2,1,Fill,,0,0,0,,Hi"])
    }

    @Test("A delay shows every cue that much later (earlier when negative), its times as shown",
          arguments: [(0.5, 1.2, nil), (0.5, 1.6, "one"), (0.5, 2.4, "one"), (0.5, 2.6, nil), (-0.5, 0.6, "one"), (-0.5, 1.6, nil)]
            as [(Double, Double, String?)])
    func delayed(delay: Double, pts: Double, expected: String?) {
        let cues = track([SubtitleCue(start: 1, end: 2, text: "one")])
        _ = cues.shown(at: pts)  // an answer cached before the delay is not kept
        cues.setDelay(delay)
        #expect(cues.shown(at: pts)?.text == expected)
        #expect(cues.cues.first.map { [$0.start, $0.end] } == [1 + delay, 2 + delay])
    }

    @Test("An added cue is shown at once, even where the last answer held")
    func addedAfterALookup() {
        let cues = track([])
        #expect(cues.shown(at: 2) == nil)
        cues.add(SubtitleCue(start: 1, end: 3, text: "new"))
        #expect(cues.shown(at: 2)?.text == "new")
    }

    @Test("An external file's cues are placed on the media's timeline by its start time")
    func offset() {
        let cues = track([SubtitleCue(start: 1, end: 2, text: "a")])
        cues.setOffset(10)
        #expect(cues.shown(at: 1.5) == nil)
        #expect(cues.shown(at: 11.5)?.cues == [SubtitleCue(start: 11, end: 12, text: "a")])
    }
}

@Suite struct SubtitlePickTests {
    typealias Pick = SubtitleTracks.Pick
    static let file = [Pick(isDefault: false, isSupported: true), Pick(isDefault: true, isSupported: false),
                       Pick(isDefault: true, isSupported: true)]

    @Test("The track shown at the start, as mpv's --sid picks it",
          arguments: [
            (.auto, file, 0, 3, false),
            (.auto, file + [Pick(isDefault: false, isSupported: true)], 1, 4, false),
            (.auto, [Pick(isDefault: false, isSupported: true)], 0, nil, false),
            (.auto, [], 0, nil, false),
            (.off, file, 0, nil, false),
            (.number(1), file, 0, 1, false),
            (.number(2), file, 0, nil, true),
            (.number(4), file, 0, nil, true),
          ] as [(SubtitleChoice, [Pick], Int, Int?, Bool)])
    func pick(choice: SubtitleChoice, tracks: [Pick], externalCount: Int, expected: Int?, warns: Bool) {
        let (number, warning) = SubtitleTracks.pick(choice, among: tracks, externalCount: externalCount)
        #expect(number == expected)
        #expect((warning != nil) == warns)
    }
}

@Suite struct SubtitleLanguagePickTests {
    typealias Pick = SubtitleTracks.Pick
    static let english = Pick(isDefault: true, isSupported: true, language: "eng")
    static let french = Pick(isDefault: false, isSupported: true, language: "fre")
    static let germanBitmap = Pick(isDefault: false, isSupported: false, language: "ger")

    @Test("--slang picks the first track in the first language one is in, before the default; none without a match or a default",
          arguments: [
            ([english, french], 0, ["fr"], 2),
            ([english, french], 0, ["de", "fr", "en"], 2),
            ([english, french], 0, ["en-US"], 1),
            ([english, germanBitmap, french], 0, ["de", "en"], 1),
            ([english, french], 0, ["ja"], 1),
            ([french, Pick(isDefault: false, isSupported: true, language: nil)], 0, ["ja"], nil),
            ([english, french, Pick(isDefault: false, isSupported: true)], 1, ["fr"], 3),
          ] as [([Pick], Int, [String], Int?)])
    func pick(tracks: [Pick], externalCount: Int, languages: [String], expected: Int?) {
        #expect(SubtitleTracks.pick(.auto, among: tracks, externalCount: externalCount, languages: languages).number == expected)
    }
}

@Suite struct SecondarySubtitleTests {
    private static func track(_ text: String, language: String? = nil, isDefault: Bool = false) -> SubtitleTrack {
        let track = SubtitleTrack(description: SubtitleTrackDescription(streamIndex: nil, path: nil, codec: "subrip", language: language,
                                                                        title: nil, isDefault: isDefault))
        track.add(SubtitleCue(start: 1, end: 3, text: text))
        return track
    }

    @Test("--secondary-sid shows a second track, drawn whatever v says; the track shown as the primary is refused, and the primary that is the secondary")
    func secondaryBesideThePrimary() throws {
        let tracks = SubtitleTracks(choice: .auto, secondary: .number(2))
        let warnings = tracks.mediaDidOpen(embedded: [Self.track("one", isDefault: true), Self.track("two")], startTime: 0)
        #expect(warnings.isEmpty)
        #expect(tracks.selectedNumber == 1 && tracks.secondaryNumber == 2)
        let shown = try #require(tracks.selection.shown(at: 2))
        #expect(shown.text == "one" && shown.secondaryText == "two")
        #expect(tracks.selection.shown(at: 4) == nil)
        tracks.selection.isVisible = false
        #expect(tracks.selection.shown(at: 2)?.cues == [] && tracks.selection.shown(at: 2)?.secondaryText == "two")
        #expect(throws: MediaError.self) { try tracks.select(1, secondary: true) }
        #expect(throws: MediaError.self) { try tracks.select(2) }
        try tracks.select(nil, secondary: true)
        try tracks.select(2)
        #expect(tracks.selectedNumber == 2 && tracks.secondaryNumber == nil)
        tracks.selection.isVisible = true
        #expect(tracks.selection.shown(at: 2)?.secondary == [])
    }

    @Test("--secondary-sid naming the track --sid shows, or one that is not there, is a warning and shows none")
    func secondaryRefusedAtTheStart() {
        for (secondary, warning) in [(1, "--secondary-sid 1: it is the subtitle track shown (--sid)"),
                                     (3, "--secondary-sid 3: there is no such subtitle track (2 in all)")] {
            let tracks = SubtitleTracks(choice: .number(1), secondary: .number(secondary))
            #expect(tracks.mediaDidOpen(embedded: [Self.track("one"), Self.track("two")], startTime: 0) == [warning])
            #expect(tracks.selectedNumber == 1 && tracks.secondaryNumber == nil)
        }
    }

    @Test("--slang picks the primary track by language at the start")
    func languageAtTheStart() {
        let tracks = SubtitleTracks(choice: .auto, languages: ["fr"])
        _ = tracks.mediaDidOpen(embedded: [Self.track("one", language: "eng", isDefault: true), Self.track("deux", language: "fra")], startTime: 0)
        #expect(tracks.selectedNumber == 2)
    }
}
