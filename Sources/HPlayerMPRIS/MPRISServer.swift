import FoundationEssentials
import Glibc
import HPlayerIPC
import HPlayerKit
import Logging

/// MPRIS on the session bus: the desktop's media keys and controls drive the player through the
/// CommandRunner, as the IPC and input.conf do.
///
/// One thread owns the connection: it answers method calls, and every `pollInterval` reads the
/// player's state and signals what changed (PropertiesChanged, and Seeked for a jump).
public final class MPRISServer: Sendable {
    static let objectPath = "/org/mpris/MediaPlayer2"
    static let rootInterface = "org.mpris.MediaPlayer2"
    static let playerInterface = "org.mpris.MediaPlayer2.Player"
    static let propertiesInterface = "org.freedesktop.DBus.Properties"
    static let log = Logger(label: "hplayer.mpris")

    private let isClosing: Locked<Bool>
    private let thread: JoinableThread

    /// Serves MPRIS as `org.mpris.MediaPlayer2.hplayer.instance<PID>`; nil, after one debug
    /// line, when there is no session bus to serve it on.
    public static func start(runner: CommandRunner, environment: [String: String] = ProcessInfo.processInfo.environment)
        -> MPRISServer? {
        let name = "org.mpris.MediaPlayer2.hplayer.instance\(getpid())"
        do {
            let connection = try BusConnection(requesting: name, environment: environment)
            return MPRISServer(connection: connection, runner: runner, environment: environment)
        } catch {
            log.debug("no MPRIS: \(error.reason)")
            return nil
        }
    }

    private init(connection: BusConnection, runner: CommandRunner, environment: [String: String]) {
        let isClosing = Locked(false)
        self.isClosing = isClosing
        let workingDirectory = FileManager.default.currentDirectoryPath
        thread = JoinableThread(name: "mpris") {
            let responder = MPRISResponder(connection: connection, runner: runner, workingDirectory: workingDirectory,
                                           cover: CoverFile(environment: environment))
            while !isClosing.withLock({ $0 }) {
                guard connection.readWrite(timeout: 50) else {
                    Self.log.debug("the session bus has gone: no MPRIS from now on")
                    break
                }
                while let message = connection.nextMessage() { responder.respond(to: message) }
                responder.pollIfDue()
            }
            responder.finish()
            connection.close()
        }
    }

    deinit { close() }

    /// Stops serving: the name is released, the thread joined.
    public func close() {
        isClosing.withLock { $0 = true }
        thread.join()
    }
}

/// The server thread's side: method calls answered, the state polled and its changes signalled.
private final class MPRISResponder {
    private let connection: BusConnection
    private let runner: CommandRunner
    private let workingDirectory: String
    private var state = MPRISState()
    private var polledAt = MonotonicClock.now()
    /// A seek this server ran: Seeked is due at the next poll, however far it went.
    private var ranSeek = false
    /// The picture file found beside the track (ArtFile), else its embedded cover written out
    /// (CoverFile): looked for once per track.
    private var art: (url: String, artURL: String?)?
    private let cover: CoverFile
    private static let pollInterval = 0.15

    init(connection: BusConnection, runner: CommandRunner, workingDirectory: String, cover: CoverFile) {
        self.connection = connection
        self.runner = runner
        self.workingDirectory = workingDirectory
        self.cover = cover
        state = readState()
    }

    func respond(to message: BusMessage) {
        guard message.isMethodCall else { return }
        let reply = answer(message)
        if message.wantsReply, let reply { connection.send(reply) }
    }

    /// The server stops: the cover written for the last track goes.
    func finish() {
        cover.remove()
    }

    func pollIfDue() {
        let now = MonotonicClock.now()
        guard now - polledAt >= Self.pollInterval else { return }
        let new = readState()
        let changed = MPRISMapping.changedProperties(from: state, to: new)
        if !changed.isEmpty {
            emit(BusMessage.signal(path: MPRISServer.objectPath, interface: MPRISServer.propertiesInterface, name: "PropertiesChanged",
                                   [.string(MPRISServer.playerInterface), .dictionary(changed), .strings([])]))
        }
        if (ranSeek && new.hasTrack) || MPRISMapping.isSeek(from: state, to: new, elapsed: now - polledAt) {
            emit(BusMessage.signal(path: MPRISServer.objectPath, interface: MPRISServer.playerInterface, name: "Seeked",
                                   [.int64(new.position)]))
        }
        ranSeek = false
        state = new
        polledAt = now
    }

    private func emit(_ signal: BusMessage?) {
        if let signal { connection.send(signal) }
    }

    /// The player's state now, from one snapshot of its properties.
    private func readState() -> MPRISState {
        var properties: [String: JSONValue] = [:]
        if let snapshot = runner.snapshot() {
            for name in MPRISMapping.propertyNames {
                if case .success(let value) = PlayerProperties.value(of: name, in: snapshot) { properties[name] = value }
            }
        }
        var state = MPRISMapping.state(from: properties, workingDirectory: workingDirectory)
        if let url = state.url {
            if art?.url != url {
                cover.remove()
                art = (url, ArtFile.url(besideTrack: url) { access($0, R_OK) == 0 } ?? cover.url(forTrackAt: FileURL.path(ofURI: url)))
            }
            state.artURL = art?.artURL
        }
        return state
    }

