import Foundation
import HPlayerKit

/// A line of `video.tsv`.
struct PresentedFrame: Equatable {
    var pts: Double
    var presentedAt: Double
    var md5: String
}

/// A line of `audio.tsv`.
struct AudioCallback: Equatable {
    var firstPts: Double?
    var playedAt: Double
    var samples: Int
}

/// A player with recording outputs into a fresh folder, its events gathered with the monotonic
/// time each arrived.
final class PlayerSession: @unchecked Sendable {
    let player: Player
    let folder: String
    private let received = Locked<[(event: PlayerEvent, time: Double)]>([])
    private var observation: Task<Void, Never>?

    /// `pacedAudio`: false, the recorded sound is pulled as fast as it comes (an untimed run
    /// then takes no longer than its decoding), rather than at the sound's own rate.
    init(url: String, options: PlayerOptions = PlayerOptions(), name: String = "session",
         videoOutput: VideoOutput? = nil, audioOutput: AudioOutput? = nil, source: MediaSource? = nil, pacedAudio: Bool = true) {
        folder = Fixtures.newFolder(name)
        player = Player(url: url, options: options,
                        audioOutput: audioOutput ?? RecordingAudioOutput(directory: folder, paced: pacedAudio),
                        videoOutput: videoOutput ?? RecordingVideoOutput(directory: folder), source: source)
        let events = player.events()
        observation = Task { [received] in
            for await event in events {
                received.withLock { $0.append((event, MonotonicClock.now())) }
            }
        }
    }

    deinit { player.close() }

    var events: [PlayerEvent] { received.withLock { $0.map(\.event) } }
    var eventCount: Int { received.withLock { $0.count } }

    /// Waits for an event after the first `after` ones that matches; its arrival time.
    @discardableResult
    func waitFor(_ what: String, after: Int = 0, timeout: Double = 30, _ matches: (PlayerEvent) -> Bool) async throws -> Double {
        let deadline = MonotonicClock.now() + timeout
        while MonotonicClock.now() < deadline {
            let found = received.withLock { list in list.dropFirst(after).first { matches($0.event) }?.time }
            if let found { return found }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        throw FixtureError(description: "timed out after \(timeout) s waiting for \(what); events: \(events)")
    }

    @discardableResult
    func waitForFinished(after: Int = 0, timeout: Double = 30) async throws -> Double {
        try await waitFor("finished", after: after, timeout: timeout) { if case .finished = $0 { return true } else { return false } }
    }

    @discardableResult
    func waitForSeekDone(after: Int, timeout: Double = 30) async throws -> Double {
        try await waitFor("seekDone", after: after, timeout: timeout) { if case .seekDone = $0 { return true } else { return false } }
    }

    func waitForPrepared() async throws {
        try await waitFor("prepared") { if case .prepared = $0 { return true } else { return false } }
    }

    /// Prepares, plays to the end and closes (the logs are then complete).
    func playToEnd(timeout: Double = 30) async throws {
        player.prepare()
        player.play()
        try await waitForFinished(timeout: timeout)
        close()
    }

    /// Seeks the prepared, paused player and plays from there to the end; returns when the seek
    /// had returned. From then on nothing older is presented; before, the paused player may
    /// still present its preview of the first frame, so frames are judged from this time.
    func playToEnd(seekingTo position: Double, mode: SeekMode, timeout: Double = 30) async throws -> Double {
        player.seek(to: position, mode: mode)
        let seekReturned = MonotonicClock.now()
        player.play()
        try await waitForFinished(timeout: timeout)
        return seekReturned
    }

    /// Closes the player, so the logs are complete.
    func close() {
        player.close()
        observation?.cancel()
    }

    var presentedFrames: [PresentedFrame] { RecordedRun(folder: folder).presentedFrames }
    var audioCallbacks: [AudioCallback] { RecordedRun(folder: folder).audioCallbacks }

    /// When each white frame of the flash-and-beep clip was presented.
    var flashTimes: [Double] {
        presentedFrames.filter { frame in abs(frame.pts - frame.pts.rounded(.down) - 0.5) < 0.001 }.map(\.presentedAt)
    }

    /// When each beep's first sample is heard: the sample's place in the WAV, mapped through the
    /// callback log to the time its callback's first sample is heard.
    func beepTimes() throws -> [Double] {
        let audio = try recordedAudio()
        let callbacks = audioCallbacks
        let quiet = audio.rate / 5
        var times: [Double] = []
        var lastLoud = -quiet
        for (index, sample) in audio.samples.enumerated() where abs(sample) > 0.4 {
            defer { lastLoud = index }
            guard index - lastLoud >= quiet else { continue }
            let callback = index / 1024
            guard callback < callbacks.count else { break }
            times.append(callbacks[callback].playedAt + Double(index % 1024) / Double(audio.rate))
        }
        return times
    }

    func recordedAudio() throws -> (samples: [Float], rate: Int, channels: Int) { try RecordedRun(folder: folder).recordedAudio() }
}

/// What the recording outputs (`--vo record`, `--ao record`) left in a folder.
struct RecordedRun {
    let folder: String

    var presentedFrames: [PresentedFrame] {
        lines("video.tsv").compactMap { fields in
            guard fields.count == 3, let pts = Double(fields[0]), let at = Double(fields[1]) else { return nil }
            return PresentedFrame(pts: pts, presentedAt: at, md5: String(fields[2]))
        }
    }

    var audioCallbacks: [AudioCallback] {
        lines("audio.tsv").compactMap { fields in
            guard fields.count == 3, let at = Double(fields[1]), let samples = Int(fields[2]) else { return nil }
            return AudioCallback(firstPts: Double(fields[0]).flatMap { $0.isNaN ? nil : $0 }, playedAt: at, samples: samples)
        }
    }

    /// The recorded WAV: interleaved samples as floats, its rate and channel count.
    func recordedAudio() throws -> (samples: [Float], rate: Int, channels: Int) {
        try WAVFile.read(folder + "/audio.wav")
    }

    private func lines(_ file: String) -> [[Substring]] {
        guard let text = try? String(contentsOfFile: folder + "/" + file, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
    }
}

enum WAVFile {
    static func read(_ path: String) throws -> (samples: [Float], rate: Int, channels: Int) {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard data.count >= 44 else { throw FixtureError(description: "\(path): too short for a WAV") }
        func u16(_ offset: Int) -> Int { Int(data[offset]) | Int(data[offset + 1]) << 8 }
        func u32(_ offset: Int) -> Int { u16(offset) | u16(offset + 2) << 16 }
        let formatTag = u16(20), channels = u16(22), rate = u32(24), bits = u16(34)
        let payload = data.subdata(in: 44..<data.count)
        let samples: [Float] = payload.withUnsafeBytes { raw in
            if formatTag == 3 && bits == 32 { return Array(raw.bindMemory(to: Float.self)) }
            return raw.bindMemory(to: Int16.self).map { Float($0) / 32768 }
        }
        return (samples, rate, channels)
    }
}

/// The resident memory of this process in bytes.
func residentMemory() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    return (fields.count > 1 ? Int(fields[1]) ?? 0 : 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
}
