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
                warnings.append("\(place): no key '\(name)' here (keys with Ctrl, Alt or Meta, mouse buttons and function keys are not seen)")
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

    /// mpv's name of a key: the character it types, or a name for the others.
    static func key(named name: String) -> Key? {
        switch name.uppercased() {
        case "SPACE": return .character(" ")
        case "SHARP": return .character("#")
        case "ENTER", "KP_ENTER": return .enter
        case "ESC": return .escape
        case "BS": return .backspace
        case "LEFT": return .left
        case "RIGHT": return .right
        case "UP": return .up
        case "DOWN": return .down
        case "PGUP": return .pageUp
        case "PGDWN": return .pageDown
        default: break
        }
        var name = Substring(name)
        var shifted = false
        if name.lowercased().hasPrefix("shift+"), name.count == "shift+".count + 1 {
            name = name.dropFirst("shift+".count)
            shifted = true
        }
        guard name.count == 1, let character = name.first, character.isASCII, !character.isWhitespace else { return nil }
        return .character(shifted ? Character(character.uppercased()) : character)
    }
}
