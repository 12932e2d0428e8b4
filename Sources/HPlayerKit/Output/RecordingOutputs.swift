import CFFmpeg

/// `--vo record:DIR`: paced like the null output, and writes `DIR/video.tsv`, one line per
/// presented frame: pts, presented_at (monotonic), and the MD5 of the picture as decoded.
public final class RecordingVideoOutput: VideoOutput, @unchecked Sendable {
    private let directory: String
    private let paced: Bool
    private var loop: RefreshLoop?
    private var log: OutputFile?
    private let md5 = FrameMD5()

    public init(directory: String, paced: Bool = true) {
        self.directory = directory
        self.paced = paced
    }

    /// Any: frames are logged in the format the decoder gave them.
    public var acceptedPixelFormats: [AVPixelFormat]? { nil }

    public func open(renderer: VideoRendering, format: VideoFormat) throws(MediaError) {
        try makeDirectory(directory)
        let log = try OutputFile(path: directory + "/video.tsv")
        self.log = log
        loop = RefreshLoop(name: "hp-vo-record", renderer: renderer, paced: paced) { [md5] frame, time in
            log.write("\(formatSeconds(frame.mediaPts))\t\(formatSeconds(time))\t\(md5.digest(of: frame))\n")
            log.flush()
        }
    }

    public func start() { loop?.start() }
    public func pause() { loop?.pause() }
    public func requestRefresh() { loop?.requestRefresh() }

    public func close() {
        loop?.close()
        log?.close()
    }
}

/// `--ao record:DIR`: paced like the null output, and writes `DIR/audio.wav` (exactly what was
/// played) and `DIR/audio.tsv`, one line per callback: pts of its first sample, when that sample
/// is heard (monotonic), and the number of samples.
public final class RecordingAudioOutput: AudioOutput, @unchecked Sendable {
    private let directory: String
    private let paced: Bool
    private let sampleFormat: AudioFormat.SampleFormat
    private let sampleRate: Int?
    private let channelCount: Int?
    private var loop: AudioClockLoop?
    private var wav: WAVWriter?
    private var log: OutputFile?

    /// - Parameters:
    ///   - sampleRate: the rate to ask for, as a device would; nil takes the source's.
    ///   - channelCount: the channels to ask for; nil takes the source's.
    public init(directory: String, sampleFormat: AudioFormat.SampleFormat = .float32, sampleRate: Int? = nil,
                channelCount: Int? = nil, paced: Bool = true) {
        self.directory = directory
        self.sampleFormat = sampleFormat
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.paced = paced
    }

    public func open(source: AudioFormat, renderer: AudioRendering) throws(MediaError) -> AudioFormat {
        try makeDirectory(directory)
        let format = AudioFormat(sampleFormat: sampleFormat, sampleRate: sampleRate ?? source.sampleRate,
                                 channelCount: channelCount ?? source.channelCount)
        let wav = try WAVWriter(path: directory + "/audio.wav", format: format)
        let log = try OutputFile(path: directory + "/audio.tsv")
        self.wav = wav
        self.log = log
        let samplesPerCallback = AudioClockLoop.defaultSamplesPerCallback
        loop = AudioClockLoop(name: "hp-ao-record", format: format, samplesPerCallback: samplesPerCallback,
                              renderer: renderer, paced: paced) { samples, firstPts, playedAt in
            wav.append(samples)
            log.write("\(firstPts.map(formatSeconds) ?? "nan")\t\(formatSeconds(playedAt))\t\(samplesPerCallback)\n")
            log.flush()  // so the log can be followed while it is written
        }
        return format
    }

    public func start() { loop?.start() }
    public func pause() { loop?.pause() }

    public func close() {
        loop?.close()
        wav?.close()
        log?.close()
        wav = nil
    }
}
