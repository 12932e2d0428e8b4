import HPlayerKit
import Testing

@Suite struct MediaMetadataTests {
    static let chapters = [Chapter(start: 0, end: 10, title: "A"), Chapter(start: 10, end: 20, title: "B"), Chapter(start: 20, end: 30, title: nil)]

    @Test("media-title: the title tag (any case), else a stream's ICY title, else the file's name", arguments: [
        ([MetadataTag(key: "title", value: "T")], "T"),
        ([MetadataTag(key: "TITLE", value: "Upper")], "Upper"),
        ([MetadataTag(key: "title", value: ""), MetadataTag(key: "icy-title", value: "Radio")], "Radio"),
        ([MetadataTag(key: "artist", value: "X")], "film.mp4"),
        ([], "film.mp4"),
    ])
    func mediaTitle(tags: [MetadataTag], title: String) {
        #expect(MediaMetadata.mediaTitle(tags: tags, url: "http://host/videos/film.mp4") == title)
    }

    @Test("The chapter playing: the last begun, -1 before the first, nil without chapters", arguments: [
        (-1.0, -1 as Int?), (0, 0), (9.9995, 1), (9.99, 0), (10, 1), (25, 2), (99, 2),
    ])
    func chapterAt(position: Double, chapter: Int?) {
        #expect(MediaMetadata.chapter(at: position, in: Self.chapters) == chapter)
        #expect(MediaMetadata.chapter(at: position, in: []) == nil)
    }

    @Test("PgUp and PgDn: forward to the next start; back to the previous within 5 s of a start, else to the chapter's own start; past the last, the next file", arguments: [
        (1, 3.0, MediaMetadata.ChapterStep.chapter(1)),
        (1, 15, .chapter(2)),
        (1, 25, .pastEnd),
        (-1, 12, .chapter(0)),  // 2 s into B: the one before
        (-1, 17, .chapter(1)),  // 7 s into B: B's own start
        (-1, 3, .chapter(0)),  // at the first, stays there
        (2, 0, .chapter(2)),
        (-5, 25, .chapter(0)),
    ])
    func chapterStep(offset: Int, position: Double, step: MediaMetadata.ChapterStep) {
        #expect(MediaMetadata.chapterStep(offset, from: position, in: Self.chapters) == step)
    }

    @Test("Chapters that start after 0: back from before the first, or from early in it, is the file's start; a huge step is past an end")
    func stepsAroundLateFirstChapter() {
        let late = [Chapter(start: 5, end: 10, title: nil), Chapter(start: 10, end: 20, title: nil)]
        #expect(MediaMetadata.chapterStep(-1, from: 2, in: late) == .fileStart)
        #expect(MediaMetadata.chapterStep(-1, from: 6, in: late) == .fileStart)
        #expect(MediaMetadata.chapterStep(1, from: 2, in: late) == .chapter(0))
        #expect(MediaMetadata.chapterStep(Int.max, from: 2, in: late) == .pastEnd)
        #expect(MediaMetadata.chapterStep(Int.min, from: 12, in: late) == .fileStart)
    }

    @Test func noChaptersNoStep() {
        #expect(MediaMetadata.chapterStep(1, from: 0, in: []) == nil)
    }

    @Test("Printed on opening: mpv's File tags in its order and names, and the chapters with their starts")
    func lines() {
        let tags = [MetadataTag(key: "title", value: "T"), MetadataTag(key: "encoder", value: "Lavf"), MetadataTag(key: "ARTIST", value: "A")]
        #expect(MediaMetadata.lines(for: tags) == ["File tags:", " Artist: A", " Title: T"])
        #expect(MediaMetadata.lines(for: [MetadataTag(key: "encoder", value: "Lavf")]) == [])
        #expect(MediaMetadata.lines(for: Self.chapters) == ["Chapters:", " 1: 00:00:00.000 A", " 2: 00:00:10.000 B", " 3: 00:00:20.000"])
    }
}
