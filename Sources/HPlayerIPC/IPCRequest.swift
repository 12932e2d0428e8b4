/// One request of mpv's JSON IPC: `{"command": [NAME, ARG...], "request_id": ID}`, a line each.
public struct IPCRequest: Equatable, Sendable {
    /// Echoed in the reply; 0 when the request has none, as mpv does.
    public var requestID: JSONValue
    public var command: IPCCommand

    /// Parses one line. A line that is not a request gives the reply to send instead: mpv answers
    /// bad JSON and bad commands with "invalid parameter", and ignores JSON that is not an object.
    public static func parse(_ line: some Collection<UInt8>) -> Result<IPCRequest, IPCFailure> {
        guard let message = JSONValue(parsing: line) else { return .failure(IPCFailure(requestID: .number(0), error: .invalidParameter)) }
        guard case .object = message else { return .failure(IPCFailure(requestID: nil, error: .invalidParameter)) }
        let requestID = message["request_id"] ?? .number(0)
        guard let words = message["command"]?.array, let command = IPCCommand(words) else {
            return .failure(IPCFailure(requestID: requestID, error: .invalidParameter))
        }
        return .success(IPCRequest(requestID: requestID, command: command))
    }
}

/// A request that cannot be carried out. `requestID` nil: nothing is sent back.
public struct IPCFailure: Error, Equatable, Sendable {
    public var requestID: JSONValue?
    public var error: IPCError

    public init(requestID: JSONValue?, error: IPCError) {
        self.requestID = requestID
        self.error = error
    }
}

/// mpv's error strings, word for word: clients compare them.
public enum IPCError: String, Error, Sendable {
    case invalidParameter = "invalid parameter"
    case propertyNotFound = "property not found"
    case propertyUnavailable = "property unavailable"
    case unsupportedFormat = "unsupported format for accessing property"
    case accessDenied = "error accessing property"
    case commandFailed = "error running command"
}

/// The commands HPlayer understands, in mpv's words.
public enum IPCCommand: Equatable, Sendable {
    case loadFile(url: String, mode: LoadMode)
    case seek(target: Double, reference: SeekReference, precision: SeekPrecision?)
    case getProperty(String)
    case setProperty(String, JSONValue)
    case observeProperty(id: Int, name: String)
    case unobserveProperty(id: Int)
    /// `frame-step` and `frame-back-step`: pause and show the next frame, or the one before.
    case frameStep(forward: Bool)
    case quit(code: Int32)
    /// Quit, remembering the position for a later resume.
    case quitWatchLater(code: Int32)
    /// Write the frame on screen to a PNG, with the subtitles shown on it or without (mpv's
    /// `video` flag).
    case screenshot(withSubtitles: Bool)
    /// `loadlist`: the entries of a playlist file, in place of the playlist or after it.
    case loadList(path: String, mode: LoadMode)
    case playlist(PlaylistRequest)
    /// mpv's `set`, `add`, `multiply` and `cycle`: set_property as a command, and steps from the
    /// value the property has.
    case set(String, JSONValue)
    case add(String, Double)
    case multiply(String, Double)
    case cycle(String, up: Bool)

    public enum LoadMode: String, Sendable {
        /// Stop what plays and play this.
        case replace
        /// Add to the end of the playlist.
        case append
        /// Add to the end of the playlist, and play it if nothing plays.
        case appendPlay = "append-play"
    }

    public enum SeekReference: String, Sendable {
        case relative, absolute
        case absolutePercent = "absolute-percent"
        case relativePercent = "relative-percent"
    }

    public enum SeekPrecision: String, Sendable {
        case exact
        case keyframes
    }

