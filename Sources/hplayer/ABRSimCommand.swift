import ArgumentParser
import FoundationEssentials
import Glibc
import HPlayerKit

/// `hplayer abr-sim`: the bitrate policies, the real code, played over throughput traces by the
/// trace-driven simulator; the mean figures per trace set and policy.
struct ABRSimCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "abr-sim",
        abstract: "Compare the HLS bitrate policies over throughput traces (files or folders of them: each folder is a set).")

    @Argument(help: "Trace files (\"<seconds>\\t<Mbit/s>\" lines) or folders of them.") var traces: [String]
    @Option(help: "The ladder: pensieve (300 to 4300 kb/s, 4 s segments), or a local HLS master playlist or DASH MPD whose segment files give the sizes.")
    var ladder = "pensieve"
    @Option(help: "Segments played per session with the pensieve ladder.") var segments = 48
    @Option(name: .customLong("policy"), help: "A policy (seed, throughput, bola, auto), or all.") var policyName = "all"
    @Option(help: "Seconds buffered ahead at most.") var maxBuffer = 30.0
    @Option(help: "Seconds of round trip before each download's first byte.") var latency = 0.08
    @Flag(help: "A line per session too, ending with the rung of each segment.") var perTrace = false
    @Flag(help: "Also what a player that knew the whole trace could play (ABROfflinePlan: a reference, not a policy).") var offline = false
    @OptionGroup var common: CommonOptions

    func validate() throws {
        guard segments >= 1 else { throw ValidationError("--segments: at least 1") }
        guard maxBuffer > 0, maxBuffer.isFinite else { throw ValidationError("--max-buffer: a number of seconds above 0") }
        guard latency >= 0, latency.isFinite else { throw ValidationError("--latency: a number of seconds, 0 or more") }
    }

    func run() throws {
        common.bootstrapLogging()
        let policies: [ABRPolicy]
        if policyName == "all" {
            policies = ABRPolicy.compared
        } else if let policy = ABRPolicy(policyName) {
            policies = [policy]
        } else {
            throw CommandLineFailure.usage(input: "--policy", reason: "\(policyName): not seed, throughput, bola, auto or all")
        }
        let ladder = try loadLadder()
        let sets = try loadSets()
        var simulator = ABRSimulator()
        simulator.maxBuffer = maxBuffer
        simulator.latency = latency
        // The first estimate is the master playlist's download, as the player's.
        if let size = Self.fileSize(self.ladder) { simulator.playlistBytes = Double(size) }
        print("ladder \(ladder.name): \(ladder.bitrates.map { "\(Int($0 / 1000))" }.joined(separator: " ")) kb/s, "
              + "\(ladder.sizes.count) segments of \(DecimalText.fixed(ladder.segmentDuration, places: 1)) s")
        print(["set", "policy", "sessions", "QoE_lin", "Mb/s", "rebuffer %", "switches/min", "startup s"].joined(separator: "\t"))
        for (set, traces) in sets {
            for policy in policies {
                report(set: set, policy: policy.name, traces: traces, traces.map { simulator.run(policy, ladder: ladder, trace: $0) })
            }
            if offline {
                report(set: set, policy: "offline", traces: traces, traces.map { ABROfflinePlan.run(ladder: ladder, trace: $0, simulator: simulator) })
            }
        }
    }

    /// A set's line of means for `policy`, after a line per session with --per-trace.
    private func report(set: String, policy: String, traces: [ThroughputTrace], _ results: [ABRSessionResult]) {
        if perTrace {
            for (trace, result) in zip(traces, results) {
                print(Self.row(set: "\(set)/\(trace.name)", policy: policy, [result]) + "\t" + result.rungs.map(String.init).joined())
            }
        }
        print(Self.row(set: set, policy: policy, results))
    }

    /// Means over the sessions, tab-separated.
    static func row(set: String, policy: String, _ results: [ABRSessionResult]) -> String {
        func mean(_ value: (ABRSessionResult) -> Double) -> Double {
            results.isEmpty ? 0 : results.reduce(0) { $0 + value($1) } / Double(results.count)
        }
        return [set, policy, "\(results.count)", DecimalText.fixed(mean(\.qoe), places: 2), DecimalText.fixed(mean(\.averageBitrate), places: 3),
                DecimalText.fixed(100 * mean(\.rebufferRatio), places: 2), DecimalText.fixed(mean(\.switchesPerMinute), places: 2),
                DecimalText.fixed(mean(\.startupDelay), places: 2)].joined(separator: "\t")
    }

    /// The traces by set: a folder's files make a set named after it; files given alone, "traces".
    private func loadSets() throws -> [(String, [ThroughputTrace])] {
        var sets: [(String, [ThroughputTrace])] = []
        var loose: [ThroughputTrace] = []
        for path in traces {
            var status = stat()
            guard stat(path, &status) == 0 else {
                throw CommandLineFailure.media(MediaError(input: path, reason: "no such file or folder"))
            }
            if status.st_mode & S_IFMT == S_IFDIR {
                let names = try FileManager.default.contentsOfDirectory(atPath: path).filter { !$0.hasPrefix(".") }.sorted()
                let set = try names.map { try Self.trace(at: path + "/" + $0) }
                sets.append((MediaMetadata.fileName(of: path), set))
            } else {
                loose.append(try Self.trace(at: path))
            }
        }
        if !loose.isEmpty { sets.append(("traces", loose)) }
        return sets
    }

    private static func trace(at path: String) throws -> ThroughputTrace {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw CommandLineFailure.media(MediaError(input: path, reason: "cannot be read"))
        }
        guard let trace = ThroughputTrace(name: MediaMetadata.fileName(of: path), text: text) else {
            throw CommandLineFailure.media(MediaError(input: path, reason: "not a throughput trace (lines of \"<seconds>\\t<Mbit/s>\")"))
        }
        return trace
    }

    /// Pensieve's ladder, or a local HLS master playlist's or DASH MPD's (ABRLadderFile).
    private func loadLadder() throws -> ABRLadder {
        if ladder == "pensieve" { return .pensieve(segments: segments) }
        return ladder.lowercased().hasSuffix(".mpd") ? try ABRLadderFile.dash(ladder) : try ABRLadderFile.hls(ladder)
    }

    /// A regular file's size in bytes; nil where there is none.
    static func fileSize(_ path: String) -> Int? {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(status.st_size)
    }
}
