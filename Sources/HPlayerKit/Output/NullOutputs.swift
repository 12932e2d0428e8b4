import CFFmpeg

/// Video output for headless playback: frames are taken at their time and shown nowhere.
public final class NullVideoOutput: VideoOutput, @unchecked Sendable {
    private let paced: Bool
    private var loop: RefreshLoop?

    /// - Parameter paced: false for untimed playback (each frame as soon as it is decoded).
    public init(paced: Bool = true) {
        self.paced = paced
    }

    public var acceptedPixelFormats: [PixelFormat]? { nil }

    public func open(renderer: VideoRendering, format: VideoFormat) throws(MediaError) {
        loop = RefreshLoop(name: "hp-vo-null", renderer: renderer, paced: paced) { _, _ in }
    }

    public func start() { loop?.start() }
    public func pause() { loop?.pause() }
    public func requestRefresh() { loop?.requestRefresh() }
    public func close() { loop?.close() }
}

/// Audio output for headless playback: samples are taken at the real rate and heard nowhere.
public final class NullAudioOutput: AudioOutput, @unchecked Sendable {
    private let paced: Bool
    private var loop: AudioClockLoop?

    /// - Parameter paced: false for untimed playback (the samples as fast as they are decoded).
    public init(paced: Bool = true) {
        self.paced = paced
    }

    public func open(source: AudioFormat, renderer: AudioRendering) throws(MediaError) -> AudioFormat {
        let format = AudioFormat(sampleFormat: .float32, sampleRate: source.sampleRate, channelCount: source.channelCount)
        loop = AudioClockLoop(name: "hp-ao-null", format: format, samplesPerCallback: AudioClockLoop.defaultSamplesPerCallback, renderer: renderer, paced: paced) { _, _, _ in }
        return format
    }

    public func start() { loop?.start() }
    public func pause() { loop?.pause() }
    public func close() { loop?.close() }
}