    private func answer(_ message: BusMessage) -> BusMessage? {
        guard message.path == MPRISServer.objectPath else {
            return message.errorReply("org.freedesktop.DBus.Error.UnknownObject", "no object at \(message.path ?? "")")
        }
        guard let member = message.member, let arguments = message.arguments else {
            return message.errorReply("org.freedesktop.DBus.Error.InvalidArgs", "arguments of a type MPRIS does not use")
        }
        // A call may leave its interface out: the member names it then.
        func call(_ interface: String, _ name: String) -> Bool {
            member == name && (message.interface == nil || message.interface == interface)
        }
        if call("org.freedesktop.DBus.Introspectable", "Introspect") {
            return message.reply([.string(MPRISIntrospection.xml)])
        }
        if message.interface == MPRISServer.propertiesInterface {
            return answerProperties(message, member: member, arguments: arguments)
        }
        if call(MPRISServer.rootInterface, "Raise") {
            // CanRaise is false: nothing to do, as the specification allows.
            return message.reply()
        }
        if call(MPRISServer.rootInterface, "Quit") { return run(.quit, replyingTo: message) }
        guard message.interface == nil || message.interface == MPRISServer.playerInterface,
              let action = Self.action(member, arguments) else {
            return message.errorReply("org.freedesktop.DBus.Error.UnknownMethod", "no method \(member) with these arguments")
        }
        return run(action, replyingTo: message)
    }

    /// A Player method as an action; nil for a member that is not one, or wrong arguments.
    private static func action(_ member: String, _ arguments: [DBusValue]) -> MPRISAction? {
        let plain: [String: MPRISAction] = ["PlayPause": .playPause, "Play": .play, "Pause": .pause, "Stop": .stop,
                                            "Next": .next, "Previous": .previous]
        if let action = plain[member] { return arguments.isEmpty ? action : nil }
        switch member {
        case "Seek":
            guard arguments.count == 1, case .int64(let offset) = arguments[0] else { return nil }
            return .seek(offset: offset)
        case "SetPosition":
            guard arguments.count == 2, case .objectPath(let trackID) = arguments[0], case .int64(let position) = arguments[1] else {
                return nil
            }
            return .setPosition(trackID: trackID, position: position)
        case "OpenUri":
            guard arguments.count == 1, case .string(let uri) = arguments[0] else { return nil }
            return .openURI(uri)
        default:
            return nil
        }
    }

    private func run(_ action: MPRISAction, replyingTo message: BusMessage) -> BusMessage? {
        // The state now, not the last poll's: a trackid or a position may have changed since.
        let commands = MPRISMapping.commands(for: action, in: readState())
        for command in commands {
            switch (command, runner.run(command)) {
            case (.seek, .success): ranSeek = true
            case (_, .success): break
            case (_, .failure(let error)): MPRISServer.log.debug("MPRIS \(action): \(command): \(error.rawValue)")
            }
        }
        return message.reply()
    }

    private func answerProperties(_ message: BusMessage, member: String, arguments: [DBusValue]) -> BusMessage? {
        func properties(_ interface: String) -> [String: DBusValue]? {
            switch interface {
            case MPRISServer.rootInterface: return MPRISMapping.rootProperties
            case MPRISServer.playerInterface: return MPRISMapping.playerProperties(readState())
            default: return nil
            }
        }
        let texts = arguments.prefix(2).compactMap { if case .string(let text) = $0 { text } else { nil } }
        switch member {
        case "Get" where arguments.count == 2 && texts.count == 2:
            let (interface, name) = (texts[0], texts[1])
            guard let all = properties(interface) else { return unknownInterface(message, interface) }
            guard let value = all[name] else {
                return message.errorReply("org.freedesktop.DBus.Error.UnknownProperty", "no property \(name) in \(interface)")
            }
            return message.reply([.variant(value)])
        case "GetAll" where arguments.count == 1 && texts.count == 1:
            guard let all = properties(texts[0]) else { return unknownInterface(message, texts[0]) }
            return message.reply([.dictionary(all)])
        case "Set" where arguments.count == 3 && texts.count == 2:
            let (interface, name, value) = (texts[0], texts[1], arguments[2])
            if interface == MPRISServer.rootInterface, MPRISMapping.rootProperties[name] != nil {
                return message.errorReply("org.freedesktop.DBus.Error.PropertyReadOnly", "\(name) is read-only")
            }
            guard interface == MPRISServer.playerInterface else { return unknownInterface(message, interface) }
            switch MPRISMapping.action(setting: name, to: value) {
            case .success(let action): return run(action, replyingTo: message)
            case .failure(.readOnly):
                return message.errorReply("org.freedesktop.DBus.Error.PropertyReadOnly", "\(name) is read-only")
            case .failure(.invalidValue):
                return message.errorReply("org.freedesktop.DBus.Error.InvalidArgs", "\(name) cannot be \(value)")
            case .failure(.unknownProperty):
                return message.errorReply("org.freedesktop.DBus.Error.UnknownProperty", "no property \(name) in \(interface)")
            }
        default:
            return message.errorReply("org.freedesktop.DBus.Error.UnknownMethod", "no method \(member) with these arguments")
        }
    }

    private func unknownInterface(_ message: BusMessage, _ interface: String) -> BusMessage? {
        message.errorReply("org.freedesktop.DBus.Error.UnknownInterface", "no interface \(interface)")
    }
}
