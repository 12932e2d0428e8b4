import Glibc
import HPlayerKit
import HPlayerSDL

/// Keys typed in the terminal, when stdin is one: the same bindings as the window. The terminal
/// is put in non-canonical mode without echo and restored on every way out (also at exit).
final class TerminalKeys: @unchecked Sendable {
    nonisolated(unsafe) private static var saved: termios?
    private let stopping = Locked(false)
    private var thread: JoinableThread?

    /// nil when stdin is not a terminal.
    init?(onKey: @escaping @Sendable (Key) -> Void) {
        guard isatty(STDIN_FILENO) != 0 else { return nil }
        var original = termios()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else { return nil }
        Self.saved = original
        atexit { TerminalKeys.restoreTerminal() }
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)  // ISIG stays: Ctrl-C still interrupts
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 1  // reads return every 100 ms, so the thread sees it must stop
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        thread = JoinableThread(name: "hp-terminal") { [stopping] in
            var pending: [UInt8] = []
            var byte: UInt8 = 0
            while !stopping.withLock({ $0 }) {
                if read(STDIN_FILENO, &byte, 1) == 1 {
                    pending.append(byte)
                    while let (key, used) = TerminalKeyParser.firstKey(in: pending) {
                        pending.removeFirst(used)
                        if let key { onKey(key) }
                    }
                } else if pending == [0x1B] {
                    pending.removeAll()
                    onKey(.escape)  // a lone Esc: nothing followed it
                }
            }
        }
    }

    func stop() {
        stopping.withLock { $0 = true }
        thread?.join()
        thread = nil
        Self.restoreTerminal()
    }

    static func restoreTerminal() {
        guard var saved else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
    }
}
