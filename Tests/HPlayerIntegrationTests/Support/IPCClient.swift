import Foundation
import Glibc
import HPlayerIPC
import HPlayerKit
import Testing

/// A client of mpv's JSON IPC, the same for hplayer and mpv: sends requests, reads the lines back,
/// and keeps the events it reads on the way.
final class IPCClient {
    private let socketFD: Int32
    private var pending: [UInt8] = []
    private var nextID = 1
    var events: [JSONValue] = []

    /// Connects to `path`, waiting up to `timeout` seconds for the player to create it.
    init(path: String, timeout: Double = 10) throws {
        let deadline = MonotonicClock.now() + timeout
        while true {
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            if connected == 0 {
                socketFD = descriptor
                return
            }
            close(descriptor)
            guard MonotonicClock.now() < deadline else { throw FixtureError(description: "no IPC socket at \(path)") }
            MonotonicClock.sleep(until: MonotonicClock.now() + 0.05)
        }
    }

    deinit { close(socketFD) }

    func send(raw text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(socketFD, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Sends a command and returns its reply (nil if none came within `timeout` seconds).
    func request(_ words: [JSONValue], timeout: Double = 5) -> JSONValue? {
        let id = JSONValue.number(Double(nextID))
        nextID += 1
        send(raw: JSONValue.object(["command": .array(words), "request_id": id]).line)
        return readUntil(timeout: timeout) { $0["request_id"] == id }
    }

    /// Reads lines until one satisfies `matches`, which is returned (events before it are kept).
    func readUntil(timeout: Double, _ matches: (JSONValue) -> Bool) -> JSONValue? {
        let deadline = MonotonicClock.now() + timeout
        while true {
            while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = pending[..<end]
                pending.removeSubrange(...end)
                guard let message = JSONValue(parsing: line) else { continue }
                if message["event"] != nil { events.append(message) }
                if matches(message) { return message }
            }
            let left = deadline - MonotonicClock.now()
            var polled = pollfd(fd: socketFD, events: Int16(POLLIN), revents: 0)
            guard left > 0, poll(&polled, 1, Int32(left * 1000) + 1) > 0 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let count = read(socketFD, &buffer, buffer.count)
            guard count > 0 else { return nil }
            pending += buffer[..<count]
        }
    }

    /// Waits until the file is loaded (its duration can be read): both players listen before that.
    func waitUntilLoaded(timeout: Double = 10) -> Bool {
        let deadline = MonotonicClock.now() + timeout
        while MonotonicClock.now() < deadline {
            if request([.string("get_property"), .string("duration")])?["error"] == .string("success") { return true }
            MonotonicClock.sleep(until: MonotonicClock.now() + 0.05)
        }
        return false
    }

    /// Sends `words` (a `screenshot` command) and returns the picture that appears in
    /// `folder`, waiting up to 20 s for it.
    func screenshot(_ words: [JSONValue] = [.string("screenshot")], into folder: String) throws -> RawPicture {
        let before = Set((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
        #expect(request(words)?["error"] == .string("success"))
        let deadline = MonotonicClock.now() + 20
        while MonotonicClock.now() < deadline {
            let new = Set((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).subtracting(before)
            // Written under a temporary name, then renamed: a .png is whole.
            if let name = new.first(where: { $0.hasSuffix(".png") }) { return try Playback.Snapshots().pixels(ofPNG: folder + "/" + name) }
            MonotonicClock.sleep(until: MonotonicClock.now() + 0.05)
        }
        throw FixtureError(description: "no screenshot in \(folder)")
    }

    /// Waits until the position has moved past the start: playback has started, and its
    /// playback-restart, if it was seen, came before (so a later one is a seek's).
    func waitUntilPlaying(timeout: Double = 20) -> Bool {
        let deadline = MonotonicClock.now() + timeout
        while MonotonicClock.now() < deadline {
            if let position = request([.string("get_property"), .string("time-pos")])?["data"]?.number, position > 0.05 { return true }
            MonotonicClock.sleep(until: MonotonicClock.now() + 0.02)
        }
        return false
    }

    /// Waits for an event named `name` (one already read counts); nil if none came in time.
    func event(_ name: String, timeout: Double = 10) -> JSONValue? {
        if let index = events.firstIndex(where: { $0["event"] == .string(name) }) { return events.remove(at: index) }
        guard let found = readUntil(timeout: timeout, { $0["event"] == .string(name) }) else { return nil }
        events.removeAll { $0 == found }
        return found
    }
}

extension JSONValue {
    /// The form of a message, not its values: each key with the kind of its value; the error
    /// string, event name and end-file reason word for word, as clients compare those.
    var shape: String {
        switch self {
        case .null: return "null"
        case .bool: return "bool"
        case .number: return "number"
        case .string: return "string"
        case .array(let items): return "[" + items.map(\.shape).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.keys.sorted().map { key in
                let value = members[key]!
                let literal = ["error", "event", "reason", "name"].contains(key)
                return key + ":" + (literal ? value.line.trimmingCharacters(in: .newlines) : value.shape)
            }.joined(separator: ",") + "}"
        }
    }
}
