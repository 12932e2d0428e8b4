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
        ("PGUP", .pageUp), ("PGDWN", .pageDown), ("F1", .function(1)), ("f12", .function(12)), ("F13", nil),
        ("Ctrl+a", .modified(.ctrl, .character("a"))), ("Ctrl+Shift+a", .modified(.ctrl, .character("A"))),
        ("alt+meta+LEFT", .modified([.alt, .meta], .left)), ("Shift+PGUP", .modified(.shift, .pageUp)), ("Ctrl++", .modified(.ctrl, .character("+"))),
        ("Ctrl+Shift+1", .modified([.ctrl, .shift], .character("1"))),
        ("MBTN_LEFT", .mouse(.left)), ("MBTN_LEFT_DBL", .mouse(.leftDouble)), ("WHEEL_UP", .mouse(.wheelUp)),
        ("Hyper+a", nil), ("MBTN_9", nil), ("+", .character("+")),
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
            Hyper+q quit
            Q quit-watch-later

            y frobnicate 3
            """
        let conf = InputConf(parsing: text, file: "in.conf")
        #expect(conf.bindings == [
            .character("x"): .commands([.cycle("pause", up: true)]),
            .left: .commands([.seek(target: -10, reference: .relative, precision: .exact)]),
            .character(" "): .ignore,
            .character("Q"): .commands([.quitWatchLater(code: 0)]),
            .modified(.ctrl, .character("q")): .commands([.quit(code: 0)]),
        ])
        #expect(conf.warnings.count == 3)
        #expect(conf.warnings[0].hasPrefix("in.conf:3: 'seek 10 ; show-text \"no such\"' is not a command"))
        #expect(conf.warnings[1].hasPrefix("in.conf:7: no key 'Hyper+q'"))
        #expect(conf.warnings[2].hasPrefix("in.conf:10: 'frobnicate 3' is not a command"))
    }
}
