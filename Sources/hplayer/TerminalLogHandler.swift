import Glibc
import HPlayerKit
import Logging

/// Clears a status line being refreshed in place before a log line is written over it.
let clearStatusLine = isatty(STDERR_FILENO) != 0 ? "\r\u{1B}[K" : ""

/// Log lines as a command-line tool writes them: `hplayer: warning: MESSAGE` on stderr.
struct TerminalLogHandler: LogHandler {
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    let label: String

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        // Debug lines say where they come from; warnings speak to the user.
        let level = event.level
        let origin = level <= .debug ? "[\(label)] " : ""
        let text = "hplayer: \(level): \(origin)\(event.message)\n"
        if label == "hplayer.ffmpeg", level > .debug, FFmpegLineGate.hold(text) { return }
        writeStandardError(clearStatusLine + text)
    }
}

/// Holds FFmpeg's own complaints while media opens: if the open fails, the one error line says
/// why and they are dropped; once it succeeds they are shown, and later ones as they come.
enum FFmpegLineGate {
    private static let state = Locked<(open: Bool, held: [String])>((false, []))

    /// True when `line` was held back.
    static func hold(_ line: String) -> Bool {
        state.withLock { state in
            guard !state.open else { return false }
            if state.held.count < 20 { state.held.append(line) }
            return true
        }
    }

    /// The media opened: show what was held and let the rest through.
    static func open() {
        let held = state.withLock { state in
            state.open = true
            defer { state.held.removeAll() }
            return state.held
        }
        for line in held { writeStandardError(clearStatusLine + line) }
    }
}

/// The command line's own log lines.
enum Log {
    static let command = Logger(label: "hplayer.command")
}
