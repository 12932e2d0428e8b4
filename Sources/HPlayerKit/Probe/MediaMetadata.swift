/// A file's tag: its key as the file spells it ("title", "ARTIST", "encoder"), as mpv's
/// `metadata` property lists them.
public struct MetadataTag: Codable, Equatable, Sendable {
    /// The key, as the file spells it: match it without regard to case (`MediaMetadata.value`).
    public var key: String
    /// The value, as the file has it.
    public var value: String

    /// A tag, as the fields say.
    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}

/// A chapter: where it starts and ends in the file's media time (seconds), and its title.
public struct Chapter: Codable, Equatable, Sendable {
    /// Seconds from the media's start (`MediaInfo.startTime` taken off), as positions count.
    public var start: Double
    /// Seconds, as `start`.
    public var end: Double
    /// The chapter's title tag, when it has one.
    public var title: String?

    /// A chapter, as the fields say.
    public init(start: Double, end: Double, title: String?) {
        self.start = start
        self.end = end
        self.title = title
    }
}

/// Reading tags and chapters the way mpv's rules do: pure, tested by table.
public enum MediaMetadata {
    /// The tag under `key`, matched without regard to case, as mpv matches them.
    public static func value(of key: String, in tags: [MetadataTag]) -> String? {
        let key = key.lowercased()
        return tags.first { $0.key.lowercased() == key && !$0.value.isEmpty }?.value
    }

    /// mpv's media-title: the title tag (or a stream's ICY title), else the file's name.
    public static func mediaTitle(tags: [MetadataTag], url: String) -> String {
        value(of: "title", in: tags) ?? value(of: "icy-title", in: tags) ?? fileName(of: url)
    }

    /// The last part of a path or URL: what a title falls back to.
    public static func fileName(of url: String) -> String {
        url.split(separator: "/").last.map(String.init) ?? url
    }

    /// The tags printed when a file opens, in mpv's order and words (its display-tags).
    package static let displayedKeys = ["Artist", "Album", "Album_Artist", "Comment", "Composer", "Date", "Description",
                                       "Genre", "Performer", "Rating", "Series", "Title", "Track", "icy-title"]

    /// "File tags:" and one line per displayed tag the file has; nothing when it has none.
    package static func lines(for tags: [MetadataTag]) -> [String] {
        let shown = displayedKeys.compactMap { key in value(of: key, in: tags).map { " \(key): \($0)" } }
        return shown.isEmpty ? [] : ["File tags:"] + shown
    }

    /// "Chapters:" and one line per chapter, its number from 1, start and title.
    package static func lines(for chapters: [Chapter]) -> [String] {
        guard !chapters.isEmpty else { return [] }
        return ["Chapters:"] + chapters.enumerated().map { index, chapter in
            " \(index + 1): \(TimeText.precise(chapter.start))" + (chapter.title.map { " \($0)" } ?? "")
        }
    }

    /// The index of the chapter playing at `position`: the last that has begun; -1 before the
    /// first (mpv's reading); nil for a file without chapters.
    public static func chapter(at position: Double, in chapters: [Chapter]) -> Int? {
        guard !chapters.isEmpty else { return nil }
        // A millisecond of slack: a chapter start and a frame time, rounded each in its own time base.
        return (chapters.lastIndex { $0.start <= position + 0.001 }) ?? -1
    }

    /// Where a step of `offset` chapters from `position` seeks to: a chapter, the file's start
    /// (back before the first chapter), or past the last (mpv then goes on to the next file);
    /// nil for a file without chapters. A step back from more than `threshold` seconds into a
    /// chapter goes to its own start (mpv's --chapter-seek-threshold).
    package static func chapterStep(_ offset: Int, from position: Double, in chapters: [Chapter], threshold: Double = 5) -> ChapterStep? {
        guard let current = chapter(at: position, in: chapters) else { return nil }
        // Clamped first: no step goes further than past either end, and none overflows.
        let offset = min(chapters.count + 1, max(-chapters.count - 1, offset))
        var target = current + offset
        if offset < 0, current >= 0, position - chapters[current].start > threshold { target += 1 }
        if target >= chapters.count { return .pastEnd }
        // Back from before the first chapter, or from the first when it starts after 0.
        if target < 0 { return current < 0 || chapters[0].start > 0 ? .fileStart : .chapter(0) }
        return .chapter(target)
    }

    package enum ChapterStep: Equatable, Sendable {
        case chapter(Int)
        case fileStart
        case pastEnd
    }
}
