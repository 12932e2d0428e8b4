import Foundation
import HPlayerKit

/// The repository the tests run from (scripts/ holds the fault-injecting server).
enum Repository {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
}

enum Network {
    /// A TCP port nothing listens on now (the kernel's pick for a socket bound to port 0).
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw FixtureError(description: "no socket: errno \(errno)") }
        defer { close(descriptor) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard bound else { throw FixtureError(description: "cannot bind a port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    static func isListening(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// 127.0.0.1:`port` as the socket calls take it.
    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }

    static func waitUntilListening(_ port: Int, what: String) throws {
        let deadline = MonotonicClock.now() + 10
        while !isListening(port) {
            guard MonotonicClock.now() < deadline else { throw FixtureError(description: "\(what) did not listen on port \(port)") }
            MonotonicClock.sleep(until: MonotonicClock.now() + 0.02)
        }
    }
}

/// nginx with a configuration of the test's own, on free ports, serving the fixtures folder over
/// HTTP and over HTTPS with a self-signed certificate made at test time; stopped when released.
/// /redirect?to=URL answers a 302 to URL (not percent-decoded).
final class NginxServer: @unchecked Sendable {
    let port: Int
    let tlsPort: Int
    let folder: String
    /// The self-signed certificate, which is its own certificate authority.
    var certificate: String { folder + "/cert.pem" }
    private let process: BackgroundProcess

    init(root: String = Fixtures.directory.path) throws {
        folder = Fixtures.newFolder("nginx")
        port = try Network.freePort()
        tlsPort = try Network.freePort()
        let made = try Command.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", folder + "/key.pem", "-out", folder + "/cert.pem"])
        guard made.status == 0 else { throw FixtureError(description: "openssl: \(made.stderr)") }
        let config = """
            \(Nginx.process(folder))
            http {
                \(Nginx.scratch(folder))
                types { video/mp4 mp4; video/x-matroska mkv; video/webm webm; video/mp2t ts; application/vnd.apple.mpegurl m3u8; }
                default_type application/octet-stream;
                server { listen 127.0.0.1:\(port); root \(root); location = /redirect { return 302 $arg_to; } }
                server {
                    listen 127.0.0.1:\(tlsPort) ssl;
                    ssl_certificate \(folder)/cert.pem;
                    ssl_certificate_key \(folder)/key.pem;
                    root \(root);
                    location = /redirect { return 302 $arg_to; }
                }
            }
            """
        process = try Nginx.start(folder: folder, config: config, listening: [(port, "nginx"), (tlsPort, "nginx (TLS)")])
    }

    deinit { process.send(signal: SIGQUIT) }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }
    func tlsURL(_ path: String) -> String { "https://127.0.0.1:\(tlsPort)/\(path)" }
}

/// A TCP listener on 127.0.0.1 that only counts the connections made to it: a local service a
/// hostile document would have the player reach.
final class ConnectionCounter: @unchecked Sendable {
    let port: Int
    private let process: BackgroundProcess

    init() throws {
        let script = """
            import socket
            listener = socket.socket()
            listener.bind(("127.0.0.1", 0))
            listener.listen(64)
            print("PORT", listener.getsockname()[1], flush=True)
            listener.settimeout(300)
            while True:
                connection, _ = listener.accept()
                print("CONNECTION", flush=True)
                connection.close()
            """
        process = try BackgroundProcess(["python3", "-c", script])
        let deadline = MonotonicClock.now() + 10
        while true {
            if let line = process.stdout.split(separator: "\n").first(where: { $0.hasPrefix("PORT ") }), let port = Int(line.dropFirst(5)) {
                self.port = port
                return
            }
            guard process.isRunning, MonotonicClock.now() < deadline else {
                throw FixtureError(description: "the connection counter did not start: \(process.stderr)")
            }
            MonotonicClock.sleep(until: MonotonicClock.now() + 0.02)
        }
    }

    deinit { process.send(signal: SIGKILL) }

    var connections: Int { process.stdout.split(separator: "\n").filter { $0 == "CONNECTION" }.count }
}

/// One request as scripts/fault-server.py logs it.
struct LoggedRequest: Decodable {
    var path: String
    var range: String
    var status: Int
    var bytes: Int
    var outcome: String
    var headers: [String: String]
    /// A license request's key IDs (base64url), as the fault server's /_license read them.
    var kids: [String]?
}

/// The project's fault-injecting HTTP server (scripts/fault-server.py) over the fixtures folder,
/// with the faults given as its options (--drop-after N, --stall-after N --stall-seconds S,
/// --status CODE --status-times N, --first-byte-delay S, --rate-schedule ...).
final class FaultServer: @unchecked Sendable {
    let port: Int
    private let log: String
    private let process: BackgroundProcess
    /// The server behind it, kept running as long as it is.
    private let upstream: NginxServer?

