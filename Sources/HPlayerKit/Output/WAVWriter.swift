import Glibc

/// A WAV file of interleaved PCM (16-bit integer or 32-bit float); sizes are filled in on close.
final class WAVWriter: @unchecked Sendable {
    private let file: OutputFile
    private let format: AudioFormat
    private var dataBytes = 0
    private static let headerSize = 44

    /// Creates the file; `appending`, goes on after the samples a WAV of this format holds there
    /// already (one of another format, or none, is started anew).
    init(path: String, format: AudioFormat, appending: Bool = false) throws(MediaError) {
        self.format = format
        let held = appending ? Self.dataBytes(inFileAt: path, format: format) : nil
        file = try OutputFile(path: path, appending: held != nil)
        dataBytes = held ?? 0
        if held == nil { file.write(at: 0, header(dataBytes: 0)) }
    }

    /// The sample bytes of the WAV at `path` when it was written by this writer in `format`.
    private static func dataBytes(inFileAt path: String, format: AudioFormat) -> Int? {
        guard let handle = fopen(path, "rb") else { return nil }
        defer { fclose(handle) }
        var bytes = [UInt8](repeating: 0, count: headerSize)
        guard fread(&bytes, 1, headerSize, handle) == headerSize else { return nil }
        let expected = WAVWriter.header(format: format, dataBytes: 0)
        // The same header but for the two sizes (bytes 4...7 and 40...43).
        guard bytes[8..<40] == expected[8..<40], bytes[0..<4] == expected[0..<4] else { return nil }
        return bytes[40..<44].reversed().reduce(0) { $0 << 8 | Int($1) }
    }

    func append(_ samples: UnsafeRawBufferPointer) {
        file.write(samples)
        dataBytes += samples.count
    }

    func close() {
        file.write(at: 0, header(dataBytes: dataBytes))
        file.close()
    }

    private func header(dataBytes: Int) -> [UInt8] { Self.header(format: format, dataBytes: dataBytes) }

    private static func header(format: AudioFormat, dataBytes: Int) -> [UInt8] {
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
