import Foundation
import HPlayerKit
import HPlayerTestSupport

/// A program left running while a test drives it.
final class BackgroundProcess: @unchecked Sendable {
    private let process = Process()
    private let folder: URL

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("hplayer-bg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: folder.appendingPathComponent("out").path, contents: nil)
        _ = FileManager.default.createFile(atPath: folder.appendingPathComponent("err").path, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        // A disk cache of its own, as for Command.run.
        process.environment = ProcessInfo.processInfo.environment.merging(["XDG_CACHE_HOME": folder.path]) { $1 }.merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: folder.appendingPathComponent("out"))
        process.standardError = try FileHandle(forWritingTo: folder.appendingPathComponent("err"))
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// SIGTERM, then SIGKILL after half a second. A program started from the test process
    /// inherits its signal mask, in which SIGTERM is blocked: a script that does not unblock it
    /// (live-sender.py, rtsp-server.py) would outlive its test.
    private func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = MonotonicClock.now() + 0.5
        while process.isRunning, MonotonicClock.now() < deadline { MonotonicClock.sleep(until: MonotonicClock.now() + 0.01) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    var isRunning: Bool { process.isRunning }
    /// The program's own: /usr/bin/env execs it in place.
    var processIdentifier: Int32 { process.processIdentifier }

    func send(signal: Int32) { kill(process.processIdentifier, signal) }

    /// Sends `signal` once the program catches it (as /proc says: SigCgt), waiting up to
    /// `timeout` seconds for that. Sent sooner, while the mask the program inherited
    /// from the test process still blocks it, it would stay pending, and be dropped as the
    /// program set it to be ignored: a slow start (a sanitizer's build, a busy machine) lost
    /// Ctrl-C so. False when the program never came to handle it (the signal is sent anyway), or
    /// had ended.
    @discardableResult
    func sendWhenHandled(signal: Int32, timeout: Double = 30) -> Bool {
        let bit = UInt64(1) << UInt64(signal - 1)
        var handled = false
        _ = eventually(timeout: timeout) {
            guard process.isRunning else { return true }
            guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8) else { return false }
            let masks = status.split(separator: "\n").compactMap { line -> UInt64? in
                guard line.hasPrefix("SigCgt:") else { return nil }
                return UInt64(line.split(separator: "\t").last ?? "", radix: 16)
            }
            handled = masks.contains { $0 & bit != 0 }
            return handled
        }
        send(signal: signal)
        return handled
    }
    var stderr: String { (try? String(contentsOf: folder.appendingPathComponent("err"), encoding: .utf8)) ?? "" }
    var stdout: String { (try? String(contentsOf: folder.appendingPathComponent("out"), encoding: .utf8)) ?? "" }

    /// Waits up to `timeout` seconds for the program to end: its exit status, nil when it did not.
    func wait(timeout: Double) -> Int32? {
        let deadline = MonotonicClock.now() + timeout
        while process.isRunning, MonotonicClock.now() < deadline { MonotonicClock.sleep(until: MonotonicClock.now() + 0.01) }
        if process.isRunning {
            stop()
            return nil
        }
        return process.terminationStatus
    }
}

/// The X server and sound server the desktop tests drive (the test command starts them).
enum Desktop {
    /// Why the desktop tests cannot run here, or nil when they can.
    static let unavailableReason: String? = {
        guard let display = ProcessInfo.processInfo.environment["DISPLAY"], !display.isEmpty,
              (try? Command.run(["xdpyinfo"], timeout: 10))?.status == 0 else { return "no X display (./scripts/test.sh starts Xvfb)" }
        guard (try? Command.run(["pactl", "info"], timeout: 10))?.status == 0 else { return "no sound server (./scripts/test.sh starts PulseAudio)" }
        for tool in ["xdotool", "xwininfo", "import", "parec"] where (try? Command.run(["which", tool]))?.status != 0 {
            return "\(tool) is not installed"
        }
        return nil
    }()

    /// The null sink the tests record from.
    static var sink: String { ProcessInfo.processInfo.environment["HPLAYER_TEST_SINK"] ?? "hplayer_test" }

    struct Window {
        var id: String
        var x: Int
        var y: Int
        var width: Int
        var height: Int
    }

    /// The window whose title is `title`, once it has appeared. xdotool's search asks each
    /// window for its name, and fails with BadWindow when one of them (another test's player,
    /// closing) is gone by then: that search is made again, not taken as an answer.
    static func window(titled title: String, timeout: Double = 15) throws -> Window {
        let deadline = MonotonicClock.now() + timeout
        while true {
            let left = max(1, deadline - MonotonicClock.now())
            let found = try Command.run(["timeout", "\(left)", "xdotool", "search", "--sync", "--name", "^\(title)$"], timeout: left + 5)
            if found.status == 0, let id = found.stdout.split(separator: "\n").first.map(String.init) { return try describe(id) }
            guard found.stderr.contains("BadWindow"), MonotonicClock.now() < deadline else {
                throw FixtureError(description: "no window titled \(title): \(found.stderr)")
            }
        }
    }

    static func describe(_ id: String) throws -> Window {
        let info = try Command.run(["xwininfo", "-id", id])
        func field(_ name: String) -> Int {
            info.stdout.split(separator: "\n").first { $0.contains(name) }
                .flatMap { Int($0.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) } ?? -1
        }
        return Window(id: id, x: field("Absolute upper-left X"), y: field("Absolute upper-left Y"),
                      width: field("Width"), height: field("Height"))
    }

    /// The window's pixels, 8-bit RGB, row after row.
    static func screenshot(_ window: Window) throws -> [UInt8] {
        let path = Fixtures.newFolder("shot") + "/window.rgb"
        let result = try Command.run(["import", "-window", window.id, "-depth", "8", "rgb:" + path])
        guard result.status == 0 else { throw FixtureError(description: "import failed: \(result.stderr)") }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Presses `key` (an xdotool key name) in the window.
    static func press(_ key: String, in window: Window) throws {
        _ = try Command.run(["xdotool", "windowfocus", "--sync", window.id])
        _ = try Command.run(["xdotool", "key", key])
    }

    /// What the null sink plays, as 48 kHz mono samples, recorded for `seconds`.
    static func recordSink(seconds: Double) throws -> [Float] {
        let path = Fixtures.newFolder("sink") + "/sink.raw"
        _ = try Command.run(["sh", "-c", "timeout \(seconds) parec -d \(sink).monitor --format=s16le --rate=48000 --channels=1 --raw > \(path)"],
                            timeout: seconds + 10)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return data.withUnsafeBytes { $0.bindMemory(to: Int16.self).map { Float($0) / 32768 } }
    }
}

/// Measures on recorded sound.
enum Sound {
    static func rms(_ samples: ArraySlice<Float>) -> Double {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }

    /// The amplitude of one frequency in a block (Goertzel): 0.5 for a half-scale sine at it.
    static func amplitude(of frequency: Double, in samples: ArraySlice<Float>, rate: Double) -> Double {
        let coefficient = 2 * cos(2 * Double.pi * frequency / rate)
        var previous = 0.0, beforePrevious = 0.0
        for sample in samples {
            let current = Double(sample) + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
        return 2 * max(0, power).squareRoot() / Double(samples.count)
    }

    /// The frequency of a steady tone, from its rising zero crossings.
    static func toneFrequency(_ samples: ArraySlice<Float>, rate: Double) -> Double {
        let crossings = zip(samples, samples.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
        return Double(crossings) / (Double(samples.count) / rate)
    }
}
