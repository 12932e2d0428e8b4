/// Commands as text, as mpv takes them in input.conf and on its IPC socket (a line that is not
/// JSON): words separated by spaces, strings in double quotes (with C's escapes) or single
/// quotes, several commands separated by `;`, `#` starting a comment. The words become those of
/// a JSON command, strings all, which IPCCommand reads as mpv reads arguments from text.
public enum IPCCommandText {
    /// Prefixes mpv allows before a command, about its on-screen display or how it runs:
    /// nothing that changes what it does here.
    static let prefixes: Set<String> = ["no-osd", "osd-auto", "osd-no", "osd-bar", "osd-msg", "osd-msg-bar", "raw",
                                        "expand-properties", "repeatable", "async", "sync"]

    /// Each command of `line`, as its words; nil when the line cannot be split (a quote left open).
    public static func words(_ line: some StringProtocol) -> [[JSONValue]]? {
        var commands: [[JSONValue]] = []
        var words: [String] = []
        var word: String?
        var characters = line.makeIterator()
        func endWord() {
            if let finished = word { words.append(finished) }
            word = nil
        }
        func endCommand() {
            endWord()
            while let first = words.first, prefixes.contains(first) { words.removeFirst() }
            // A trailing `-` is an argument left out.
            while words.last == "-" { words.removeLast() }
            if !words.isEmpty { commands.append(words.map(JSONValue.string)) }
            words = []
        }
        while let character = characters.next() {
            switch character {
            case "\"", "'":
                var quoted = word ?? ""
                var closed = false
                while let inner = characters.next() {
                    if inner == character {
                        closed = true
                        break
                    }
                    if character == "\"", inner == "\\" {
                        switch characters.next() {
                        case "n": quoted.append("\n")
                        case "t": quoted.append("\t")
                        case let escaped?: quoted.append(escaped)
                        case nil: return nil
                        }
                    } else {
                        quoted.append(inner)
                    }
                }
                guard closed else { return nil }
                word = quoted
            case "#":
                endCommand()
                return commands
            case ";":
                endCommand()
            case _ where character.isWhitespace:
                endWord()
            default:
                word = (word ?? "") + String(character)
            }
        }
        endCommand()
        return commands
    }

    /// The commands of `line`; nil when any one is not a command HPlayer knows, as words go.
    public static func commands(_ line: some StringProtocol) -> [IPCCommand]? {
        guard let words = words(line) else { return nil }
        let commands = words.compactMap(IPCCommand.init)
        return commands.count == words.count ? commands : nil
    }
}
