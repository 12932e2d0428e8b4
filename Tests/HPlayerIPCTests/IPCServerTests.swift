import Glibc
import HPlayerIPC
import HPlayerKit
import HPlayerTestSupport
import Testing

/// The socket's clients, each known by an id that is never given again.
struct IPCServerTests {
    /// A client's id as the handler saw it, and which clients the server said are gone.
    private final class Seen: Sendable {
        let clients = Locked<[IPCClientID]>([])
        let gone = Locked<[IPCClientID]>([])
    }

    @Test func aMessageForAClientThatLeftReachesNoLaterClientOnTheSameDescriptor() throws {
        let path = "/tmp/hplayer-ipc-server-\(getpid()).sock"
        let seen = Seen()
        let server = try IPCServer(path: path, handler: { client, _ in
            seen.clients.withLock { $0.append(client) }
            return [.string("hello")]
        }, disconnected: { client in seen.gone.withLock { $0.append(client) } })
        defer { server.close() }

        let first = try #require(UnixClient(path: path))
        first.send("x\n")
        #expect(first.readLine() == "\"hello\"")
        let firstID = try #require(seen.clients.withLock { $0.first })
        first.close()
        #expect(eventually { seen.gone.withLock { $0 == [firstID] } })

        // The server's next socket takes the lowest free descriptor: the one the first client had.
        let second = try #require(UnixClient(path: path))
        second.send("y\n")
        #expect(second.readLine() == "\"hello\"")
        let secondID = try #require(seen.clients.withLock { $0.count == 2 ? $0[1] : nil })
        #expect(secondID != firstID)
        server.send(.string("for the first"), to: firstID)
        server.send(.string("for the second"), to: secondID)
        #expect(second.readLine() == "\"for the second\"")
        second.close()
    }
}

/// A blocking client of a Unix socket, with a 5 s receive timeout.
private final class UnixClient {
    private let descriptor: Int32
    private var buffered: [UInt8] = []

    init?(path: String) {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connected == 0 else {
            Glibc.close(descriptor)
            return nil
        }
    }

    func send(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The next line, without its newline; nil on a timeout or a closed socket.
    func readLine() -> String? {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !buffered.contains(UInt8(ascii: "\n")) {
            let count = recv(descriptor, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            buffered += chunk[..<count]
        }
        let end = buffered.firstIndex(of: UInt8(ascii: "\n"))!
        defer { buffered.removeSubrange(...end) }
        return String(decoding: buffered[..<end], as: UTF8.self)
    }

    func close() { Glibc.close(descriptor) }
}
