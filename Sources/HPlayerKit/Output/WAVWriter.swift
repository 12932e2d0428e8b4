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
