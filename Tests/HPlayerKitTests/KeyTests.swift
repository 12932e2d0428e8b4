import Testing
@testable import HPlayerKit

@Suite struct KeyTests {
    @Test("mpv's default keys", arguments: [
        (Key.character(" "), PlayerCommand.togglePause),
        (.character("p"), .togglePause),
        (.left, .seek(by: -5)),
        (.right, .seek(by: 5)),
        (.up, .seek(by: 60)),
        (.down, .seek(by: -60)),
        (.character("L"), .toggleLoop),
        (.character("m"), .toggleMute),
        (.character("9"), .changeVolume(by: -2)),
        (.character("0"), .changeVolume(by: 2)),
        (.character("f"), .toggleFullscreen),
        (.character("q"), .quit),
        (.escape, .quit),
        (.character("Q"), .quitSavingPosition),
        (.character("l"), .cycleABLoop),
        (.character("."), .stepFrame(forward: true)),
        (.character(","), .stepFrame(forward: false)),
        (.character("["), .scaleSpeed(by: 1 / 1.1)),
        (.character("]"), .scaleSpeed(by: 1.1)),
        (.character("{"), .scaleSpeed(by: 0.5)),
        (.character("}"), .scaleSpeed(by: 2)),
        (.backspace, .resetSpeed),
        (.character("s"), .screenshot),
        (.character("#"), .cycleAudioTrack),
        (.character("j"), .cycleSubtitleTrack(forward: true)),
        (.character("J"), .cycleSubtitleTrack(forward: false)),
        (.character("v"), .toggleSubtitles),
    ])
    func binding(key: Key, command: PlayerCommand) {
        #expect(KeyBindings.command(for: key) == command)
    }

    @Test func unboundKeysDoNothing() {
        for key in [Key.character("x"), .character("P"), .character("k")] {
            #expect(KeyBindings.command(for: key) == nil)
        }
    }
}
