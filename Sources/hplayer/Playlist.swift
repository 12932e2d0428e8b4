import ArgumentParser
import HPlayerIPC
import HPlayerKit
import Logging

/// The files to play: the command line's inputs as they expanded, and what the IPC and the keys
/// do to them. The decisions are PlaylistQueue's, under one lock; a stop one asks for goes to
/// `stop`, with the turn to stop.
final class Playlist: IPCPlaylist {
    private let queue: Locked<PlaylistQueue>
    private let stop: @Sendable (_ turn: Int) -> Void
    /// How loadlist fetches a remote playlist.
    private let network: NetworkOptions
    /// A signal for `nextWhenOver`: a command changed the list, or playback is ending.
    private let changes: AsyncStream<Void>
    private let changed: AsyncStream<Void>.Continuation

    init(_ queue: PlaylistQueue, network: NetworkOptions, stop: @escaping @Sendable (_ turn: Int) -> Void) {
        self.queue = Locked(queue)
        self.network = network
        self.stop = stop
        (changes, changed) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// With --idle, once playback is over: waits for a command to say what to play next (its
    /// entry and turn), or for `isQuitting` (nil).
    func nextWhenOver(isQuitting: @Sendable () -> Bool) async -> (entry: PlaylistQueue.Entry, turn: Int)? {
        // A signal left from before is harmless: the list is looked at again, and nothing plays.
        for await _ in changes {
            if isQuitting() { return nil }
            if let next = advance() { return next }
        }
        return nil
    }

    /// Rouses `nextWhenOver` to look again.
    func wake() { changed.yield() }

    /// The next entry to play, and its turn; nil when playback is over.
    func advance() -> (entry: PlaylistQueue.Entry, turn: Int)? {
        queue.withLock { queue in queue.advance().map { ($0, queue.turn) } }
    }

    /// How many entries the list has.
    var count: Int { queue.withLock { $0.entries.count } }

    func load(_ url: String, mode: IPCCommand.LoadMode) -> Int {
        let (id, turn) = queue.withLock { queue -> (Int, Int?) in
            mode == .replace ? (queue.replace(with: [url]) ?? 0, queue.turn) : (queue.append(url, startsWhenOver: mode == .appendPlay), nil)
        }
        if let turn { stop(turn) }
        wake()
        return id
    }

    func loadList(_ path: String, mode: IPCCommand.LoadMode) -> (firstID: Int, count: Int)? {
        let urls: [String]
        do {
            urls = try PlaylistExpansion.entries(ofPlaylist: path, network: network)
        } catch {
            Log.command.warning("\(error.input): \(error.reason)")
            return nil
        }
        guard !urls.isEmpty else { return nil }
        let (firstID, turn) = queue.withLock { queue -> (Int, Int?) in
            guard mode == .replace else {
                return (urls.indices.map { queue.append(urls[$0], startsWhenOver: $0 == 0 && mode == .appendPlay) }[0], nil)
            }
            return (queue.replace(with: urls) ?? 0, queue.turn)
        }
        if let turn { stop(turn) }
        wake()
        return (firstID, urls.count)
    }

    func apply(_ request: PlaylistRequest) -> Bool {
        let (done, stopsPlaying, turn) = queue.withLock { queue -> (Bool, Bool, Int) in
            switch request {
            case .next(let force):
                let done = queue.next(force: force)
                return (done, done, queue.turn)
            case .previous(let force):
                let done = queue.previous(force: force)
                return (done, done, queue.turn)
            case .play(let index):
                queue.play(at: index)
                return (true, true, queue.turn)
            case .remove(let index):
                guard let index = index ?? queue.playing else { return (false, false, queue.turn) }
                let (removed, stopsPlaying) = queue.remove(at: index)
                return (removed, stopsPlaying, queue.turn)
            case .move(let from, let to):
                return (queue.move(from: from, to: to), false, queue.turn)
            case .clear:
                queue.clear()
                return (true, false, queue.turn)
            }
        }
        if stopsPlaying { stop(turn) }
        wake()
        return done
    }

    var view: PlaylistView {
        queue.withLock { PlaylistView(entries: $0.entries.map { PlaylistView.Entry(url: $0.url, id: $0.id) }, playing: $0.playing) }
    }
}

/// How the files of a playlist fared, for the exit status: mpv's 2 when none played, 3 when
/// some did not. One file that fails is an error of its own (exit 1).
struct PlaylistResults {
    private var played: Set<Int> = []
    private var failed: Set<Int> = []

    mutating func note(_ id: Int, failed: Bool) {
        if failed { self.failed.insert(id) } else { played.insert(id) }
    }

    var isMany: Bool { played.union(failed).count > 1 }

    var exitCode: Int32? {
        guard isMany, !failed.isEmpty else { return nil }
        return played.isEmpty ? 2 : 3
    }
}

/// mpv's --loop-playlist: N, inf (or yes, or force), no.
struct PlaylistPasses: ExpressibleByArgument {
    let passes: PlaylistQueue.Passes

    init?(argument: String) {
        switch argument {
        case "inf", "yes", "force": passes = .forever
        case "no": passes = .count(1)
        default:
            guard let count = Int(argument), count >= 1 else { return nil }
            passes = .count(count)
        }
    }
}
