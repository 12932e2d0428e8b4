import HPlayerSDL

/// Keys from the bytes a terminal sends: plain characters, and the escape sequences of the
/// arrow keys (`ESC [ A` in normal mode, `ESC O A` in application mode) and of Page Up and Down.
enum TerminalKeyParser {
    /// The first key in `bytes` and how many bytes it took; nil while an escape sequence is
    /// incomplete. Other sequences (Delete, Ctrl-arrows, …) and bytes outside ASCII take their
    /// bytes and give a nil key.
    static func firstKey(in bytes: [UInt8]) -> (key: Key?, length: Int)? {
        guard let first = bytes.first else { return nil }
        guard first == 0x1B else {
            if first == 0x7F || first == 0x08 { return (.backspace, 1) }  // DEL or ^H, as terminals differ
            if first == 0x0D || first == 0x0A { return (.enter, 1) }
            return (first < 0x80 ? .character(Character(Unicode.Scalar(first))) : nil, 1)
        }
        guard bytes.count >= 2 else { return nil }
        switch bytes[1] {
        case UInt8(ascii: "O"):  // SS3: one final byte
            guard bytes.count >= 3 else { return nil }
            return (arrow(bytes[2]), 3)
        case UInt8(ascii: "["):  // CSI: parameter and intermediate bytes, then a final byte in 0x40...0x7E
            guard let final = bytes.dropFirst(2).firstIndex(where: { (0x40...0x7E).contains($0) }) else {
                return bytes.count > maximumSequenceLength ? (nil, bytes.count) : nil
            }
            if final == 2 { return (arrow(bytes[2]), 3) }
            // `ESC [ 5 ~` and `ESC [ 6 ~`: Page Up and Page Down.
            let key: Key? = switch bytes[2..<final + 1] {
            case [UInt8(ascii: "5"), UInt8(ascii: "~")]: .pageUp
            case [UInt8(ascii: "6"), UInt8(ascii: "~")]: .pageDown
            default: nil
            }
            return (key, final + 1)
        default:
            return (.escape, 1)
        }
    }

    /// Longer than any key's sequence: dropped rather than waited on.
    private static let maximumSequenceLength = 16

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
