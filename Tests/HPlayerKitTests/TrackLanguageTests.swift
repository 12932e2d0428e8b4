import Testing
@testable import HPlayerKit

@Suite struct TrackLanguageTests {
    @Test("--alang: the first preference met wins; case, regions and 639-1/639-2 codes compare alike; none met, none chosen",
          arguments: [
            (["en", "de"], ["de"], 1), (["en", "de"], ["fr", "en"], 0), (["EN-us", "de"], ["en"], 0), (["eng", "ger"], ["de"], 1),
            (["deu"], ["ger"], 0), ([nil, "fr"], ["fre"], 1), (["en", "de"], ["ja"], nil), (["en", "de"], [], nil), (["pt-BR", "pt-PT"], ["pt"], 0),
          ] as [([String?], [String], Int?)])
    func choice(tags: [String?], preferences: [String], chosen: Int?) {
        #expect(TrackLanguage.choose(among: tags, preferences: preferences) == chosen)
    }
}
