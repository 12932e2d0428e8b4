/// mpv's `--alang` and `--slang`: which sound or subtitles to pick by language, a list in order of
/// preference. A pure decision, tested by table. Tags compare without case, a region or script
/// after the language ("en-US") counting as the language, and ISO 639-1 codes as their 639-2 ones
/// ("de", "deu", "ger").
package enum TrackLanguage {
    /// The index in `tags` of the first that the first preference it can meets; nil when none
    /// meets any (the default then plays).
    package static func choose(among tags: [String?], preferences: [String]) -> Int? {
        for wanted in preferences {
            if let index = tags.firstIndex(where: { $0.map { matches($0, wanted) } ?? false }) { return index }
        }
        return nil
    }

    /// The languages of a comma-separated list, as `--alang` and `--slang` take them.
    package static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { String($0.trimmingWhitespace()) }.filter { !$0.isEmpty }
    }

    package static func matches(_ tag: String, _ wanted: String) -> Bool {
        let (a, b) = (primary(tag), primary(wanted))
        return !a.isEmpty && (a == b || codes(a).contains(b))
    }

    /// "en" of "en-US", lowercased.
    private static func primary(_ tag: String) -> String {
        String(tag.lowercased().prefix { $0 != "-" && $0 != "_" }).trimmingCharacters()
    }

    /// The codes a language goes by: 639-1 and 639-2 (bibliographic and terminology).
    private static func codes(_ code: String) -> [String] {
        equivalents.first { $0.contains(code) } ?? [code]
    }

    private static let equivalents: [[String]] = [
        ["en", "eng"], ["de", "deu", "ger"], ["fr", "fra", "fre"], ["es", "spa"], ["it", "ita"], ["pt", "por"], ["nl", "nld", "dut"],
        ["ru", "rus"], ["ja", "jpn"], ["zh", "zho", "chi"], ["ko", "kor"], ["ar", "ara"], ["pl", "pol"], ["sv", "swe"], ["fi", "fin"],
        ["da", "dan"], ["no", "nor"], ["cs", "ces", "cze"], ["el", "ell", "gre"], ["tr", "tur"], ["hu", "hun"], ["he", "heb"],
        ["hi", "hin"], ["uk", "ukr"], ["ro", "ron", "rum"],
    ]
}
