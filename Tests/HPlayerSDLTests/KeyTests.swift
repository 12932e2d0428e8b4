import HPlayerKit
import HPlayerSDL
import Testing

@Suite struct KeyTests {
    @Test("mpv's default keys", arguments: [
        (Key.character(" "), InputCommand.player(.togglePause)),
        (.character("p"), .player(.togglePause)),
        (.left, .player(.seek(by: -5))),
        (.right, .player(.seek(by: 5))),
        (.up, .player(.seek(by: 60))),
        (.down, .player(.seek(by: -60))),
        (.character("L"), .player(.toggleLoop)),
        (.character("m"), .player(.toggleMute)),
        (.character("9"), .player(.changeVolume(by: -2))),
        (.character("0"), .player(.changeVolume(by: 2))),
        (.character("f"), .toggleFullscreen),
        (.character("q"), .quit),
        (.escape, .quit),
        (.character("Q"), .quitSavingPosition),
        (.character("l"), .player(.cycleABLoop)),
        (.character("."), .player(.stepFrame(forward: true))),
        (.character(","), .player(.stepFrame(forward: false))),
        (.character("["), .player(.scaleSpeed(by: 1 / 1.1))),
        (.character("]"), .player(.scaleSpeed(by: 1.1))),
        (.character("{"), .player(.scaleSpeed(by: 0.5))),
        (.character("}"), .player(.scaleSpeed(by: 2))),
        (.backspace, .player(.resetSpeed)),
        (.character("s"), .screenshot(withSubtitles: true)),
        (.character("S"), .screenshot(withSubtitles: false)),
        (.character("z"), .player(.changeSubtitleDelay(by: -0.1))),
        (.character("Z"), .player(.changeSubtitleDelay(by: 0.1))),
        (.character("r"), .player(.changeSubtitlePosition(by: -1))),
        (.character("R"), .player(.changeSubtitlePosition(by: 1))),
        (.character("F"), .player(.changeSubtitleScale(by: -0.1))),
        (.character("G"), .player(.changeSubtitleScale(by: 0.1))),
        (.character("#"), .player(.cycleAudioTrack)),
        (.character("j"), .player(.cycleSubtitleTrack(forward: true))),
        (.character("J"), .player(.cycleSubtitleTrack(forward: false))),
        (.character("v"), .player(.toggleSubtitles)),
        (.pageUp, .chapterStep(-1)),
        (.pageDown, .chapterStep(1)),
        (.mouse(.wheelUp), .player(.seek(by: 10))),
        (.mouse(.wheelDown), .player(.seek(by: -10))),
        (.mouse(.leftDouble), .toggleFullscreen),
        (.mouse(.right), .player(.togglePause)),
    ])
    func binding(key: Key, command: InputCommand) {
        #expect(KeyBindings.command(for: key) == command)
    }

    @Test func unboundKeysDoNothing() {
        // Ctrl+q is not q: mpv binds it to nothing.
        for key in [Key.character("x"), .character("P"), .character("k"), .modified(.ctrl, .character("q")), .function(1), .mouse(.left)] {
            #expect(KeyBindings.command(for: key) == nil)
        }
    }
}
