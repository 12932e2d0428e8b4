import CFFmpeg

/// `--vo record:DIR`: paced like the null output, and writes `DIR/video.tsv`, one line per
/// presented frame: pts, presented_at (monotonic), and the MD5 of the picture as decoded; and
/// `DIR/subs.tsv`, one line per subtitle cue as it comes on screen: its start and end (media
/// seconds), its text (a line break written as `\n`), and the pts of the frame it came with.
public final class RecordingVideoOutput: VideoOutput, @unchecked Sendable {
    private let directory: String
    private let paced: Bool
    private var loop: RefreshLoop?
    private var log: OutputFile?
    private var subtitleLog: OutputFile?
    private let md5 = FrameMD5()
    private let appends: Bool

    /// `appends`: the logs go on after what they hold (a playlist's later files), rather than anew.
    public init(directory: String, paced: Bool = true, appends: Bool = false) {
        self.directory = directory
        self.paced = paced
        self.appends = appends
    }

    /// Any: frames are logged in the format the decoder gave them.
    public var acceptedPixelFormats: [PixelFormat]? { nil }

    public func open(renderer: VideoRendering, format: VideoFormat) throws(MediaError) {
        try makeDirectory(directory)
        let log = try OutputFile(path: directory + "/video.tsv", appending: appends)
        let subtitleLog = try OutputFile(path: directory + "/subs.tsv", appending: appends)
        self.log = log
        self.subtitleLog = subtitleLog
        let subtitles = SubtitleLog(file: subtitleLog)
        loop = RefreshLoop(name: "hp-vo-record", renderer: renderer, paced: paced) { [md5] frame, time in
            log.write("\(formatSeconds(frame.mediaPts))\t\(formatSeconds(time))\t\(md5.digest(of: frame))\n")
            log.flush()
            subtitles.frameShown(frame.mediaPts, with: renderer.subtitle(atMediaPts: frame.mediaPts))
        }
    }

    public func start() { loop?.start() }
    public func pause() { loop?.pause() }
    public func requestRefresh() { loop?.requestRefresh() }

    public func close() {
        loop?.close()
        log?.close()
        subtitleLog?.close()
    }
}

/// Writes each cue of subs.tsv once, when it comes on screen (the refresh thread's own).
private final class SubtitleLog: @unchecked Sendable {
    private let file: OutputFile
    private var shown: ShownSubtitle?

    init(file: OutputFile) {
        self.file = file
    }

    func frameShown(_ pts: Double, with subtitle: ShownSubtitle?) {
        guard subtitle != shown else { return }
        // An ASS drawing with no text is drawn, and has nothing to write; a bitmap cue is
        // written as the rectangles it shows, on its canvas ("[bitmap 120x60+400+280]").
        for cue in subtitle?.cues ?? [] where !(cue.text.isEmpty && cue.bitmaps == nil) && !Self.wasShown(cue, in: shown) {
            var text = ""
            for character in cue.bitmaps.map(Self.describe) ?? cue.text {
                switch character {
                case "\n": text += "\\n"
                case "\t": text += " "
                default: text.append(character)
                }
            }
            file.write("\(formatSeconds(cue.start))\t\(cue.end.isFinite ? formatSeconds(cue.end) : "inf")\t\(text)\t\(formatSeconds(pts))\n")
        }
        file.flush()
        shown = subtitle
    }

    /// The same cue, its end perhaps learnt since (a bitmap cue's, at its clear).
    private static func wasShown(_ cue: SubtitleCue, in shown: ShownSubtitle?) -> Bool {
        shown?.cues.contains { $0.start == cue.start && $0.showsTheSame(as: cue) } ?? false
    }

    private static func describe(_ bitmaps: SubtitleBitmaps) -> String {
        bitmaps.rectangles.map { "[bitmap \($0.width)x\($0.height)+\($0.x)+\($0.y)]" }.joined(separator: " ")
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
    private let appends: Bool
    private var log: OutputFile?

    /// - Parameters:
    ///   - sampleRate: the rate to ask for, as a device would; nil takes the source's.
    ///   - channelCount: the channels to ask for; nil takes the source's.
    ///   - appends: the WAV and the log go on after what they hold (a playlist's later files),
    ///     rather than anew; a WAV of another format is started anew.
    public init(directory: String, sampleFormat: AudioFormat.SampleFormat = .float32, sampleRate: Int? = nil,
                channelCount: Int? = nil, paced: Bool = true, appends: Bool = false) {
        self.appends = appends
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
        let wav = try WAVWriter(path: directory + "/audio.wav", format: format, appending: appends)
        let log = try OutputFile(path: directory + "/audio.tsv", appending: appends)
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
