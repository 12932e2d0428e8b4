import Foundation
import HPlayerKit
import HPlayerTestSupport

/// Runs a program to its end (or kills it after `timeout` seconds) and gives back what it wrote.
struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var timedOut: Bool
}

enum Command {
    static func run(_ arguments: [String], timeout: Double = 120) throws -> CommandResult {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hplayer-cmd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outURL = folder.appendingPathComponent("out")
        let errURL = folder.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        // A disk cache of its own, gone with it: a test server may come back on a port an
        // earlier one used, and what that one served must not be played from the cache.
        process.environment = ProcessInfo.processInfo.environment.merging(["XDG_CACHE_HOME": folder.path]) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = MonotonicClock.now() + timeout
        var timedOut = false
        while process.isRunning {
            if MonotonicClock.now() > deadline {
                timedOut = true
                process.terminate()
                MonotonicClock.sleep(until: MonotonicClock.now() + 1)
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                break
            }
            MonotonicClock.sleep(until: MonotonicClock.now() + 0.01)
        }
        process.waitUntilExit()
        return CommandResult(status: process.terminationStatus,
                             stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
                             stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "",
                             timedOut: timedOut)
    }

    /// The `hplayer` built beside the tests (or $HPLAYER_BIN).
    static var hplayer: String {
        if let path = ProcessInfo.processInfo.environment["HPLAYER_BIN"] { return path }
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if folder.lastPathComponent == "MacOS" || folder.pathExtension == "xctest" { folder.deleteLastPathComponent() }
        return folder.appendingPathComponent("hplayer").path
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
}
