import HPlayerSDL
import Testing
@testable import hplayer

@Suite struct TerminalKeyParserTests {
    @Test("Terminal bytes", arguments: [
        ([UInt8(ascii: "p")], Key.character("p"), 1),
        ([0x20, 0x71], .character(" "), 1),
        ([0x1B, 0x5B, 0x41], .up, 3),  // ESC [ A
        ([0x1B, 0x5B, 0x42], .down, 3),
        ([0x1B, 0x5B, 0x43, 0x71], .right, 3),
        ([0x1B, 0x4F, 0x44], .left, 3),  // ESC O D, application mode
        ([0x1B, 0x71], .modified(.alt, .character("q")), 2),  // Alt+q: Esc and q in one read
        ([0x1B, 0x1B], .escape, 1),  // Esc twice
        ([0x7F], .backspace, 1),
        ([0x08], .backspace, 1),
        ([0x1B, 0x5B, 0x35, 0x7E], .pageUp, 4),  // ESC [ 5 ~
        ([0x1B, 0x5B, 0x36, 0x7E, 0x71], .pageDown, 4),
        ([0x01], .modified(.ctrl, .character("a")), 1),  // ^A
        ([0x09], .character("\t"), 1),  // Tab, not Ctrl+I
        ([0x1B, 0x4F, 0x50], .function(1), 3),  // ESC O P
        ([0x1B, 0x5B, 0x31, 0x35, 0x7E], .function(5), 5),  // ESC [ 1 5 ~
        ([0x1B, 0x5B, 0x32, 0x34, 0x7E], .function(12), 5),
        ([0x1B, 0x5B, 0x31, 0x3B, 0x35, 0x43], .modified(.ctrl, .right), 6),  // ESC [ 1 ; 5 C
        ([0x1B, 0x5B, 0x35, 0x3B, 0x32, 0x7E], .modified(.shift, .pageUp), 6),
    ])
    func terminalKey(bytes: [UInt8], key: Key, length: Int) {
        let parsed = TerminalKeyParser.firstKey(in: bytes)
        #expect(parsed?.key == key)
        #expect(parsed?.length == length)
    }

    @Test func incompleteSequencesWait() {
        #expect(TerminalKeyParser.firstKey(in: []) == nil)
        #expect(TerminalKeyParser.firstKey(in: [0x1B]) == nil)
        #expect(TerminalKeyParser.firstKey(in: [0x1B, 0x5B]) == nil)
        #expect(TerminalKeyParser.firstKey(in: [0x1B, 0x5B, 0x31, 0x3B]) == nil)  // ESC [ 1 ; …
    }

    @Test func otherSequencesAreSkippedWhole() {
        // Delete (ESC [ 3 ~): no key, and none of its bytes left behind.
        let delete = TerminalKeyParser.firstKey(in: [0x1B, 0x5B, 0x33, 0x7E])
        #expect(delete?.key == nil && delete?.length == 4)
        let utf8 = TerminalKeyParser.firstKey(in: [0xC3, 0xA9])
        #expect(utf8?.key == nil && utf8?.length == 1)
        let endless = [0x1B, 0x5B] + [UInt8](repeating: 0x31, count: 20)
        #expect(TerminalKeyParser.firstKey(in: endless)?.length == endless.count)
    }
}
