import HPlayerIPC
import HPlayerSDL

/// A key pressed in the window or the terminal: input.conf's binding for it, else mpv's default.
struct KeyDispatch: Sendable {
    let bindings: [Key: InputConf.Binding]
    let runner: CommandRunner
    let session: PlaybackSession

    func press(_ key: Key) {
        switch bindings[key] {
        case .ignore?:
            return
        case .commands(let commands)?:
            for command in commands { _ = runner.run(command) }
        case nil:
            if let command = KeyBindings.command(for: key) { session.handle(command) }
        }
    }
}