    /// - Parameter upstream: a server (nginx) whose answers are served, with the faults, instead of `root`'s files.
    init(_ faults: [String] = [], root: String = Fixtures.directory.path, upstream: NginxServer? = nil) throws {
        log = Fixtures.newFolder("fault-server") + "/requests.jsonl"
        let script = Repository.root.appendingPathComponent("scripts/fault-server.py").path
        self.upstream = upstream
        let served = upstream.map { ["--upstream", "http://127.0.0.1:\($0.port)"] } ?? ["--root", root]
        process = try BackgroundProcess(["python3", script, "--log", log] + served + faults)
        let deadline = MonotonicClock.now() + 10
        var port: Int?
        while port == nil {
            if let line = process.stdout.split(separator: "\n").first(where: { $0.hasPrefix("PORT ") }) { port = Int(line.dropFirst(5)) }
            guard port == nil else { break }
            guard process.isRunning, MonotonicClock.now() < deadline else {
                throw FixtureError(description: "the fault server did not start: \(process.stderr)")
            }
            MonotonicClock.sleep(until: MonotonicClock.now() + 0.02)
        }
        self.port = port!
    }

    deinit { process.send(signal: SIGKILL) }  // a test server: nothing to save

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }

    /// Stops the server: its port refuses connections from then on (the network is gone).
    func stop() {
        process.send(signal: SIGKILL)
        _ = process.wait(timeout: 10)
    }

    /// The requests answered so far, in the order they ended.
    var requests: [LoggedRequest] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(LoggedRequest.self, from: Data($0.utf8)) }
    }
}

/// nginx with Debian's RTMP module (libnginx-mod-rtmp), started on free ports with its own
/// config: it takes pushes at rtmp://127.0.0.1:PORT/live/KEY, plays them back over RTMP, and
/// writes each as HLS (2 s fragments) served over HTTP at /hls/KEY.m3u8.
final class NginxRTMPServer: @unchecked Sendable {
    let port: Int
    let httpPort: Int
    let folder: String
    private let process: BackgroundProcess

    init() throws {
        folder = Fixtures.newFolder("nginx-rtmp")
        port = try Network.freePort()
        httpPort = try Network.freePort()
        // nginx's worker may run as another user (nobody, when the tests run as root): it writes the HLS here.
        try FileManager.default.createDirectory(atPath: folder + "/hls", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
        let config = """
            load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;
            \(Nginx.process(folder))
            rtmp {
                server {
                    listen 127.0.0.1:\(port);
                    application live { live on; record off; hls on; hls_path \(folder)/hls; hls_fragment 1s; hls_cleanup off; }
                }
            }
            http {
                \(Nginx.scratch(folder))
                types { video/mp2t ts; application/vnd.apple.mpegurl m3u8; }
                server { listen 127.0.0.1:\(httpPort); root \(folder); }
            }
            """
        process = try Nginx.start(folder: folder, config: config, listening: [(port, "nginx-rtmp"), (httpPort, "nginx-rtmp (HTTP)")])
    }

    deinit { process.send(signal: SIGQUIT) }

    func rtmpURL(_ key: String) -> String { "rtmp://127.0.0.1:\(port)/live/\(key)" }
    func hlsURL(_ key: String) -> String { "http://127.0.0.1:\(httpPort)/hls/\(key).m3u8" }

    /// Stops the server at once (nginx's fast shutdown: the workers close every connection and
    /// exit): a push to it loses its connection and finds nothing listening.
    func stop() {
        process.send(signal: SIGTERM)
        _ = process.wait(timeout: 10)
    }
}

/// What the tests' nginx servers share: a config whose files all stay in the server's folder, run
/// in the foreground (never as the system's service).
enum Nginx {
    /// The top of a config: one worker, the pid and error log in `folder`.
    static func process(_ folder: String) -> String {
        "worker_processes 1;\npid \(folder)/nginx.pid;\nerror_log \(folder)/error.log;\nevents { worker_connections 64; }"
    }

    /// The http block's access log and temporary files, in `folder`.
    static func scratch(_ folder: String) -> String {
        ["access_log \(folder)/access.log;", "client_body_temp_path \(folder)/body;", "proxy_temp_path \(folder)/proxy;",
         "fastcgi_temp_path \(folder)/fastcgi;", "uwsgi_temp_path \(folder)/uwsgi;", "scgi_temp_path \(folder)/scgi;"].joined(separator: "\n")
    }

    /// nginx on `config` (written to FOLDER/nginx.conf), once each of `listening`'s ports takes
    /// connections; its output and error log in the error when one does not.
    static func start(folder: String, config: String, listening: [(port: Int, what: String)]) throws -> BackgroundProcess {
        try config.write(toFile: folder + "/nginx.conf", atomically: true, encoding: .utf8)
        let process = try BackgroundProcess(["nginx", "-p", folder, "-e", folder + "/error.log", "-c", folder + "/nginx.conf", "-g", "daemon off;"])
        do {
            for (port, what) in listening { try Network.waitUntilListening(port, what: what) }
        } catch {
            throw FixtureError(description: "\(error); \(process.stderr) \((try? String(contentsOfFile: folder + "/error.log", encoding: .utf8)) ?? "")")
        }
        return process
    }
}
