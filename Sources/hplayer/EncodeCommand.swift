import ArgumentParser
import Dispatch
import Glibc
import HPlayerKit

/// `hplayer encode`: a file, URL, test pattern or capture device encoded to H.264 and AAC, as a
/// muxed file, a raw H.264 stream or an ADTS stream.
struct EncodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encode",
        abstract: "Encode a file, URL, test pattern or capture device to H.264 and AAC.",
        discussion: """
        Sources: a file or URL; pattern:[WxH[@FPS]] (a test picture and a 440 Hz tone); lavfi:GRAPH; \
        v4l2:/dev/videoN; pulse:[SOURCE]; alsa:[DEVICE]; x11:[DISPLAY]. \
        Outputs, by extension: .mp4 (faststart), .mov, .mkv, .ts, .h264 (Annex B, SPS and PPS before \
        every IDR), .aac (ADTS); -o may be given more than once, each output getting the same packets.
        """)

    @Option(help: "What to encode (see above).") var from: String
    @Option(name: .customLong("audio-from"), help: "The sound from another source (pulse:, alsa:, lavfi:, a file): --from then gives the picture.")
    var audioFrom: String?
    @Option(name: [.customShort("o"), .customLong("output")], help: "An output file; may be given more than once.")
    var outputs: [String] = []
    @Option(name: [.customShort("t"), .customLong("duration")], help: "Seconds of the source to encode (a pattern or a device has no end).")
    var duration: Double?

    @Option(name: .customLong("video-bitrate"), help: "Video bits per second (2500k, 5M); default: constant quality (--crf).")
    var videoBitRate: String?
    @Option(help: "x264's constant rate factor when no --video-bitrate is given.") var crf = 23.0
    @Option(help: "Frames from one key frame to the next (default: two seconds' worth).") var keyint: Int?
    @Option(help: "H.264 profile: baseline, main or high.") var profile: String?
    @Option(help: "H.264 level: 3.0, 3.1, 4.0, 4.1, …") var level: String?
    @Option(help: "The most B-frames in a row (x264's default: 3).") var bframes: Int?
    @Option(help: "x264's preset: ultrafast … veryslow.") var preset = "medium"
    @Flag(help: "Real time: no frame delay (x264's zerolatency tune).") var zerolatency = false
    @Option(name: .customLong("encoder-threads"), help: "Video encoder threads (0: one per core).") var encoderThreads = 0
    @Option(name: .customLong("video-size"), help: "Scale the picture to WIDTHxHEIGHT.") var videoSize: String?
    @Option(help: "H.264 encoder: auto (nvenc, vaapi, then libx264), no (libx264), nvenc or vaapi; one that does not open falls back to libx264.")
    var hwenc = "no"

    @Option(name: .customLong("audio-bitrate"), help: "AAC bits per second (default 128k).") var audioBitRate: String?
    @Option(name: .customLong("sample-rate"), help: "AAC sample rate (default: the source's, where AAC has it, else 48000).")
    var sampleRate: Int?
    @Option(help: "AAC channels (default: the source's, at most 8).") var channels: Int?

    @Option(help: "Also make an HLS package in DIR: a variant per --ladder rung, a media playlist each and master.m3u8.")
    var hls: String?
    @Option(help: "The package's rungs from the top, HEIGHTp:RATEk (default: 1080p:5000k,720p:2800k,360p:800k, those no taller than the source).")
    var ladder: String?
    @Option(name: .customLong("hls-segment-type"), help: "mpegts (the default) or fmp4.") var hlsSegmentType: String?
    @Option(name: .customLong("hls-time"), help: "Seconds per segment (default 4); each starts with a key frame.") var hlsTime = 4.0
    @Option(name: .customLong("hls-audio"), help: "in-variant (the default: the sound in every variant) or separate (once, as its own rendition).")
    var hlsAudio: String?
    @Flag(help: "With --hls: also a DASH manifest.mpd naming the same fMP4 segments (a CMAF package; fMP4, the sound apart).")
    var dash = false
    @Option(name: .customLong("cenc"), help: "With --dash: the samples in Common Encryption (cenc, ClearKey), KID:KEY in hex, or @FILE holding it.")
    var cenc: String?
    @Option(name: .customLong("cenc-license"), help: "With --cenc: the ClearKey license server the manifests name.") var cencLicense: String?
    @Option(name: .customLong("hls-key"), help: "A 16-byte key file: every segment AES-128 encrypted.") var hlsKey: String?
    @Option(name: .customLong("hls-key-uri"), help: "The key's URI in the playlists (default key.bin, next to them).") var hlsKeyURI: String?

    @Flag(help: "With --hls: a live package, its playlists a sliding window updated as segments are made, the old segments deleted; the source is encoded no faster than it plays.")
    var live = false
    @Option(name: .customLong("hls-list-size"), help: "Segments in a live playlist (default 6).") var hlsListSize = 6
    @Option(help: "Push in real time to rtmp://HOST/APP/KEY (FLV) or srt://HOST:PORT (MPEG-TS); may be given more than once.")
    var push: [String] = []
    @Flag(name: .customLong("realtime"), help: "Encode no faster than the source plays (ffmpeg's -re).") var realtime = false

    @Flag(name: .customLong("no-progress"), help: "No progress line on a terminal.") var noProgress = false
    @Option(name: .customLong("stats-dir"), help: "Write DIR/progress.tsv: a line each tenth of a second (at, frames, position, bytes, speed).")
    var statsDirectory: String?
    @OptionGroup(title: "Network") var network: NetworkArguments
    @OptionGroup var common: CommonOptions

    func run() throws {
        common.bootstrapLogging()
        let job = try makeJob()
        let session: EncodeSession
        do { session = try EncodeSession(job: job) } catch { throw CommandLineFailure.media(error) }
        let log = try statsDirectory.map { path throws(CommandLineFailure) in try ProgressLog(directory: path) }
        // Ctrl-C and SIGTERM finish the files with what was encoded, as ffmpeg's q does.
        let interrupts = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { session.stop() }
            source.resume()
            return source
        }
        defer { interrupts.forEach { $0.cancel() } }

        let started = MonotonicClock.now()
        session.start()
        let line = ProgressLine(isShown: !noProgress && !common.quiet && isatty(STDERR_FILENO) == 1)
        let ended = Locked(false)
        let failure = Locked<MediaError?>(nil)
        let waiter = JoinableThread(name: "hp-encode-wait") {
            defer { ended.withLock { $0 = true } }
            do throws(MediaError) { try session.wait() } catch { failure.withLock { $0 = error } }
        }
        var announced = false
        while !ended.withLock({ $0 }) {
            usleep(100_000)
            if !announced, !session.encoders.isEmpty {
                announced = true
                if !common.quiet { for text in session.encoders { writeStandardError("hplayer: \(text)\n") } }
            }
            let progress = session.progress
            let elapsed = MonotonicClock.now() - started
            line.show(progress, elapsed: elapsed)
            log?.write(progress, elapsed: elapsed)
        }
        waiter.join()
        let progress = session.progress
        line.finish(progress, elapsed: MonotonicClock.now() - started)
        log?.write(progress, elapsed: MonotonicClock.now() - started)
        if let error = failure.withLock({ $0 }) {
            // A source that did not open is named as it was given.
            let input = error.input == job.input ? from : error.input == job.audioInput ? audioFrom ?? error.input : error.input
            throw CommandLineFailure.media(MediaError(input: input, reason: error.reason))
        }
    }

    private func makeJob() throws(CommandLineFailure) -> EncodeJob {
        guard !outputs.isEmpty || hls != nil || !push.isEmpty else {
            throw .usage(input: "-o", reason: "no output given (-o FILE, --hls DIR or --push URL)")
        }
        let source: EncodeSource
        do {
            source = try EncodeSource.parse(from, display: getenv("DISPLAY").map { String(cString: $0) })
        } catch {
            throw .media(error)
        }
        var job = EncodeJob(input: source.url, outputs: outputs)
        job.inputFormat = source.format
        if let audioFrom {
            do {
                let audio = try EncodeSource.parse(audioFrom, display: nil)
                job.audioInput = audio.url
                job.audioInputFormat = audio.format
            } catch {
                throw .media(error)
            }
        }
        if let duration {
            guard duration > 0, duration.isFinite else { throw .usage(input: "--duration", reason: "expected seconds above 0, got \(duration)") }
            job.duration = duration
        }
        job.video.bitRate = try videoBitRate.map { text throws(CommandLineFailure) in try BitRate.parse(text, option: "--video-bitrate") }
        guard crf >= 0, crf <= 51 else { throw .usage(input: "--crf", reason: "expected 0 to 51, got \(crf)") }
        job.video.crf = crf
        if let keyint {
            guard keyint >= 1 else { throw .usage(input: "--keyint", reason: "expected 1 or more frames, got \(keyint)") }
            job.video.keyFrameInterval = keyint
        }
        if let profile {
            guard ["baseline", "main", "high"].contains(profile) else {
                throw .usage(input: "--profile", reason: "expected baseline, main or high, got '\(profile)'")
            }
            job.video.profile = profile
        }
        if let level {
            guard let value = Double(level), value >= 1, value <= 6.2 else { throw .usage(input: "--level", reason: "expected 1 to 6.2, got '\(level)'") }
            job.video.level = level
        }
        if let bframes {
            guard (0...16).contains(bframes) else { throw .usage(input: "--bframes", reason: "expected 0 to 16, got \(bframes)") }
            job.video.bFrames = bframes
        }
        job.video.preset = preset
        job.video.isZeroLatency = zerolatency
        guard encoderThreads >= 0 else { throw .usage(input: "--encoder-threads", reason: "expected 0 or more, got \(encoderThreads)") }
        job.video.threads = encoderThreads
        if let videoSize {
            let sides = videoSize.split(separator: "x").compactMap { Int($0) }
            guard sides.count == 2, sides.allSatisfy({ (16...8192).contains($0) }) else {
                throw .usage(input: "--video-size", reason: "expected WIDTHxHEIGHT, sides 16 to 8192, got '\(videoSize)'")
            }
            job.video.size = PictureSize(width: sides[0], height: sides[1])
        }
        guard let hardware = HardwareEncoder(rawValue: hwenc) else {
            throw .usage(input: "--hwenc", reason: "expected auto, no, nvenc or vaapi, got '\(hwenc)'")
        }
        job.hardware = hardware
        if let audioBitRate { job.audio.bitRate = try BitRate.parse(audioBitRate, option: "--audio-bitrate") }
        if let sampleRate {
            guard ADTSHeader.sampleRates.contains(sampleRate) else {
                let rates = ADTSHeader.sampleRates.reversed().map(String.init).joined(separator: ", ")
                throw .usage(input: "--sample-rate", reason: "AAC has no \(sampleRate) Hz: expected one of \(rates)")
            }
            job.audio.sampleRate = sampleRate
        }
        if let channels {
            guard channels >= 1 else { throw .usage(input: "--channels", reason: "expected 1 or more, got \(channels)") }
            job.audio.channelCount = channels
        }
        try network.apply(to: &job.network)
        job.package = try packageSettings()
        job.pushes = push
        // A live package or a push goes out at the pace of the source (a device's own).
        job.isPaced = realtime || live || !push.isEmpty
        return job
    }

    private func packageSettings() throws(CommandLineFailure) -> PackageSettings? {
        guard let hls else {
            if let option = [(ladder != nil, "--ladder"), (hlsKey != nil, "--hls-key"), (live, "--live"), (dash, "--dash")].first(where: \.0)?.1 {
                throw .usage(input: option, reason: "needs --hls DIR")
            }
            return nil
        }
        var package = PackageSettings(directory: hls)
        if let ladder {
            do { package.ladder = try Ladder.parse(ladder) } catch { throw .usage(input: error.input, reason: error.reason) }
        }
        let typeName = hlsSegmentType ?? (dash ? "fmp4" : "mpegts")
        guard let type = SegmentType(rawValue: typeName) else {
            throw .usage(input: "--hls-segment-type", reason: "expected mpegts or fmp4, got '\(typeName)'")
        }
        package.segmentType = type
        guard hlsTime >= 0.5, hlsTime <= 60 else { throw .usage(input: "--hls-time", reason: "expected 0.5 to 60 seconds, got \(hlsTime)") }
        package.segmentDuration = hlsTime
        switch hlsAudio ?? (dash ? "separate" : "in-variant") {
        case "in-variant": package.separateAudio = false
        case "separate": package.separateAudio = true
        case let other: throw .usage(input: "--hls-audio", reason: "expected in-variant or separate, got '\(other)'")
        }
        if dash {
            guard type == .fmp4, package.separateAudio else {
                throw .usage(input: "--dash", reason: "a CMAF package: needs --hls-segment-type fmp4 and --hls-audio separate (the defaults with --dash)")
            }
            guard package.key == nil, hlsKey == nil else { throw .usage(input: "--dash", reason: "AES-128 segments (--hls-key) are HLS's alone") }
            package.writesManifest = true
        }
        if let cenc {
            guard dash else { throw .usage(input: "--cenc", reason: "needs --dash (Common Encryption is of fMP4 samples)") }
            let keys = try NetworkArguments.clearKeys(cenc, option: "--cenc")
            guard keys.count == 1 else { throw .usage(input: "--cenc", reason: "expected one KID:KEY, got \(keys.count)") }
            package.sampleKey = keys[0]
            if let cencLicense {
                guard OriginPolicy.isRemote(cencLicense), !cencLicense.contains(where: { $0 == "\"" || $0 == "<" || $0 == "&" || $0.isWhitespace }) else { throw .usage(input: "--cenc-license", reason: "expected an http or https URL, got '\(cencLicense)'") }
                package.licenseURL = cencLicense
            }
        } else if cencLicense != nil {
            throw .usage(input: "--cenc-license", reason: "needs --cenc")
        }
        if live {
            guard hlsListSize >= 2 else { throw .usage(input: "--hls-list-size", reason: "expected 2 or more segments, got \(hlsListSize)") }
            package.liveWindow = hlsListSize
        }
        if let hlsKey {
            guard let file = fopen(hlsKey, "rb") else { throw .usage(input: "--hls-key", reason: "\(hlsKey): \(String(cString: strerror(errno)))") }
            defer { fclose(file) }
            var key = [UInt8](repeating: 0, count: 17)
            guard fread(&key, 1, 17, file) == 16 else { throw .usage(input: "--hls-key", reason: "\(hlsKey): not 16 bytes") }
            package.key = Array(key.prefix(16))
            package.keyURI = hlsKeyURI
        }
        return package
    }
}

