import Foundation
import HPlayerKit
import HPlayerTestSupport
import Testing

/// The media of ../shared/corpus, and what FFmpeg 5.1 itself does with each (MANIFEST.tsv).
enum Corpus {
    struct Entry: Sendable, CustomTestStringConvertible {
        var path: String
        var reference: String
        var ffmpegDecodes: Bool { reference.hasPrefix("ffmpeg decodes") }
        var testDescription: String { path }
    }

    static let folder: String? = {
        if let path = ProcessInfo.processInfo.environment["HPLAYER_CORPUS"] { return path }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let path = root.deletingLastPathComponent().appendingPathComponent("shared/corpus").path
        return FileManager.default.fileExists(atPath: path + "/MANIFEST.tsv") ? path : nil
    }()

    /// Every playable entry: HLS segments and variant playlists are played through their master.
    static let entries: [Entry] = {
        guard let folder, let manifest = try? String(contentsOfFile: folder + "/MANIFEST.tsv", encoding: .utf8) else { return [] }
        return manifest.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count >= 4, !fields[3].hasPrefix("(part of") else { return nil }
            return Entry(path: String(fields[0]), reference: String(fields[3]))
        }
    }()
}

extension Playback {
    @Suite(.enabled(if: Corpus.folder != nil, "../shared/corpus is not here"))
    struct CorpusSweep {
        @Test("Each corpus file plays to its end or fails with a one-line error, untimed, within a minute",
              arguments: Corpus.entries)
        func untimed(_ entry: Corpus.Entry) throws {
            let path = Corpus.folder! + "/" + entry.path
            let result = try Command.run([Command.hplayer, "play", path, "--vo", "null", "--ao", "null", "--untimed", "--no-status"],
                                         timeout: 60)
            check(result, entry: entry, path: path)
        }

        /// At real speed the clock and the buffering rules come into play too (waits a timestamp
        /// jump would make endless, a queue that stays full). Six files play at once, each on a
        /// thread of its own (waiting on a process would starve the task pool).
        @Test("Each corpus file plays to its end at real speed, within twice its duration", .realTime)
        func realSpeed() throws {
            let pending = Locked(Corpus.entries[...])
            let results = Locked<[(Corpus.Entry, String, CommandResult)]>([])
            let workers = (0..<6).map { _ in
                JoinableThread(name: "corpus-sweep") {
                    while let entry = pending.withLock({ $0.popFirst() }) {
                        let path = Corpus.folder! + "/" + entry.path
                        let duration = (try? MediaProbe.probe(url: path).duration ?? 30) ?? 1
                        guard let result = try? Command.run([Command.hplayer, "play", path, "--vo", "null", "--ao", "null", "--no-status"],
                                                            timeout: 2 * duration + 15) else { continue }
                        results.withLock { $0.append((entry, path, result)) }
                    }
                }
            }
            workers.forEach { $0.join() }
            let finished = results.withLock { $0 }
            #expect(finished.count == Corpus.entries.count)
            for (entry, path, result) in finished { check(result, entry: entry, path: path) }
        }

        private func check(_ result: CommandResult, entry: Corpus.Entry, path: String) {
            #expect(!result.timedOut, "\(entry.path) hung")
            #expect(result.status == 0 || result.status == 1, "\(entry.path) crashed: status \(result.status), stderr: \(result.stderr.suffix(500))")
            if entry.ffmpegDecodes {
                #expect(result.status == 0, "ffmpeg decodes \(entry.path) (\(entry.reference)); hplayer: \(result.stderr.suffix(300))")
            }
            if result.status == 1 {
                // Warnings of what went wrong while decoding may come first; the error is one line, the last.
                let lines = result.stderr.split(separator: "\n")
                let errors = lines.filter { $0.hasPrefix("hplayer: error: ") }
                #expect(errors.count == 1 && lines.last == errors.first && errors[0].hasPrefix("hplayer: error: \(path): "),
                        "stderr: \(result.stderr)")
            }
        }
    }
}
