import HPlayerIPC
import HPlayerKit

/// The files to play, in order, each with the id mpv's IPC calls its playlist entry id.
final class Playlist: Sendable {
    struct Entry: Sendable {
        let id: Int
        let url: String
    }

    private let state: Locked<(waiting: [Entry], lastID: Int)>

    init(_ url: String) {
        state = Locked(([Entry(id: 1, url: url)], 1))
    }

    /// The next file to play, taken off the list; nil at the end.
    func next() -> Entry? {
        state.withLock { $0.waiting.isEmpty ? nil : $0.waiting.removeFirst() }
    }

    /// Adds `url`: next in line in place of every file waiting (`replace`, and the caller stops
    /// the one playing), or at the end. Returns its id.
    func add(_ url: String, mode: IPCCommand.LoadMode) -> Int {
        state.withLock { state in
            state.lastID += 1
            let entry = Entry(id: state.lastID, url: url)
            if mode == .replace { state.waiting = [entry] } else { state.waiting.append(entry) }
            return entry.id
        }
    }
}
