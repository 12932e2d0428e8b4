import HPlayerIPC
import Testing

/// Commands as text, as input.conf and mpv's socket take them.
struct IPCCommandTextTests {
    @Test("Words: spaces, quotes with escapes, several commands, comments, prefixes, an argument left out", arguments: [
        ("seek 10 relative", [["seek", "10", "relative"]]),
        ("  set  title \"a \\\"b\\\" c\"  ", [["set", "title", "a \"b\" c"]]),
        ("set title 'it''s'", [["set", "title", "its"]]),
        ("cycle mute ; add volume -5", [["cycle", "mute"], ["add", "volume", "-5"]]),
        ("no-osd seek 5 # forward", [["seek", "5"]]),
        ("seek 10 -", [["seek", "10"]]),
        ("# nothing", []),
        ("", []),
    ])
    func words(line: String, words: [[String]]) {
        #expect(IPCCommandText.words(line) == words.map { $0.map(JSONValue.string) })
    }

    @Test func anOpenQuoteIsNoCommand() {
        #expect(IPCCommandText.words("set title \"open") == nil)
    }

    @Test("Commands, as the IPC's", arguments: [
        ("seek 2 absolute exact", [IPCCommand.seek(target: 2, reference: .absolute, precision: .exact)]),
        ("seek 5 - keyframes", [.seek(target: 5, reference: .relative, precision: .keyframes)]),
        ("set pause yes", [.set("pause", .string("yes"))]),
        ("cycle pause; add volume -10", [.cycle("pause", up: true), .add("volume", -10)]),
        ("playlist-next force", [.playlist(.next(force: true))]),
        ("quit 4", [.quit(code: 4)]),
    ])
    func commands(line: String, commands: [IPCCommand]) {
        #expect(IPCCommandText.commands(line) == commands)
    }

    @Test func aLineWithAnUnknownCommandIsNone() {
        #expect(IPCCommandText.commands("cycle pause; nosuch 1") == nil)
    }
}
