import Foundation
import HPlayerKit

extension Clips {
    /// Black picture with a white flash and a beep at `frequency` together, 200 ms from each
    /// whole second 1...7; 8 s, 320x240 H.264 + AAC.
    static func flashAndBeepLane(frequency: Int) throws -> String {
        try Fixtures.clip("flash-\(frequency).mp4", [
            "-f", "lavfi", "-i",
            "color=c=black:size=320x240:rate=25:duration=8,drawbox=c=white:t=fill:enable='lt(mod(t,1),0.2)*gte(t,1)'",
            "-f", "lavfi", "-i", "aevalsrc='0.5*sin(2*PI*\(frequency)*t)*lt(mod(t,1),0.2)*gte(t,1)':s=48000:d=8",
            "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-c:a", "aac", "-b:a", "128k", "-ac", "1"])
    }
}

/// One capture of the screen and of the sound server together (ffmpeg: x11grab and the sink's
/// monitor), and where the flashes and beeps of the players in it were.
///
/// The capture has an offset of its own between picture and sound, unknown and different at
/// each run; it is the same for every player in the capture, so it cancels when two players'
/// flash-minus-beep offsets are compared.
struct SyncCapture {
    /// A player's window: its left edge in screen pixels (at the top, 320x240) and its beep.
    struct Lane {
        var name: String
        var left: Int
        var frequency: Int
    }

    static let width = 980, height = 240
    /// The picture is scaled down by this much before it is stored: mean brightness is all we need.
    private static let scale = 10
    private static let sampleRate = 48000

    /// Per capture frame: its time and its pixels (grey, scaled down).
    private var frameTimes: [Double] = []
    private var frames: [UInt8] = []
    private var soundStart = 0.0
    private var sound: [Float] = []

    /// Captures `seconds` of the top left of the screen and of the sink, while `start` starts the players.
    static func record(seconds: Double, start: () throws -> [BackgroundProcess]) throws -> SyncCapture {
        let folder = Fixtures.newFolder("sync")
        let display = ProcessInfo.processInfo.environment["DISPLAY"] ?? ":0"
        let capture = try BackgroundProcess([
            "ffmpeg", "-nostdin", "-v", "error", "-y",
            // Deep input queues: a reader blocked behind the other would grab its frames late, in bursts.
            "-thread_queue_size", "1024", "-f", "x11grab", "-framerate", "100", "-video_size", "\(width)x\(height)", "-i", "\(display)+0,0",
            "-thread_queue_size", "1024", "-f", "pulse", "-i", "\(Desktop.sink).monitor", "-ac", "1", "-ar", "\(sampleRate)",
            "-map", "0:v", "-vf", "scale=\(width / scale):\(height / scale):flags=area,format=gray", "-c:v", "rawvideo",
            "-map", "1:a", "-c:a", "pcm_s16le", "-t", "\(seconds)", folder + "/capture.nut"])
        Thread.sleep(forTimeInterval: 1)
        let players = try start()
        guard capture.wait(timeout: seconds + 20) == 0 else { throw FixtureError(description: "capture failed: \(capture.stderr)") }
        for player in players { _ = player.wait(timeout: 10) }

        var result = SyncCapture()
        result.frameTimes = try packetTimes(folder + "/capture.nut", stream: "v")
        result.soundStart = try packetTimes(folder + "/capture.nut", stream: "a").first ?? 0
        let split = try Command.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", folder + "/capture.nut",
                                     "-map", "0:v", "-f", "rawvideo", "-fps_mode", "passthrough", folder + "/video.gray",
                                     "-map", "0:a", "-f", "s16le", folder + "/sound.raw"])
        guard split.status == 0 else { throw FixtureError(description: "capture unreadable: \(split.stderr)") }
        result.frames = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/video.gray")))
        result.sound = try Data(contentsOf: URL(fileURLWithPath: folder + "/sound.raw"))
            .withUnsafeBytes { $0.bindMemory(to: Int16.self).map { Float($0) / 32768 } }
        return result
    }

    private static func packetTimes(_ path: String, stream: String) throws -> [Double] {
        let probe = try Command.run(["ffprobe", "-v", "error", "-select_streams", stream, "-show_entries", "packet=pts_time",
                                     "-of", "csv=p=0", path])
        return probe.stdout.split(separator: "\n").compactMap { Double($0) }
    }

    /// Median of the lane's flash-minus-beep offsets (seconds), and how many pairs it is taken over.
    func offset(of lane: Lane) -> (median: Double, pairs: Int)? {
        let beeps = beepOnsets(frequency: Double(lane.frequency))
        let offsets = flashOnsets(left: lane.left).compactMap { flash -> Double? in
            guard let beep = beeps.min(by: { abs($0 - flash) < abs($1 - flash) }), abs(beep - flash) < 0.5 else { return nil }
            return flash - beep
        }
        guard !offsets.isEmpty else { return nil }
        return (offsets.sorted()[offsets.count / 2], offsets.count)
    }

    /// Where the lane's window turns white: halfway between the last dark capture frame and the
    /// first white one. Onsets where the capture skipped (frames more than 25 ms apart) are left out.
    func flashOnsets(left: Int) -> [Double] {
        let columns = Self.width / Self.scale, rows = Self.height / Self.scale
        let frameSize = columns * rows
        let count = min(frameTimes.count, frames.count / frameSize)
        let first = left / Self.scale + 2, last = (left + 320) / Self.scale - 2
        let brightness = (0..<count).map { index -> Double in
            var sum = 0
            for row in 2..<(rows - 2) {
                for column in first..<last { sum += Int(frames[index * frameSize + row * columns + column]) }
            }
            return Double(sum) / Double((rows - 4) * (last - first))
        }
        return (1..<max(1, count)).compactMap { index in
            guard brightness[index] > 128, brightness[index - 1] <= 128 else { return nil }
            let gap = frameTimes[index] - frameTimes[index - 1]
            return gap <= 0.025 ? (frameTimes[index] + frameTimes[index - 1]) / 2 : nil
        }
    }

    /// Where a beep at `frequency` starts: its level over 5 ms windows, 0.5 ms apart, crosses
    /// half its peak (the window is then half in the beep, so the onset is its middle).
    func beepOnsets(frequency: Double) -> [Double] {
        let window = Self.sampleRate / 200, hop = Self.sampleRate / 2000
        guard sound.count > window else { return [] }
        let levels = stride(from: 0, to: sound.count - window, by: hop).map { start in
            Sound.amplitude(of: frequency, in: sound[start..<start + window], rate: Double(Self.sampleRate))
        }
        guard let peak = levels.max(), peak > 0.05 else { return [] }
        return (1..<levels.count).compactMap { index in
            guard levels[index] > peak / 2, levels[index - 1] <= peak / 2 else { return nil }
            return soundStart + Double(index * hop + window / 2) / Double(Self.sampleRate)
        }
    }
}
