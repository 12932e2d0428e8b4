// A desktop player: HPlayerSDL's window, its video output and SDL sound. Plays one file and
// exits at its end, at q or Esc, or when the window is closed. The other keys are mpv's
// (space pauses, the arrows seek, 9 and 0 change the volume); a click on the bar seeks.
//
//     swift build --product example-window
//     .build/debug/example-window demo/demo.mp4
//
// Exit status: 0 at the end or on quit, 1 when the file or the display fails, 2 for bad usage.
import Glibc
import HPlayerKit
import HPlayerSDL
import Synchronization

/// A line on stderr.
func printError(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

guard CommandLine.arguments.count == 2 else {
    printError("usage: example-window FILE-OR-URL")
    exit(2)
}
let url = CommandLine.arguments[1]

// The window is made first (the video output draws into it), and the player after: its
// callbacks reach the player's controller through this, set once there is one.
let current = Mutex<PlayerController?>(nil)

/// What a key, a click or the close button asks for. Called on the window's thread.
@Sendable func handle(_ command: InputCommand?) {
    guard let controller = current.withLock({ $0 }) else { return }
    switch command {
    case .player(let command)?: controller.perform(command)  // pause, seek, volume, …
    case .quit?: controller.close()                          // q, Esc, the close button
    default: break  // fullscreen, screenshots and playlists are left out here
    }
}

let window: SDLWindow
do {
    window = try SDLWindow(options: WindowOptions(title: url),
                           onKey: { key in handle(KeyBindings.command(for: key)) },  // mpv's bindings
                           onCommand: handle,
                           status: { current.withLock { $0 }?.player.status })  // for the progress bar
} catch {
    printError("example-window: \(error.input): \(error.reason)")  // no display
    exit(1)
}

// SDL sound when there is a device; without one the file still plays, silently.
let audio: AudioOutput = SDLAudioOutput.unavailableReason() == nil ? SDLAudioOutput() : NullAudioOutput()
let player = Player(url: url, audioOutput: audio, videoOutput: SDLVideoOutput(window: window))
let controller = PlayerController(player: player)
current.withLock { $0 = controller }

let events = player.events()
controller.load()
var failure: MediaError?
// Ends at `finished` (the end of the media, or an error), or when a close ends the stream.
for await event in events {
    if case .finished(let error) = event {
        failure = error
        break
    }
}
controller.close()
window.close()
if let failure {
    printError("example-window: \(failure.input): \(failure.reason)")
    exit(1)
}
