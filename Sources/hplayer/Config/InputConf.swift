import HPlayerIPC
import HPlayerKit
import HPlayerSDL

/// input.conf in mpv's syntax: a line per binding, `KEY command [args] [; command…]`, `#`
/// comments, `ignore` to unbind a key. Pure: the text in, the bindings and a warning per line
/// that cannot be taken (a key HPlayer does not see, a command it does not know).
struct InputConf: Equatable {
    enum Binding: Equatable, Sendable {
        case commands([IPCCommand])
        /// The key does nothing, not even its default.
        case ignore
    }

    var bindings: [Key: Binding] = [:]
    var warnings: [String] = []

    init(bindings: [Key: Binding] = [:], warnings: [String] = []) {
        self.bindings = bindings
        self.warnings = warnings
    }

    init(parsing text: String, file: String) {
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingWhitespace()
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            let place = "\(file):\(index + 1)"
            let name = line.prefix { !$0.isWhitespace }
            let command = line.dropFirst(name.count).trimmingWhitespace()
            guard let key = Self.key(named: String(name)) else {
                warnings.append("\(place): no key '\(name)' here")
                continue
            }
            if command == "ignore" {
                bindings[key] = .ignore
            } else if let commands = IPCCommandText.commands(command), !commands.isEmpty {
                bindings[key] = .commands(commands)
            } else {
                warnings.append("\(place): '\(command)' is not a command HPlayer knows")
            }
        }
    }

    /// mpv's name of a key: the character it types, or a name for the others (F1, PGUP,
    /// MBTN_RIGHT, WHEEL_UP), after modifiers (Ctrl+, Alt+, Meta+, Shift+) in any order.
    static func key(named name: String) -> Key? {
        var modifiers: KeyModifiers = []
        var rest = Substring(name)
        // A name of one character after a `+` is the character: `Ctrl++` is Ctrl with plus.
        while rest.count > 1, let plus = rest.dropLast().firstIndex(of: "+") {
            switch rest[..<plus].lowercased() {
            case "shift": modifiers.insert(.shift)
            case "ctrl": modifiers.insert(.ctrl)
            case "alt": modifiers.insert(.alt)
            case "meta": modifiers.insert(.meta)
            default: return nil
            }
            rest = rest[rest.index(after: plus)...]
        }
        guard var key = plainKey(named: String(rest)) else { return nil }
        // Shift with a letter is its capital: Shift+a is A, and Ctrl+Shift+a Ctrl+A. With another
        // character and Ctrl, Alt or Meta, Shift stays a modifier, as the window reports it
        // (Ctrl+Shift+1): which character Shift types there depends on the layout.
        if case .character(let character) = key, modifiers.contains(.shift),
           character.isLetter || modifiers == .shift {
            modifiers.remove(.shift)
            key = .character(Character(character.uppercased()))
        }
        return modifiers.isEmpty ? key : .modified(modifiers, key)
    }

    private static func plainKey(named name: String) -> Key? {
        switch name.uppercased() {
        case "SPACE": return .character(" ")
        case "SHARP": return .character("#")
        case "TAB": return .character("\t")
        case "ENTER", "KP_ENTER": return .enter
        case "ESC": return .escape
        case "BS": return .backspace
        case "LEFT": return .left
        case "RIGHT": return .right
        case "UP": return .up
        case "DOWN": return .down
        case "PGUP": return .pageUp
        case "PGDWN": return .pageDown
        case let upper:
            if let mouse = MouseInput(rawValue: upper) { return .mouse(mouse) }
            if upper.hasPrefix("F"), let number = Int(upper.dropFirst()), (1...12).contains(number) { return .function(number) }
        }
        guard name.count == 1, let character = name.first, character.isASCII, !character.isWhitespace else { return nil }
        return .character(character)
    }
}