    /// `words` is the command array; nil when the name is unknown or an argument is missing or
    /// of the wrong kind. Numbers may come as strings, as mpv parses arguments from text too.
    public init?(_ words: [JSONValue]) {
        guard let name = words.first?.string else { return nil }
        let arguments = Array(words.dropFirst())
        func number(_ index: Int) -> Double? {
            guard index < arguments.count else { return nil }
            return arguments[index].number ?? arguments[index].string.flatMap(Double.init)
        }
        func text(_ index: Int) -> String? { index < arguments.count ? arguments[index].string : nil }

        switch name {
        case "loadfile":
            guard let url = text(0) else { return nil }
            guard let mode = arguments.count > 1 ? text(1).flatMap(LoadMode.init) : .replace else { return nil }
            self = .loadFile(url: url, mode: mode)
        case "seek":
            guard let target = number(0), target.isFinite else { return nil }
            var reference = SeekReference.relative
            var precision: SeekPrecision?
            // Flags combine with '+' ("absolute+exact"); a third argument is the older precision.
            let flags = (text(1).map { $0.split(separator: "+").map(String.init) } ?? [])
                + (text(2).map { [$0] } ?? [])
            for flag in flags where flag != "default-precise" && flag != "-" {
                if let value = SeekReference(rawValue: flag) {
                    reference = value
                } else if let value = SeekPrecision(rawValue: flag) {
                    precision = value
                } else {
                    return nil
                }
            }
            if arguments.count > 1, text(1) == nil { return nil }
            self = .seek(target: target, reference: reference, precision: precision)
        case "get_property":
            guard arguments.count == 1, let property = text(0) else { return nil }
            self = .getProperty(property)
        case "set_property":
            guard arguments.count == 2, let property = text(0) else { return nil }
            self = .setProperty(property, arguments[1])
        case "observe_property":
            guard arguments.count == 2, let id = number(0).flatMap(Int.init(exactly:)), let property = text(1) else { return nil }
            self = .observeProperty(id: id, name: property)
        case "unobserve_property":
            guard arguments.count == 1, let id = number(0).flatMap(Int.init(exactly:)) else { return nil }
            self = .unobserveProperty(id: id)
        case "frame-step", "frame-back-step":
            guard arguments.isEmpty else { return nil }
            self = .frameStep(forward: name == "frame-step")
        case "quit", "quit-watch-later":
            guard let code = arguments.isEmpty ? 0 : number(0), let exitCode = Int32(exactly: code) else { return nil }
            self = name == "quit" ? .quit(code: exitCode) : .quitWatchLater(code: exitCode)
        case "screenshot":
            // mpv's flags: subtitles (the default) and window draw the subtitles on the frame,
            // video leaves them out; each-frame is taken as one frame.
            guard arguments.count <= 1 else { return nil }
            let flags = arguments.isEmpty ? [] : (text(0) ?? "").split(separator: "+")
            self = .screenshot(withSubtitles: !flags.contains("video"))
        case "loadlist":
            guard let path = text(0), arguments.count <= 2 else { return nil }
            guard let mode = arguments.count > 1 ? text(1).flatMap(LoadMode.init) : .replace else { return nil }
            self = .loadList(path: path, mode: mode)
        case "playlist-next", "playlist-prev":
            guard arguments.count <= 1 else { return nil }
            let force: Bool
            switch text(0) {
            case nil where arguments.isEmpty, "weak": force = false
            case "force": force = true
            default: return nil
            }
            self = .playlist(name == "playlist-next" ? .next(force: force) : .previous(force: force))
        case "playlist-clear":
            guard arguments.isEmpty else { return nil }
            self = .playlist(.clear)
        case "playlist-remove":
            guard arguments.count == 1 else { return nil }
            if text(0) == "current" {
                self = .playlist(.remove(index: nil))
            } else {
                guard let index = number(0).flatMap(Int.init(exactly:)) else { return nil }
                self = .playlist(.remove(index: index))
            }
        case "playlist-move":
            guard arguments.count == 2, let from = number(0).flatMap(Int.init(exactly:)),
                  let to = number(1).flatMap(Int.init(exactly:)) else { return nil }
            self = .playlist(.move(from: from, to: to))
        case "set":
            guard arguments.count == 2, let property = text(0) else { return nil }
            self = .set(property, arguments[1])
        case "add", "multiply":
            guard let property = text(0), arguments.count <= 2 else { return nil }
            guard let amount = arguments.count == 2 ? number(1) : (name == "add" ? 1 : nil), amount.isFinite else { return nil }
            self = name == "add" ? .add(property, amount) : .multiply(property, amount)
        case "cycle":
            guard let property = text(0), arguments.count <= 2 else { return nil }
            switch arguments.count == 2 ? text(1) : "up" {
            case "up": self = .cycle(property, up: true)
            case "down": self = .cycle(property, up: false)
            default: return nil
            }
        default:
            return nil
        }
    }
}

/// What a playlist command asks of the playlist (mpv's playlist-next, -prev, -clear, -remove,
/// -move, and setting playlist-pos).
public enum PlaylistRequest: Equatable, Sendable {
    /// `force`: at the end, stop playback rather than do nothing.
    case next(force: Bool)
    case previous(force: Bool)
    /// Every entry but the one playing.
    case clear
    /// nil: the entry playing.
    case remove(index: Int?)
    case move(from: Int, to: Int)
    /// Setting playlist-pos: play this entry; an index of none stops playback.
    case play(index: Int)
}

/// The lines the server sends.
public enum IPCMessage {
    public static func reply(_ requestID: JSONValue, data: JSONValue?? = nil, error: IPCError? = nil) -> JSONValue {
        var members: [String: JSONValue] = ["request_id": requestID, "error": .string(error?.rawValue ?? "success")]
        if case .some(let value) = data { members["data"] = value ?? .null }
        return .object(members)
    }

    public static func event(_ name: String, _ fields: [String: JSONValue] = [:]) -> JSONValue {
        .object(fields.merging(["event": .string(name)]) { _, event in event })
    }
}
