import Glibc

/// A file written with stdio, for the recording outputs' logs and WAV. Written from one output
/// thread at a time.
final class OutputFile: @unchecked Sendable {
    private var handle: UnsafeMutablePointer<FILE>?
    let path: String

    /// Creates the file, or empties it; `appending`, goes on after what it holds (opened for
    /// update, not in append mode, so that `write(at:)` still writes where it says).
    init(path: String, appending: Bool = false) throws(MediaError) {
        self.path = path
        let existing = appending ? fopen(path, "r+b") : nil
        if let existing { fseek(existing, 0, SEEK_END) }
        guard let handle = existing ?? fopen(path, "wb") else {
            throw MediaError(input: path, reason: String(cString: strerror(errno)))
        }
        self.handle = handle
    }

    deinit { close() }

    func write(_ text: String) {
        _ = text.withCString { fputs($0, handle) }
    }

    func write(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        fwrite(base, 1, bytes.count, handle)
    }

    func write(at offset: Int, _ bytes: [UInt8]) {
        fseek(handle, offset, SEEK_SET)
        bytes.withUnsafeBytes { write($0) }
        fseek(handle, 0, SEEK_END)
    }

    func flush() { fflush(handle) }

    func close() {
        if let handle {
            fclose(handle)
            self.handle = nil
        }
    }
}

/// Makes `path` a folder if it is not one already.
func makeDirectory(_ path: String) throws(MediaError) {
    var status = stat()
    if stat(path, &status) == 0 {
        guard status.st_mode & S_IFMT == S_IFDIR else { throw MediaError(input: path, reason: "not a directory") }
        return
    }
    if mkdir(path, 0o755) != 0, errno != EEXIST {
        throw MediaError(input: path, reason: String(cString: strerror(errno)))
    }
}

/// Seconds with six decimals, as the recording logs write them.
func formatSeconds(_ seconds: Double) -> String {
    seconds.isFinite ? DecimalText.fixed(seconds, places: 6) : "nan"
}
