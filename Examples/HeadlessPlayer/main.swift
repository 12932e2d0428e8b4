// A minimal headless player: plays a file or URL with the null outputs (no window, no sound
// device), prints each state change and the position, and exits at the end of the media.
//
//     swift build --product example-headless
//     .build/debug/example-headless demo/demo.mp4
//
// Exit status: 0 at the end of the media, 1 when it cannot be played, 2 for bad usage.
import Glibc
import HPlayerKit

/// A line on stderr.
func printError(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

guard CommandLine.arguments.count == 2 else {
    printError("usage: example-headless FILE-OR-URL")
    exit(2)
}
let url = CommandLine.arguments[1]

// The null outputs take frames and samples at their time and show or play them nowhere:
// playback keeps real time, as `hplayer --vo null --ao null` does.
let player = Player(url: url, audioOutput: NullAudioOutput(), videoOutput: NullVideoOutput())
// The controller plays once the media is prepared (autoplay is on by default).
let controller = PlayerController(player: player)

/// One line: what happened, and where playback stands.
func report(_ what: String) {
    let status = player.status
    let duration = status.duration.map { " / " + TimeText.clock($0) } ?? ""
    print("\(TimeText.clock(status.position))\(duration)  \(what)")
}

// Subscribe before loading, so that no event is missed.
let events = player.events()
controller.load()

// The position, once a second while the media plays.
let ticker = Task {
    while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(1))
        if player.playbackState == .playing { report("playing") }
    }
}

var failure: MediaError?
eventLoop: for await event in events {
    switch event {
    case .prepared(let info):
        let kinds = info.streams.map(\.type.rawValue).joined(separator: ", ")
        report("prepared: \(info.container), streams: \(kinds)")
    case .playbackStateChanged(let state):
        report("state: \(state)")
    case .loadStateChanged(let state):
        report("load: \(state)")
    case .finished(let error):
        // nil at the end of the media; otherwise what stopped it.
        failure = error
        break eventLoop
    default:
        continue
    }
}
ticker.cancel()
controller.close()  // stops, joins every thread, ends the event streams

if let failure {
    printError("example-headless: \(failure.input): \(failure.reason)")
    exit(1)
}
