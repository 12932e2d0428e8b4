import Glibc
import HPlayerKit

/// mpv's JSON IPC over a player: carries out the requests that come through an `IPCServer` on
/// the file playing now, and tells every client what happens to it.
///
/// The program owns the playlist: it calls `begin` and `end` around each file. Commands go to
/// its `CommandRunner`; observing properties is this one's, per client.
public final class IPCRemote: @unchecked Sendable {
    /// Observers belong to the client that asked, as mpv's: ids are the client's own, and a
    /// client's observers go with it.
    private struct ObserverKey: Hashable {
        var client: IPCClientID
        var id: Int
    }

    private struct Observer {
        var name: String
        /// What the client was told last; nil before the first report.
        var reported: Result<JSONValue, IPCError>?
    }

    private struct State {
        var eventTask: Task<Void, Never>?
        var observers: [ObserverKey: Observer] = [:]
        var isClosed = false
    }

    private var server: IPCServer?
    private let state = Locked(State())
    private let wake = ConditionLock()
    private var observationThread: JoinableThread?
    private let runner: CommandRunner
    /// How often observed properties are compared with what was reported.
    private static let observationInterval = 0.05

    public init(path: String, runner: CommandRunner) throws(IPCServerError) {
        self.runner = runner
        server = try IPCServer(path: path, handler: { [weak self] client, line in self?.handle(line, from: client) ?? [] },
                               disconnected: { [weak self] client in self?.forget(client: client) })
        observationThread = JoinableThread(name: "ipc-observe") { [self] in observe() }
    }

    /// Stops the server and the observation; what plays is left alone.
    public func close() {
        let task = state.withLock { state -> Task<Void, Never>? in
            state.isClosed = true
            return state.eventTask
        }
        task?.cancel()
        wake.withLock { wake.broadcast() }
        observationThread?.join()
        server?.close()
    }

    /// A file starts: `start-file`, then its player's events as mpv names them.
    public func begin(controller: PlayerControlling, entryID: Int) {
        server?.broadcast(IPCMessage.event("start-file", ["playlist_entry_id": .number(Double(entryID))]))
        let events = controller.player.events()
        let server = self.server
        let task = Task {
            for await event in events {
                switch event {
                case .prepared: server?.broadcast(IPCMessage.event("file-loaded"))
                case .playbackStateChanged(.seeking): server?.broadcast(IPCMessage.event("seek"))
                case .started, .seekDone, .liveJump: server?.broadcast(IPCMessage.event("playback-restart"))
                default: continue
                }
            }
        }
        state.withLock { $0.eventTask = task }
    }

    /// The file ended: `reason` is mpv's (eof, stop, quit, error); `error` says why for an error.
    /// Call it once the player is closed: its last events go out before `end-file`.
    public func end(entryID: Int, reason: String, error: String? = nil) async {
        let task = state.withLock { state -> Task<Void, Never>? in
            defer { state.eventTask = nil }
            return state.eventTask
        }
        await task?.value
        var fields: [String: JSONValue] = ["reason": .string(reason), "playlist_entry_id": .number(Double(entryID))]
        if let error { fields["file_error"] = .string(error) }
        server?.broadcast(IPCMessage.event("end-file", fields))
    }

    // MARK: Requests (the server's thread)

    private func handle(_ line: ArraySlice<UInt8>, from client: IPCClientID) -> [JSONValue] {
        // A line that is not a JSON object is commands as text, as input.conf writes them: run,
        // with no reply (as mpv's).
        guard line.first(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) == UInt8(ascii: "{") else {
            for command in IPCCommandText.commands(String(decoding: line, as: UTF8.self)) ?? [] {
                _ = execute(command, from: client)
            }
            return []
        }
        switch IPCRequest.parse(line) {
        case .failure(let failure):
            return failure.requestID.map { [IPCMessage.reply($0, error: failure.error)] } ?? []
        case .success(let request):
            switch execute(request.command, from: client) {
            case .success(let data):
                var answers = [IPCMessage.reply(request.requestID, data: data)]
                // As mpv: a new observer is told the value at once, after the reply.
                if case .observeProperty(let id, _) = request.command,
                   let change = propertyChange(for: ObserverKey(client: client, id: id)) { answers.append(change) }
                return answers
            case .failure(let error):
                return [IPCMessage.reply(request.requestID, error: error)]
            }
        }
    }

    /// The reply's data: none (`.none`), null, or a value.
    private func execute(_ command: IPCCommand, from client: IPCClientID) -> Result<JSONValue??, IPCError> {
        switch command {
        case .observeProperty(let id, let name):
            state.withLock { $0.observers[ObserverKey(client: client, id: id)] = Observer(name: name) }
            return .success(.none)
        case .unobserveProperty(let id):
            let removed = state.withLock { $0.observers.removeValue(forKey: ObserverKey(client: client, id: id)) }
            return removed == nil ? .failure(.invalidParameter) : .success(.none)
        default:
            return runner.run(command)
        }
    }

    // MARK: Observation (its own thread)

    /// Sends `property-change` for each observed property whose value differs from the one last
    /// reported, comparing every `observationInterval`.
    private func observe() {
        while true {
            let (keys, closed) = state.withLock { (Array($0.observers.keys), $0.isClosed) }
            if closed { return }
            for key in keys {
                if let change = propertyChange(for: key) { server?.send(change, to: key.client) }
            }
            wake.withLock { _ = wake.wait(until: MonotonicClock.now() + Self.observationInterval) }
        }
    }

    /// A client is gone: its observers with it.
    private func forget(client: IPCClientID) {
        state.withLock { $0.observers = $0.observers.filter { $0.key.client != client } }
    }

    /// The `property-change` event for an observer when its property's value differs from what
    /// it was told last (and records it as told); nil when unchanged. An unavailable value comes
    /// without data, as mpv sends it.
    private func propertyChange(for key: ObserverKey) -> JSONValue? {
        let observer = state.withLock { $0.observers[key] }
        guard let observer else { return nil }
        // Read as get_property reads it, so what the runner answers with no file (idle-active,
        // the playlist) is observed too.
        let value: Result<JSONValue, IPCError> = switch runner.run(.getProperty(observer.name)) {
        case .success(.some(.some(let data))): .success(data)
        case .success: .failure(.propertyUnavailable)
        case .failure(let error): .failure(error)
        }
        let isNew = state.withLock { state -> Bool in
            guard state.observers[key] != nil, state.observers[key]?.reported != value else { return false }
            state.observers[key]?.reported = value
            return true
        }
        guard isNew else { return nil }
        var fields: [String: JSONValue] = ["id": .number(Double(key.id)), "name": .string(observer.name)]
        if case .success(let data) = value { fields["data"] = data }
        return IPCMessage.event("property-change", fields)
    }
}

/// The front end's playlist, as the IPC drives it: a player plays one file, the front end the list.
public protocol IPCPlaylist: AnyObject, Sendable {
    /// mpv's loadfile: the new entry's id.
    func load(_ url: String, mode: IPCCommand.LoadMode) -> Int
    /// mpv's loadlist: the first new entry's id and how many came; nil when the file cannot be
    /// read as a playlist, or names nothing.
    func loadList(_ path: String, mode: IPCCommand.LoadMode) -> (firstID: Int, count: Int)?
    /// false when it cannot be carried out (an index of no entry, an end of the list).
    func apply(_ request: PlaylistRequest) -> Bool
    var view: PlaylistView { get }
}
