import Foundation
import HPlayerKit

/// Clips made at test time with the ffmpeg tool, in a temporary folder of this test process's.
/// The test command runs several test processes and names one more folder in
/// `HPLAYER_FIXTURES`: a clip is made there once per run, and each process links to it (a hard
/// link: a copy of it, or its attributes, are the clip's own, as when it was made here).
enum Fixtures {
    static let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hplayer-fixtures-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// Where clips are shared between test processes, when the test command names a folder.
    private static let shared: URL? = ProcessInfo.processInfo.environment["HPLAYER_FIXTURES"]
        .flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }

    private static let made = Locked<[String: String]>([:])

    /// The path of clip `name`, made with `ffmpeg -v error -y ARGUMENTS PATH` the first time.
    static func clip(_ name: String, _ arguments: [String]) throws -> String {
        if let path = made.withLock({ $0[name] }) { return path }
        let path = directory.appendingPathComponent(name).path
        if let shared {
            let sharedPath = shared.appendingPathComponent(name).path
            if !FileManager.default.fileExists(atPath: sharedPath) {
                try make(name, arguments, at: sharedPath)
            }
            // A link, so that a folder served by a test's web server holds the clip as before; in
            // place of a file a process of this pid left in an earlier run. A copy across file systems.
            unlink(path)
            if link(sharedPath, path) != 0 {
                do {
                    try FileManager.default.copyItem(atPath: sharedPath, toPath: path)
                } catch {
                    throw FixtureError(description: "could not link or copy \(name) into \(directory.path): \(error)")
                }
            }
        } else {
            try make(name, arguments, at: path)
        }
        made.withLock { $0[name] = path }
        return path
    }

    /// Made under a name of this process's own and renamed into place, so another process sees
    /// either no clip or the whole of it (two making it at once each rename a whole clip).
    private static func make(_ name: String, _ arguments: [String], at path: String) throws {
        // The extension stays last: ffmpeg picks the container by it.
        let folder = (path as NSString).deletingLastPathComponent
        let partial = "\(folder)/.making-\(getpid())-\(UUID().uuidString.prefix(8))-\(name)"
        let result = try Command.run(["ffmpeg", "-nostdin", "-v", "error", "-y"] + arguments + [partial], timeout: 300)
        guard result.status == 0, rename(partial, path) == 0 else {
            try? FileManager.default.removeItem(atPath: partial)
            throw FixtureError(description: "ffmpeg could not make \(name): \(result.stderr)")
        }
    }

    /// A fresh empty folder for one test's recordings.
    static func newFolder(_ name: String) -> String {
        let url = directory.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    /// What `ffmpeg -i X -map 0:v:0 -f framemd5 -` lists: the MD5 of each frame, in order.
    static func frameMD5s(_ path: String) throws -> [String] {
        let result = try Command.run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-map", "0:v:0", "-f", "framemd5", "-"])
        guard result.status == 0 else { throw FixtureError(description: "framemd5 failed: \(result.stderr)") }
        return result.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// pts (seconds) of each video frame as ffprobe lists them, in presentation order.
    static func framePts(_ path: String, keyframesOnly: Bool = false) throws -> [Double] {
        var arguments = ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time,key_frame", "-of", "csv=p=0"]
        if keyframesOnly { arguments += ["-skip_frame", "nokey"] }
        let result = try Command.run(arguments + [path])
        return result.stdout.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",")
            guard fields.count == 2, let pts = Double(fields[1]) else { return nil }
            return keyframesOnly && fields[0] != "1" ? nil : pts
        }.sorted()
    }

    /// Interleaved float samples of the first audio stream, as ffmpeg decodes it.
    static func decodedSamples(_ path: String, channels: Int) throws -> [Float] {
        let raw = directory.appendingPathComponent("decoded-\(UUID().uuidString).f32").path
        defer { try? FileManager.default.removeItem(atPath: raw) }
        let result = try Command.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", path, "-map", "0:a:0",
                                      "-ac", "\(channels)", "-f", "f32le", raw])
        guard result.status == 0 else { throw FixtureError(description: "decode failed: \(result.stderr)") }
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }
}

/// The clips the integration tests play.
enum Clips {
    static func video(_ codec: String, size: String = "320x240", seconds: Double = 2) throws -> String {
        // testsrc2 rounds its size to even numbers; testsrc keeps an odd one.
        let pattern = size.split(separator: "x").contains { Int($0)! % 2 == 1 } ? "testsrc" : "testsrc2"
        let source = ["-f", "lavfi", "-i", "\(pattern)=size=\(size):rate=25:duration=\(seconds)"]
        switch codec {
        case "h264":
            return try Fixtures.clip("h264-bframes-\(size).mp4", source + ["-c:v", "libx264", "-preset", "fast", "-bf", "3", "-g", "25", "-pix_fmt", "yuv420p"])
        case "h264-444":
            return try Fixtures.clip("h264-444-\(size).mp4", source + ["-c:v", "libx264", "-preset", "fast", "-pix_fmt", "yuv444p"])
        case "hevc":
            return try Fixtures.clip("hevc-\(size).mp4", source + ["-c:v", "libx265", "-preset", "fast", "-x265-params", "log-level=error", "-pix_fmt", "yuv420p"])
        case "hevc10":
            return try Fixtures.clip("hevc10-\(size).mkv", source + ["-c:v", "libx265", "-preset", "fast", "-x265-params", "log-level=error", "-pix_fmt", "yuv420p10le"])
        case "vp9":
            return try Fixtures.clip("vp9-\(size).webm", source + ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "500k"])
        case "av1":
            return try Fixtures.clip("av1-\(size).mkv", source + ["-c:v", "libaom-av1", "-cpu-used", "8", "-row-mt", "1", "-b:v", "300k"])
        default:
            throw FixtureError(description: "no clip for codec \(codec)")
        }
    }

    /// Picture and a continuous 440 Hz tone: H.264 (1 s GOP) + AAC in MP4.
    static func audioVideo(seconds: Double = 3) throws -> String {
        try Fixtures.clip("av-\(seconds).mp4", [
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=\(seconds)",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)",
            "-c:v", "libx264", "-preset", "fast", "-g", "25", "-pix_fmt", "yuv420p",
            "-c:a", "aac", "-b:a", "96k", "-ac", "2", "-shortest"])
    }

    /// A picture and two soundtracks: 440 Hz, then 880 Hz (mono AAC).
    static func twoSoundtracks(seconds: Double) throws -> String {
        try Fixtures.clip("two-soundtracks-\(seconds).mp4", [
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=\(seconds)",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)",
            "-f", "lavfi", "-i", "sine=frequency=880:sample_rate=48000:duration=\(seconds)",
            "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"])
    }

    /// Black picture with a white frame, and a 1 kHz beep, at 0.5, 1.5, 2.5 and 3.5 s.
    static func flashAndBeep() throws -> String {
        try Fixtures.clip("flash-beep.mp4", [
            "-f", "lavfi", "-i", "color=c=black:size=160x120:rate=30:duration=4,drawbox=c=white:t=fill:enable='between(mod(t\\,1)\\,0.49\\,0.51)'",
            "-f", "lavfi", "-i", "aevalsrc='0.8*sin(2*PI*1000*t)*between(mod(t\\,1)\\,0.5\\,0.6)':s=48000:d=4",
            "-c:v", "libx264", "-preset", "fast", "-g", "30", "-pix_fmt", "yuv420p",
            "-c:a", "aac", "-b:a", "128k", "-ac", "1"])
    }
}
