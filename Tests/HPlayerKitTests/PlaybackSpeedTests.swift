import Testing
@testable import HPlayerKit

@Suite struct PlaybackSpeedTests {
    @Test("Steps by a factor, clamped to 0.25...4 and rounded to a hundredth", arguments: [
        (1.0, 1.1, 1.1), (1.1, 1.1, 1.21), (1.0, 1 / 1.1, 0.91), (3.0, 2, 4.0), (0.3, 0.5, 0.25), (4.0, 1.1, 4.0), (2.0, 0.5, 1.0),
    ])
    func scaled(speed: Double, factor: Double, expected: Double) {
        #expect(PlaybackSpeed.scaled(speed, by: factor) == expected)
    }

    @Test func tenStepsUpAndTenDownComeBack() {
        var speed = 1.0
        for _ in 0..<10 { speed = PlaybackSpeed.scaled(speed, by: 1.1) }
        #expect(speed == 2.61)
        for _ in 0..<10 { speed = PlaybackSpeed.scaled(speed, by: 1 / 1.1) }
        #expect(speed == 1)
    }

    @Test("Out of range is refused with the reason", arguments: [0.2, 4.5, 0, -1, .nan, .infinity])
    func refused(speed: Double) {
        #expect(PlaybackSpeed.refusal(of: speed)?.contains("out of range (0.25 to 4.0)") == true)
    }

    @Test func inRangeIsAccepted() {
        for speed in [0.25, 0.5, 1, 2.5, 4] { #expect(PlaybackSpeed.refusal(of: speed) == nil) }
    }

    @Test func text() {
        #expect(PlaybackSpeed.text(1) == "1.00")
        #expect(PlaybackSpeed.text(1.1) == "1.10")
        #expect(PlaybackSpeed.text(0.25) == "0.25")
        #expect(PlaybackSpeed.text(0.09) == "0.09")
    }

    @Test("atempo stages: one from 0.5 up, two square roots below")
    func stages() {
        #expect(AudioTempoFilter.stages(for: 2) == [2])
        #expect(AudioTempoFilter.stages(for: 0.5) == [0.5])
        #expect(AudioTempoFilter.stages(for: 0.25) == [0.5, 0.5])
    }
}
