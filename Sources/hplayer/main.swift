import ArgumentParser
import FoundationEssentials
import Glibc
import HPlayerKit
import Logging

/// Errors end with one line on stderr, `hplayer: error: INPUT: REASON`, and exit 1 for a media
/// error or 2 for bad usage.
enum CommandLineFailure: Error {
    case media(MediaError)
    case usage(input: String, reason: String)
}

func fail(_ input: String, _ reason: String, exitCode: Int32) -> Never {
    writeStandardError("hplayer: error: \(input): \(reason)\n")
    exit(exitCode)
}

func writeStandardError(_ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        if written <= 0 { return }
        bytes = bytes.dropFirst(written)
    }
}

FreeMemory.limitArenas()
do {
    var arguments = PlayConfig.normalized(Array(CommandLine.arguments.dropFirst()))
    // hplayer.conf is for playing: not for the other commands, nor for help.
    let otherCommands: Set = ["probe", "bench", "snapshot", "cache", "abr-sim", "encode", "help"]
    if !arguments.isEmpty, !otherCommands.contains(arguments[0]), !arguments.contains(where: { ["--help", "-h", "--version"].contains($0) }) {
        arguments = PlayConfig.apply(to: arguments, environment: ProcessInfo.processInfo.environment)
    }
    var command = try HPlayerCommand.parseAsRoot(arguments)
    // Overload resolution picks ArgumentParser's synchronous run() here, so the async command
    // is called by its own name.
    if let play = command as? PlayCommand {
        try await play.play()
    } else {
        try command.run()
    }
} catch CommandLineFailure.media(let error) {
    fail(error.input, error.reason, exitCode: 1)
} catch CommandLineFailure.usage(let input, let reason) {
    fail(input, reason, exitCode: 2)
} catch let code as ExitCode {
    exit(code.rawValue)  // interrupted (130): the status says it all
} catch {
    let code = HPlayerCommand.exitCode(for: error)
    if code == .success {
        print(HPlayerCommand.fullMessage(for: error))
        exit(0)
    }
    let message = HPlayerCommand.message(for: error).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    fail("usage", message.isEmpty ? "invalid arguments (see hplayer --help)" : message, exitCode: 2)
}
