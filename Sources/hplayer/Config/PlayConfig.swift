import Glibc
import HPlayerKit

/// hplayer.conf for `play`, as mpv.conf is for mpv: its settings become options placed before
/// the command line's, which so win. `--no-config` leaves it out, `--include=FILE` reads one more,
/// `--profile=NAME` applies a section. An unknown option or a bad value is one warning naming
/// the file and the line, and is left out; playback goes on.
enum PlayConfig {
    /// The arguments a config stands for, and a warning for each setting left out.
    struct Resolved: Equatable {
        var arguments: [String] = []
        var warnings: [String] = []
    }

    /// `$XDG_CONFIG_HOME/hplayer`, else `~/.config/hplayer`: where hplayer.conf and input.conf are.
    static func folder(environment: [String: String]) -> String? {
        if let config = environment["XDG_CONFIG_HOME"], !config.isEmpty { return config + "/hplayer" }
        return environment["HOME"].map { $0 + "/.config/hplayer" }
    }

    /// The command line with the config's arguments put first: the default file's (unless
    /// `--no-config`), then each `--include`d file's, then each `--profile`'s. Warnings go to stderr.
    static func apply(to arguments: [String], environment: [String: String]) -> [String] {
        let (command, rest) = arguments.first == "play" ? (["play"], Array(arguments.dropFirst())) : ([], arguments)
        var files: [String] = []
        if !rest.contains("--no-config"), let folder = folder(environment: environment), access(folder + "/hplayer.conf", F_OK) == 0 {
            files.append(folder + "/hplayer.conf")
        }
        files += values(of: "--include", in: rest)
        var config = ConfigFile()
        var warnings: [String] = []
        for file in files {
            guard let text = read(file) else {
                warnings.append("\(file): cannot be read")
                continue
            }
            config.merge(ConfigFile(parsing: text, file: file))
        }
        let profiles = values(of: "--profile", in: rest).flatMap { $0.split(separator: ",").map(String.init) }
        var resolved = resolve(config, profiles: profiles, read: read, check: check)
        resolved.warnings = warnings + resolved.warnings
        for warning in resolved.warnings { writeStandardError("hplayer: warning: \(warning)\n") }
        return command + resolved.arguments + rest
    }

    /// Profiles every config has, as mpv's built-in ones; a config's own of the same name wins.
    static let builtinProfiles: [String: [ConfigFile.Setting]] = [
        "low-latency": [ConfigFile.Setting(file: "built-in profile low-latency", line: 1, option: "live", value: nil)],
    ]

    /// The arguments of `config`'s settings, then of each profile named; `read` gives an
    /// included file's text, `check` why an argument is refused (nil when it is taken).
    static func resolve(_ config: ConfigFile, profiles: [String], read: (String) -> String?, check: (String) -> String?) -> Resolved {
        var resolved = Resolved()
        var available = builtinProfiles.merging(config.profiles) { $1 }
        var applying: [String] = []
        func apply(_ settings: [ConfigFile.Setting]) {
            for setting in settings {
                let place = "\(setting.file):\(setting.line)"
                switch setting.option {
                case "profile":
                    for name in (setting.value ?? "").split(separator: ",").map(String.init) { applyProfile(name, at: place) }
                case "include":
                    guard let path = setting.value, let text = read(path) else {
                        resolved.warnings.append("\(place): include: \(setting.value ?? "no file") cannot be read")
                        continue
                    }
                    let included = ConfigFile(parsing: text, file: path)
                    available.merge(included.profiles) { $1 }
                    apply(included.settings)
                default:
                    let (argument, refusal) = commandLineArgument(for: setting, check: check)
                    if let argument { resolved.arguments.append(argument) }
                    if let refusal { resolved.warnings.append("\(place): \(refusal)") }
                }
            }
        }
        func applyProfile(_ name: String, at place: String) {
            guard let settings = available[name] else {
                resolved.warnings.append("\(place): no profile named '\(name)'")
                return
            }
            guard !applying.contains(name) else { return }  // a profile naming itself, at any depth
            applying.append(name)
            apply(settings)
            applying.removeLast()
        }
        apply(config.settings)
        for name in profiles { applyProfile(name, at: "--profile") }
        return resolved
    }

    /// A setting as an argument: `--option=value`, `--option` for one alone; a flag given `yes`
    /// is `--flag`, given `no` `--no-flag` (which undoes an earlier setting of it; a flag without
    /// that form is left out), as mpv.conf writes them. Else the refusal.
    private static func commandLineArgument(for setting: ConfigFile.Setting, check: (String) -> String?) -> (String?, String?) {
        let plain = setting.value.map { "--\(setting.option)=\($0)" } ?? normalized(["--\(setting.option)"])[0]
        guard let refusal = check(plain) else { return (plain, nil) }
        if let value = setting.value, value == "yes" || value == "no", check("--\(setting.option)") == nil {
            let inverted = "--no-\(setting.option)"
            return (value == "yes" ? "--\(setting.option)" : check(inverted) == nil ? inverted : nil, nil)
        }
        return (nil, refusal)
    }

    /// mpv's options that may go without their value, given theirs: ArgumentParser's options
    /// always take one. `--loop-playlist` alone is `inf`; followed by a value, it is that value's.
    static func normalized(_ arguments: [String]) -> [String] {
        arguments.indices.map { index in
            let next = index + 1 < arguments.count ? arguments[index + 1] : nil
            let takesNext = next.map { PlaylistPasses(argument: $0) != nil } ?? false
            return arguments[index] == "--loop-playlist" && !takesNext ? "--loop-playlist=inf" : arguments[index]
        }
    }

    /// Why `play` would refuse this argument; nil when it takes it.
    private static func check(_ argument: String) -> String? {
        do {
            _ = try PlayCommand.parse([argument])
            return nil
        } catch {
            return PlayCommand.message(for: error).split(whereSeparator: \.isNewline).first.map(String.init) ?? "refused"
        }
    }

    private static func read(_ path: String) -> String? {
        (try? WholeFile.read(path, limit: 1 << 20)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Each value of an option given as `--name=value` or `--name value`.
    private static func values(of name: String, in arguments: [String]) -> [String] {
        var values: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            if argument.hasPrefix(name + "=") {
                values.append(String(argument.dropFirst(name.count + 1)))
            } else if argument == name, index + 1 < arguments.endIndex {
                values.append(arguments[index + 1])
                index += 1
            }
            index += 1
        }
        return values
    }
}

extension ConfigFile {
    /// Another file's settings after these; its profiles join (a name given again: the later).
    mutating func merge(_ other: ConfigFile) {
        settings += other.settings
        profiles.merge(other.profiles) { $1 }
    }
}
