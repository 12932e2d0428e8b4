import Testing
@testable import HPlayerKit

@Suite struct StartPositionTests {
    @Test("--start forms", arguments: [
        ("90", StartPosition.seconds(90)),
        ("12.5", .seconds(12.5)),
        ("1:30", .seconds(90)),
        ("01:02:03.5", .seconds(3723.5)),
        ("100:00", .seconds(6000)),  // minutes may run past 59 when they come first
        ("25%", .fraction(0.25)),
        ("0%", .fraction(0)),
        ("100%", .fraction(1)),
        ("-3", .beforeEnd(3)),
        ("-1:30", .beforeEnd(90)),
    ])
    func parses(_ text: String, _ expected: StartPosition) {
        #expect(StartPosition(text) == expected)
    }

    @Test("Not a start position", arguments: ["", "-", "--3", "-5%", "abc", "1:2:3:4", "1:60", "1.5:00", "101%", "x%", "nan", "inf", "1::2", ":30"])
    func refuses(_ text: String) {
        #expect(StartPosition(text) == nil)
    }

    @Test func aPercentageNeedsTheDuration() {
        #expect(StartPosition.fraction(0.5).seconds(duration: 30) == 15)
        #expect(StartPosition.fraction(0.5).seconds(duration: nil) == nil)
        #expect(StartPosition.seconds(7).seconds(duration: nil) == 7)
        #expect(StartPosition.beforeEnd(5).seconds(duration: 30) == 25)
        #expect(StartPosition.beforeEnd(50).seconds(duration: 30) == 0)
        #expect(StartPosition.beforeEnd(5).seconds(duration: nil) == nil)
    }
}
