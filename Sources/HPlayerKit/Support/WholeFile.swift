import Glibc

/// Puts a file in place whole or not at all: the bytes go to a temporary file in the same
/// folder, which takes the file's name once written and synced. A failure leaves no part of a
/// file behind, and any file already at the name as it was.
package enum WholeFile {
    /// Writes `bytes` to `path`, replacing any file there; `mode` as open(2) takes it (0600: the user's alone).
    package static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o666) throws(MediaError) {
        let (temporary, descriptor) = try createTemporary(beside: path, mode: mode)
        var failure: MediaError?
        do {
            try writeAll(bytes, to: descriptor, path: path)
        } catch {
            failure = error
        }
        if failure == nil, fsync(descriptor) != 0 { failure = lastError(path) }
        if close(descriptor) != 0, failure == nil { failure = lastError(path) }
        if failure == nil, rename(temporary, path) != 0 { failure = lastError(path) }
        if let failure {
            unlink(temporary)
            throw failure
        }
    }

    /// The bytes of the file at `path`, at most `limit` of them (more is an error).
    package static func read(_ path: String, limit: Int) throws(MediaError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw lastError(path) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = Glibc.read(descriptor, &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw lastError(path) }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
            guard bytes.count <= limit else { throw MediaError(input: path, reason: "larger than \(limit) bytes") }
        }
    }

    /// Writes `bytes` to the first of `paths` no file has yet; returns it.
    static func create(_ bytes: [UInt8], atFirstFreeOf paths: some Sequence<String>) throws(MediaError) -> String {
        var lastTaken = ""
        for path in paths {
            // The name is claimed first, so two snapshots at once never take the same one.
            let claim = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            guard claim >= 0 else {
                if errno == EEXIST {
                    lastTaken = path
                    continue
                }
                throw lastError(path)
            }
            close(claim)
            do {
                try write(bytes, to: path)
            } catch {
                unlink(path)
                throw error
            }
            return path
        }
        throw MediaError(input: lastTaken, reason: "every name of this form is taken")
    }

    private static func createTemporary(beside path: String, mode: mode_t) throws(MediaError) -> (String, Int32) {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { path[...$0] } ?? ""
        let name = slash.map { path[path.index(after: $0)...] } ?? path[...]
        while true {
            let temporary = "\(folder).\(name).\(String(UInt64.random(in: .min ... .max), radix: 16)).tmp"
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
            if descriptor >= 0 { return (temporary, descriptor) }
            if errno != EEXIST { throw lastError(path) }
        }
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(MediaError) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw lastError(path) }
            written += count
        }
    }

    /// errno as a user is told it, about `path`.
    private static func lastError(_ path: String) -> MediaError {
        MediaError(input: path, reason: String(cString: strerror(errno)))
    }
}
