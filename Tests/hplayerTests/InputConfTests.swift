import HPlayerIPC
import HPlayerSDL
import Testing
@testable import hplayer

/// input.conf in mpv's syntax, read by table.
@Suite struct InputConfTests {
    @Test("Key names as mpv writes them", arguments: [
        ("a", Key?.some(.character("a"))), ("A", .character("A")), ("Shift+a", .character("A")), ("SPACE", .character(" ")),
        ("SHARP", .character("#")), ("ENTER", .enter), ("kp_enter", .enter), ("ESC", .escape), ("BS", .backspace),
        ("LEFT", .left), ("RIGHT", .right), ("UP", .up), ("DOWN", .down), (">", .character(">")),
        ("PGUP", .pageUp), ("PGDWN", .pageDown), ("Ctrl+a", nil), ("MBTN_LEFT", nil), ("F1", nil),
    ])
    func keyNames(name: String, key: Key?) {
        #expect(InputConf.key(named: name) == key)
    }

    @Test func bindingsIgnoredKeysAndAWarningPerLineNotTaken() {
        let text = """
            # my keys
            x cycle pause
            RIGHT seek 10 ; show-text "no such"
            LEFT seek -10 - exact   # a comment
            SPACE ignore
            Ctrl+q quit
            Q quit-watch-later

            y frobnicate 3
            """
        let conf = InputConf(parsing: text, file: "in.conf")
        #expect(conf.bindings == [
            .character("x"): .commands([.cycle("pause", up: true)]),
            .left: .commands([.seek(target: -10, reference: .relative, precision: .exact)]),
            .character(" "): .ignore,
            .character("Q"): .commands([.quitWatchLater(code: 0)]),
        ])
        #expect(conf.warnings.count == 3)
        #expect(conf.warnings[0].hasPrefix("in.conf:3: 'seek 10 ; show-text \"no such\"' is not a command"))
        #expect(conf.warnings[1].hasPrefix("in.conf:6: no key 'Ctrl+q'"))
        #expect(conf.warnings[2].hasPrefix("in.conf:9: 'frobnicate 3' is not a command"))
    }
}
