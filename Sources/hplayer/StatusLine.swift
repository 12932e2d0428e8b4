import FoundationEssentials
import Glibc
import HPlayerKit

/// The terminal status line, like mpv's:
/// `AV: 00:00:03 / 00:01:00 (5%) A-V: 0.000 Dropped: 0 Buffer: 3.2s`.
/// Refreshed in place on a terminal; on a pipe, one line every two seconds and at each change of
/// state (paused, buffering, waiting for data).
final class StatusLine: Sendable {
    private let isTerminal = isatty(STDERR_FILENO) != 0
    /// When a line was last written to a pipe. Under its lock the whole update runs, so the
    /// status task's refresh and the final line after its cancel never interleave.
    private let lastWritten = Locked((at: 0.0, state: ""))

    /// What the line starts with: "(Paused) ", "(Buffering) ", live "(Waiting for data) ", or nothing.
    static func state(_ status: PlayerStatus) -> String {
        switch (status.playbackState, status.loadState) {
        case (.paused, _): "(Paused) "
        case _ where status.isWaitingForData: "(Waiting for data) "
        case (_, .loading): "(Buffering) "
        default: ""
        }
    }

    static func text(_ status: PlayerStatus) -> String {
        var text = state(status)
        text += "AV: \(TimeText.clock(status.position))"
        if let duration = status.duration, duration > 0 {
            text += " / \(TimeText.clock(duration)) (\(Int(saturating: status.position / duration * 100, rounding: .down))%)"
        }
        text += cFormat(" A-V: %.3f Dropped: %ld Buffer: %.1fs", status.avDifference, status.droppedFrames, status.bufferedDuration)
        if let latency = status.liveLatency { text += cFormat(" Latency: %.2fs", latency) }
        if status.decodeErrors > 0 { text += " Errors: \(status.decodeErrors)" }
        return text
    }

    /// A one-off line on stderr, prefixed `hplayer: `.
    static func notice(_ message: String) {
        writeStandardError("hplayer: \(message)\n")
    }

    /// What a key did ("Volume 98%"), where no window shows it: a line of its own, the status
    /// line redrawn under it at its next refresh.
    static func show(_ text: String) {
        writeStandardError(isatty(STDERR_FILENO) != 0 ? "\r\u{1B}[K\(text)\n" : "\(text)\n")
    }

    func update(_ status: PlayerStatus, final: Bool = false) {
        let line = Self.text(status)
        let state = Self.state(status)
        lastWritten.withLock { lastWritten in
            let now = Date().timeIntervalSince1970
            if isTerminal {
                writeStandardError("\r\u{1B}[K\(line)\(final ? "\n" : "")")
            } else if final || now - lastWritten.at >= 2 || state != lastWritten.state {
                // A pipe gets a line every two seconds, and one as soon as the state changes.
                lastWritten = (now, state)
                writeStandardError("\(line)\n")
            }
        }
    }
}
