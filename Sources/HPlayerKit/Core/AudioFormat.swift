/// The interleaved sample format an audio output takes.
public struct AudioFormat: Equatable, Sendable, CustomStringConvertible {
    /// How one sample of one channel is stored.
    public enum SampleFormat: String, Sendable {
        /// Signed 16-bit integers.
        case int16
        /// 32-bit floats, -1...1.
        case float32
    }

    /// How each sample is stored.
    public var sampleFormat: SampleFormat
    /// Samples per second, per channel.
    public var sampleRate: Int
    /// Channels, interleaved: a frame holds one sample of each.
    public var channelCount: Int

    /// A format, as the fields say.
    public init(sampleFormat: SampleFormat, sampleRate: Int, channelCount: Int) {
        self.sampleFormat = sampleFormat
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    /// Bytes of one sample of one channel: 2 or 4.
    public var bytesPerSample: Int { sampleFormat == .int16 ? 2 : 4 }
    /// Bytes of one sample on every channel.
    public var bytesPerFrame: Int { bytesPerSample * channelCount }

    /// "float32 48000 Hz 2 ch".
    public var description: String { "\(sampleFormat.rawValue) \(sampleRate) Hz \(channelCount) ch" }
}
