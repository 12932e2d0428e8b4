import HPlayerKit

/// A config file in mpv.conf's syntax, as lines: `option=value` or `option` alone, `#`
/// comments, `[name]` starting a profile's section. Pure: the text in, the settings out, each
/// with its file and line for the warnings.
struct ConfigFile: Equatable {
    struct Setting: Equatable {
        var file: String
        var line: Int
        var option: String
        /// nil for an option given alone (a flag).
        var value: String?
    }

    /// The settings before any section (and in `[default]`, as mpv's).
    var settings: [Setting] = []
    /// Each profile's settings, by name.
    var profiles: [String: [Setting]] = [:]

    init(settings: [Setting] = [], profiles: [String: [Setting]] = [:]) {
        self.settings = settings
        self.profiles = profiles
    }

    init(parsing text: String, file: String) {
        var section: String?
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = Self.strippingComment(raw).trimmingWhitespace()
            guard !line.isEmpty else { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                let name = line.dropFirst().dropLast().trimmingWhitespace()
                section = name == "default" ? nil : String(name)
                if let section, profiles[section] == nil { profiles[section] = [] }
                continue
            }
            var option = Substring(line)
            var value: String?
            if let equals = line.firstIndex(of: "=") {
                option = line[..<equals].trimmingWhitespace()
                value = Self.unquoted(line[line.index(after: equals)...].trimmingWhitespace())
            }
            while option.hasPrefix("-") { option = option.dropFirst() }
            let setting = Setting(file: file, line: index + 1, option: String(option), value: value)
            if let section { profiles[section, default: []].append(setting) } else { settings.append(setting) }
        }
    }

    /// The line up to a `#` that is not inside quotes.
    private static func strippingComment(_ line: Substring) -> Substring {
        var quote: Character?
        for index in line.indices {
            let character = line[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "#" {
                return line[..<index]
            }
        }
        return line
    }

    private static func unquoted(_ value: Substring) -> String {
        for quote in ["\"", "'"] where value.count >= 2 && value.hasPrefix(quote) && value.hasSuffix(quote) {
            return String(value.dropFirst().dropLast())
        }
        return String(value)
    }
}
