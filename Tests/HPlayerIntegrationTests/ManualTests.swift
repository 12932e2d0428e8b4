import Foundation
import HPlayerTestSupport
import Testing

/// The manual (README.md and docs/) against what it documents. The man page is generated from
/// the command-line definitions (scripts/install.sh), so the options' texts cannot drift from
/// it; docs/options.md is written by hand and can. Runs the built hplayer once; under a second.
@Suite(.phased) struct ManualTests {
    static let options = Repository.root.appendingPathComponent("docs/options.md")

    /// The parts of swift-argument-parser's `--experimental-dump-help` JSON read here.
    struct DumpedHelp: Decodable {
        var command: DumpedCommand
    }

    struct DumpedCommand: Decodable {
        var commandName: String
        var subcommands: [DumpedCommand]?
        var arguments: [DumpedArgument]?
    }

    struct DumpedArgument: Decodable {
        var kind: String
        var names: [DumpedName]?
        var shouldDisplay: Bool
    }

    struct DumpedName: Decodable {
        var kind: String
        var name: String

        /// As typed on the command line: `--name`, `-n`, or `-name` for a long name with one dash.
        var spelled: String {
            switch kind {
            case "long": "--" + name
            case "short": "-" + name
            default: "-" + name
            }
        }
    }

    /// Every option and flag name each command shows in its help, as `(hplayer cache rm, --all)`.
    static func optionNames(_ command: DumpedCommand, path: String = "") -> [(command: String, name: String)] {
        let here = path.isEmpty ? command.commandName : path + " " + command.commandName
        let own = (command.arguments ?? []).filter { $0.kind != "positional" && $0.shouldDisplay }
            .flatMap { $0.names ?? [] }.map { (command: here, name: $0.spelled) }
        return own + (command.subcommands ?? []).flatMap { optionNames($0, path: here) }
    }

    /// Whether `text` names `option` as a whole word: `--live` is not found in `--live-latency`,
    /// nor `-v` in `--vo`.
    static func mentions(_ text: String, _ option: String) -> Bool {
        func isNamePart(_ character: Character?) -> Bool {
            guard let character else { return false }
            return character.isLetter || character.isNumber || character == "-" || character == "_"
        }
        var searched = text.startIndex..<text.endIndex
        while let found = text.range(of: option, range: searched) {
            let before = found.lowerBound > text.startIndex ? text[text.index(before: found.lowerBound)] : nil
            let after = found.upperBound < text.endIndex ? text[found.upperBound] : nil
            if !isNamePart(before), !isNamePart(after) { return true }
            searched = found.upperBound..<text.endIndex
        }
        return false
    }

    @Test("Every option of every hplayer command (from --experimental-dump-help, the definitions the man page is generated from) appears in docs/options.md")
    func everyOptionIsInTheManual() throws {
        let result = try Command.run([Command.hplayer, "--experimental-dump-help"], timeout: 60)
        try #require(result.status == 0 && !result.timedOut, "hplayer --experimental-dump-help: \(result.stderr)")
        let help = try JSONDecoder().decode(DumpedHelp.self, from: Data(result.stdout.utf8))
        let names = Self.optionNames(help.command)
        // The dump is read right: play's own options and a subcommand's below a subcommand.
        try #require(names.contains { $0.command == "hplayer play" && $0.name == "--hls-abr" })
        try #require(names.contains { $0.command == "hplayer cache prefetch" && $0.name == "--keep-keys" })
        let manual = try String(contentsOf: Self.options, encoding: .utf8)
        let missing = names.filter { !Self.mentions(manual, $0.name) }
        for entry in missing {
            Issue.record("docs/options.md does not name \(entry.name), an option of \(entry.command)")
        }
    }

    /// README.md and every Markdown file under docs/.
    static func manualFiles() throws -> [URL] {
        let docs = Repository.root.appendingPathComponent("docs")
        let files = try FileManager.default.contentsOfDirectory(at: docs, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "md" }
            .sorted { $0.path < $1.path }
        return [Repository.root.appendingPathComponent("README.md")] + files
    }

    /// The targets of `[text](target)` links outside fenced code blocks.
    static func linkTargets(_ markdown: String) -> [String] {
        var targets: [String] = []
        var fenced = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                fenced.toggle()
                continue
            }
            if fenced { continue }
            var rest = line[...]
            while let close = rest.range(of: "](") {
                let after = rest[close.upperBound...]
                guard let end = after.firstIndex(of: ")") else { break }
                targets.append(String(after[..<end]))
                rest = after[end...]
            }
        }
        return targets
    }

    @Test("Every relative link in README.md and docs/*.md points to a file that exists")
    func everyLinkPointsToAFile() throws {
        let files = try Self.manualFiles()
        try #require(files.count > 2, "docs/ holds no Markdown files")
        var checked = 0
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for target in Self.linkTargets(text) {
                if target.contains("://") || target.hasPrefix("mailto:") || target.hasPrefix("#") { continue }
                let path = String(target.prefix { $0 != "#" })
                let resolved = file.deletingLastPathComponent().appendingPathComponent(path).standardizedFileURL
                checked += 1
                #expect(FileManager.default.fileExists(atPath: resolved.path),
                        "\(file.lastPathComponent) links to \(target), and \(resolved.path) does not exist")
            }
        }
        #expect(checked > 0, "no relative link was found: the link reader is broken")
    }
}
