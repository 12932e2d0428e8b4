/// The interleaved sample format an audio output takes.
public struct AudioFormat: Equatable, Sendable, CustomStringConvertible {
    public enum SampleFormat: String, Sendable {
        case int16
        case float32
    }

    public var sampleFormat: SampleFormat
    public var sampleRate: Int
    public var channelCount: Int

    public init(sampleFormat: SampleFormat, sampleRate: Int, channelCount: Int) {
        self.sampleFormat = sampleFormat
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    public var bytesPerSample: Int { sampleFormat == .int16 ? 2 : 4 }
    /// Bytes of one sample on every channel.
    public var bytesPerFrame: Int { bytesPerSample * channelCount }

    public var description: String { "\(sampleFormat.rawValue) \(sampleRate) Hz \(channelCount) ch" }
}
