import Glibc

/// A file written with stdio, for the recording outputs' logs and WAV. Written from one output
/// thread at a time.
final class OutputFile: @unchecked Sendable {
    private var handle: UnsafeMutablePointer<FILE>?
    let path: String

    init(path: String) throws(MediaError) {
        self.path = path
        guard let handle = fopen(path, "wb") else {
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
    guard seconds.isFinite else { return "nan" }
    let micros = Int64((seconds * 1_000_000).rounded())
    let sign = micros < 0 ? "-" : ""
    let magnitude = micros.magnitude
    let fraction = String(magnitude % 1_000_000)
    return "\(sign)\(magnitude / 1_000_000).\(String(repeating: "0", count: 6 - fraction.count))\(fraction)"
}

/// A WAV file of interleaved PCM (16-bit integer or 32-bit float); sizes are filled in on close.
final class WAVWriter: @unchecked Sendable {
    private let file: OutputFile
    private let format: AudioFormat
    private var dataBytes = 0

    init(path: String, format: AudioFormat) throws(MediaError) {
        file = try OutputFile(path: path)
        self.format = format
        file.write(at: 0, header(dataBytes: 0))
    }

    func append(_ samples: UnsafeRawBufferPointer) {
        file.write(samples)
        dataBytes += samples.count
    }

    func close() {
        file.write(at: 0, header(dataBytes: dataBytes))
        file.close()
    }

    private func header(dataBytes: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        func append32(_ value: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) { bytes += $0 } }
        func append16(_ value: Int) { withUnsafeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian) { bytes += $0 } }
        let formatTag = format.sampleFormat == .float32 ? 3 : 1  // WAVE_FORMAT_IEEE_FLOAT : WAVE_FORMAT_PCM
        bytes += Array("RIFF".utf8)
        append32(36 + dataBytes)
        bytes += Array("WAVEfmt ".utf8)
        append32(16)
        append16(formatTag)
        append16(format.channelCount)
        append32(format.sampleRate)
        append32(format.sampleRate * format.bytesPerFrame)
        append16(format.bytesPerFrame)
        append16(format.bytesPerSample * 8)
        bytes += Array("data".utf8)
        append32(dataBytes)
        return bytes
    }
}
