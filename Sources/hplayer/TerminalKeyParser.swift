import HPlayerSDL

/// Keys from the bytes a terminal sends: plain characters, Ctrl and Alt with a letter, and the escape
/// sequences of the arrows (`ESC [ A` in normal mode, `ESC O A` in application mode, `ESC [ 1 ; 5 A`
/// with Ctrl), Page Up and Down (`ESC [ 5 ~`) and the function keys (`ESC O P`, `ESC [ 15 ~`).
enum TerminalKeyParser {
    /// The first key in `bytes` and how many bytes it took; nil while an escape sequence is
    /// incomplete. Other sequences (Delete, Insert, …) and bytes outside ASCII take their bytes
    /// and give a nil key.
    static func firstKey(in bytes: [UInt8]) -> (key: Key?, length: Int)? {
        guard let first = bytes.first else { return nil }
        guard first == 0x1B else {
            if first == 0x7F || first == 0x08 { return (.backspace, 1) }  // DEL or ^H, as terminals differ
            if first == 0x0D || first == 0x0A { return (.enter, 1) }
            // ^A to ^Z, but for Tab (^I), which is its own key.
            if (0x01...0x1A).contains(first), first != 0x09 {
                return (.modified(.ctrl, .character(Character(Unicode.Scalar(first + 0x60)))), 1)
            }
            return (first < 0x80 ? .character(Character(Unicode.Scalar(first))) : nil, 1)
        }
        guard bytes.count >= 2 else { return nil }
        switch bytes[1] {
        case UInt8(ascii: "O"):  // SS3: one final byte
            guard bytes.count >= 3 else { return nil }
            return (arrow(bytes[2]) ?? ss3Function(bytes[2]), 3)
        case UInt8(ascii: "["):  // CSI: parameter and intermediate bytes, then a final byte in 0x40...0x7E
            guard let final = bytes.dropFirst(2).firstIndex(where: { (0x40...0x7E).contains($0) }) else {
                return bytes.count > maximumSequenceLength ? (nil, bytes.count) : nil
            }
            return (csiKey(parameters: bytes[2..<final], final: bytes[final]), final + 1)
        case 0x20...0x7E:
            // Esc before a character in one read is Alt with it, as terminals send Alt+x (and mpv reads it).
            return (.modified(.alt, .character(Character(Unicode.Scalar(bytes[1])))), 2)
        default:
            return (.escape, 1)
        }
    }

    /// Longer than any key's sequence: dropped rather than waited on.
    private static let maximumSequenceLength = 16

    /// A CSI sequence's key: `A`…`D` an arrow, `~` a numbered key; a second parameter, xterm's
    /// modifiers plus one (2 Shift, 3 Alt, 5 Ctrl, 9 Meta, summed).
    private static func csiKey(parameters: ArraySlice<UInt8>, final: UInt8) -> Key? {
        let numbers = parameters.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false)
            .map { Int(String(decoding: $0, as: UTF8.self)) }
        let key: Key?
        switch final {
        case UInt8(ascii: "~"):
            key = numbers.first.flatMap { $0 }.flatMap(numberedKey)
        default:
            key = arrow(final)
        }
        guard let key else { return nil }
        guard numbers.count == 2, let code = numbers[1], code > 1 else { return numbers.count <= 2 ? key : nil }
        var modifiers: KeyModifiers = []
        let bits = code - 1
        if bits & 1 != 0 { modifiers.insert(.shift) }
        if bits & 2 != 0 { modifiers.insert(.alt) }
        if bits & 4 != 0 { modifiers.insert(.ctrl) }
        if bits & 8 != 0 { modifiers.insert(.meta) }
        return .modified(modifiers, key)
    }

    private static func numberedKey(_ number: Int) -> Key? {
        switch number {
        case 5: .pageUp
        case 6: .pageDown
        case 11...15: .function(number - 10)  // rxvt's F1 to F4, and F5
        case 17...21: .function(number - 11)
        case 23, 24: .function(number - 12)
        default: nil
        }
    }

    private static func ss3Function(_ final: UInt8) -> Key? {
        (UInt8(ascii: "P")...UInt8(ascii: "S")).contains(final) ? .function(Int(final - UInt8(ascii: "P")) + 1) : nil
    }

    private static func arrow(_ final: UInt8) -> Key? {
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        default: return nil
        }
    }
}