/// A bit rate as given on the command line: 800000, 800k, 2.5M.
enum BitRate {
    static func parse(_ text: String, option: String) throws(CommandLineFailure) -> Int {
        let lowered = text.lowercased()
        let factor: Double = lowered.hasSuffix("k") ? 1000 : lowered.hasSuffix("m") ? 1_000_000 : 1
        let number = factor == 1 ? Substring(lowered) : lowered.dropLast()
        guard let value = Double(number), value > 0, (value * factor) >= 1000, value * factor <= 1e10 else {
            throw .usage(input: option, reason: "expected bits per second (800k, 2.5M), got '\(text)'")
        }
        return Int((value * factor).rounded())
    }
}

/// ffmpeg's progress line, redrawn in place on a terminal:
/// `frame=  250 fps= 62 size=    1024kB time=00:00:10.00 bitrate= 838.9kbits/s speed=2.49x eta=00:00:05`.
struct ProgressLine {
    let isShown: Bool

    func show(_ progress: EncodeProgress, elapsed: Double) {
        guard isShown else { return }
        writeStandardError(Self.text(progress, elapsed: elapsed) + "\r")
    }

    func finish(_ progress: EncodeProgress, elapsed: Double) {
        guard isShown else { return }
        writeStandardError(Self.text(progress, elapsed: elapsed) + "\n")
    }

