import Glibc
import HPlayerKit

/// A Unix socket that speaks mpv's JSON IPC framing: one JSON message per line, each way.
///
/// One thread polls the listening socket and every client. Each line a client sends is handed to
/// `handler` on that thread, and its answers go back to that client. `broadcast` and `send` may be
/// called from any thread; they never block: a client that does not read is dropped, as is one that
/// sends a line longer than `maximumLineLength`.
public final class IPCServer: @unchecked Sendable {
    /// What to send back for a line: its reply first, then anything that follows from it.
    public typealias Handler = @Sendable (_ client: IPCClientID, _ line: ArraySlice<UInt8>) -> [JSONValue]
    /// A client is gone; a message sent to it later goes nowhere.
    public typealias Disconnected = @Sendable (_ client: IPCClientID) -> Void

    public let path: String
    private let handler: Handler
    private let disconnected: Disconnected?
    private let listener: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// A connected client: its socket, and its bytes after its last full line.
    private struct Connection {
        var descriptor: Int32
        var pending: [UInt8] = []
    }
    /// The clients by an id never given twice, so that a message for a client that has gone
    /// cannot reach a new one whose socket got the same descriptor number. Only the poll thread
    /// closes a descriptor, so none is reused while it is still polled; other threads shut a
    /// failing client down instead.
    private let clients = Locked<(lastID: UInt64, connections: [IPCClientID: Connection])>((0, [:]))
    private let isClosing = Locked(false)
    private var thread: JoinableThread?
    private static let maximumLineLength = 1 << 20

    /// Listens at `path`. A socket left there by an earlier run is replaced; any other file is
    /// left alone and is an error.
    public init(path: String, handler: @escaping Handler, disconnected: Disconnected? = nil) throws(IPCServerError) {
        self.path = path
        self.handler = handler
        self.disconnected = disconnected
        var status = stat()
        if lstat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFSOCK else { throw IPCServerError(path: path, reason: "exists and is not a socket") }
            unlink(path)
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw IPCServerError(path: path, reason: "a socket path must be 1 to 107 bytes")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let socketFD = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socketFD >= 0 else { throw IPCServerError(path: path, reason: String(cString: strerror(errno))) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(socketFD, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(socketFD)
            throw IPCServerError(path: path, reason: reason)
        }
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else {
            Glibc.close(socketFD)
            unlink(path)
            throw IPCServerError(path: path, reason: String(cString: strerror(errno)))
        }
        for descriptor in pipeFDs { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        listener = socketFD
        (wakeRead, wakeWrite) = (pipeFDs[0], pipeFDs[1])
        thread = JoinableThread(name: "ipc") { [self] in run() }
    }

    deinit { close() }

    /// Sends `message` to every client connected.
    public func broadcast(_ message: JSONValue) {
        let line = Array(message.line.utf8)
        clients.withLock { clients in
            for connection in clients.connections.values where !Self.write(line, to: connection.descriptor) {
                shutdown(connection.descriptor, Int32(SHUT_RDWR))
            }
        }
    }

    /// Sends `message` to one client, if it is still connected.
    public func send(_ message: JSONValue, to client: IPCClientID) {
        let line = Array(message.line.utf8)
        clients.withLock { clients in
            if let descriptor = clients.connections[client]?.descriptor, !Self.write(line, to: descriptor) {
                shutdown(descriptor, Int32(SHUT_RDWR))
            }
        }
    }

    /// Stops listening, disconnects every client, removes the socket file and joins the thread.
    public func close() {
        let wasClosing = isClosing.withLock { closing in
            defer { closing = true }
            return closing
        }
        guard !wasClosing else { return }
        var byte: UInt8 = 1
        _ = Glibc.write(wakeWrite, &byte, 1)
        thread?.join()
        thread = nil
        clients.withLock { clients in
            for client in clients.connections.keys { Self.drop(client, from: &clients.connections) }
        }
        for descriptor in [listener, wakeRead, wakeWrite] { Glibc.close(descriptor) }
        unlink(path)
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !isClosing.withLock({ $0 }) {
            var polled = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0), pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            let polledClients = clients.withLock { Array($0.connections) }
            polled += polledClients.map { pollfd(fd: $0.value.descriptor, events: Int16(POLLIN), revents: 0) }
            guard poll(&polled, nfds_t(polled.count), -1) >= 0 || errno == EINTR else { return }
            if polled[0].revents != 0 { return }
            if polled[1].revents & Int16(POLLIN) != 0 {
                let client = accept(listener, nil, nil)
                if client >= 0 {
                    _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                    clients.withLock { clients in
                        clients.lastID += 1
                        clients.connections[IPCClientID(value: clients.lastID)] = Connection(descriptor: client)
                    }
                }
            }
            for (entry, client) in zip(polled.dropFirst(2), polledClients.map(\.key)) where entry.revents != 0 {
                let count = read(entry.fd, &buffer, buffer.count)
                if count > 0 {
                    receive(buffer[..<count], from: client)
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    // Gone, perhaps in the middle of a line: what it sent of that line is dropped.
                    disconnect(client)
                }
            }
        }
    }

    private func receive(_ bytes: ArraySlice<UInt8>, from client: IPCClientID) {
        let lines = clients.withLock { clients -> [ArraySlice<UInt8>]? in
            guard var pending = clients.connections[client]?.pending else { return nil }
            pending += bytes
            var lines: [ArraySlice<UInt8>] = []
            var start = pending.startIndex
            while let end = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(pending[start..<end])
                start = end + 1
            }
            pending.removeSubrange(..<start)
            if pending.count > Self.maximumLineLength { return nil }  // dropped below
            clients.connections[client]?.pending = pending
            return lines
        }
        guard let lines else {
            disconnect(client)
            return
        }
        for line in lines where !line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") }) {
            for answer in handler(client, line) { send(answer, to: client) }
        }
    }

    /// Closes a client's descriptor and tells `disconnected`, outside the lock (the poll thread).
    private func disconnect(_ client: IPCClientID) {
        let dropped = clients.withLock { clients in
            defer { Self.drop(client, from: &clients.connections) }
            return clients.connections[client] != nil
        }
        if dropped { disconnected?(client) }
    }

    /// Writes the whole line or reports failure; never blocks, never raises SIGPIPE.
    private static func write(_ line: [UInt8], to client: Int32) -> Bool {
        line.withUnsafeBytes { bytes in
            Glibc.send(client, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL)) == bytes.count
        }
    }

    private static func drop(_ client: IPCClientID, from connections: inout [IPCClientID: Connection]) {
        guard let connection = connections.removeValue(forKey: client) else { return }
        Glibc.close(connection.descriptor)
    }
}

/// A client of an `IPCServer`, for as long as it stays connected; the next client gets another.
public struct IPCClientID: Hashable, Sendable {
    let value: UInt64
}

public struct IPCServerError: Error, Sendable {
    public var path: String
    public var reason: String
}
