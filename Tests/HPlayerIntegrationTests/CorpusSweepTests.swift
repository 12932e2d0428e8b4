import Foundation
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
        @Test("Each corpus file plays to its end or fails with a one-line error, within a time bound",
              arguments: Corpus.entries)
        func playsOrFailsCleanly(_ entry: Corpus.Entry) throws {
            let path = Corpus.folder! + "/" + entry.path
            let result = try Command.run([Command.hplayer, "play", path, "--vo", "null", "--ao", "null", "--untimed", "--no-status"],
                                         timeout: 60)
            #expect(!result.timedOut, "hung")
            #expect(result.status == 0 || result.status == 1, "crashed: status \(result.status), stderr: \(result.stderr.suffix(500))")
            if entry.ffmpegDecodes {
                #expect(result.status == 0, "ffmpeg decodes it (\(entry.reference)); hplayer: \(result.stderr.suffix(300))")
            }
            if result.status == 1 {
                let lines = result.stderr.split(separator: "\n")
                #expect(lines.count == 1 && lines[0].hasPrefix("hplayer: error: \(path): "), "stderr: \(result.stderr)")
            }
        }
    }
}