    static func text(_ progress: EncodeProgress, elapsed: Double) -> String {
        let fps = elapsed > 0 ? Double(progress.frames) / elapsed : 0
        let bitRate = progress.position > 0 ? Double(progress.bytes) * 8 / progress.position / 1000 : 0
        let speed = elapsed > 0 ? progress.position / elapsed : 0
        var text = cFormat("frame=%5d fps=%3.0f size=%8dkB time=", progress.frames, fps, progress.bytes / 1024)
            + clock(progress.position)
            + cFormat(" bitrate=%6.1fkbits/s speed=%5.2fx", bitRate, speed)
        if let duration = progress.duration, speed > 0 {
            text += " eta=" + clock(max(duration - progress.position, 0) / speed)
        }
        return text
    }

    /// HH:MM:SS.cc, as ffmpeg writes times.
    static func clock(_ seconds: Double) -> String {
        let hundredths = Int((max(seconds, 0) * 100).rounded())
        return cFormat("%02d:%02d:%02d.%02d", hundredths / 360_000, hundredths / 6000 % 60, hundredths / 100 % 60, hundredths % 100)
    }
}

/// `--stats-dir DIR`: DIR/progress.tsv, a line each time the progress is looked at, flushed as written.
final class ProgressLog {
    private let file: UnsafeMutablePointer<FILE>

    init(directory: String) throws(CommandLineFailure) {
        if mkdir(directory, 0o755) != 0, errno != EEXIST {
            throw .usage(input: "--stats-dir", reason: "\(directory): \(String(cString: strerror(errno)))")
        }
        guard let file = fopen(directory + "/progress.tsv", "w") else {
            throw .usage(input: "--stats-dir", reason: "\(directory)/progress.tsv: \(String(cString: strerror(errno)))")
        }
        self.file = file
        fputs("at\tframes\tposition\tbytes\tspeed\n", file)
        fflush(file)
    }

    deinit { fclose(file) }

    func write(_ progress: EncodeProgress, elapsed: Double) {
        let speed = elapsed > 0 ? progress.position / elapsed : 0
        fputs(cFormat("%.3f\t%d\t%.3f\t%d\t%.3f\n", elapsed, progress.frames, progress.position, progress.bytes, speed), file)
        fflush(file)
    }
}
