import Foundation
import HPlayerIPC
import HPlayerKit
import HPlayerTestSupport
import Testing

extension Playback {
    /// Several files, folders and playlist files: each plays whole, in order, frame-exact.
    @Suite(.timeLimit(.minutes(2))) struct Playlists {
        /// Three short clips of different pictures, named out of natural order on purpose.
        static func clips() throws -> [String] {
            try [("testsrc2", "1"), ("smptebars", "2"), ("testsrc", "10")].map { pattern, number in
                try Fixtures.clip("playlist-\(number).mp4", ["-f", "lavfi", "-i", "\(pattern)=size=160x120:rate=25:duration=1",
                                                            "-c:v", "libx264", "-g", "25", "-pix_fmt", "yuv420p"])
            }
        }

        static func run(_ arguments: [String], folder: String, timeout: Double = 60) throws -> CommandResult {
            try Command.run([Command.hplayer] + arguments + ["--vo", "record:\(folder)", "--ao", "null", "--untimed", "--no-status"],
                            timeout: timeout)
        }

        static func presented(_ folder: String) throws -> [String] {
            try String(contentsOfFile: folder + "/video.tsv", encoding: .utf8).split(separator: "\n").map { String($0.split(separator: "\t")[2]) }
        }

        @Test("Several files on the command line play one after the other, each whole: the frames ffmpeg decodes from each, in the order given")
        func severalFiles() throws {
            let clips = try Self.clips()
            let folder = Fixtures.newFolder("playlist-files")
            let result = try Self.run([clips[2], clips[0], clips[1]], folder: folder)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try Self.presented(folder) == [clips[2], clips[0], clips[1]].flatMap { try Fixtures.frameMD5s($0) })
        }

        @Test("A folder plays its media files in natural order (1, 2, 10), leaving other files and hidden ones out, and a link back to itself not followed round")
        func folder() throws {
            let clips = try Self.clips()
            let media = Fixtures.newFolder("playlist-folder-media")
            for (clip, name) in zip(clips, ["ep1.mp4", "ep2.mp4", "ep10.mp4"]) { try FileManager.default.copyItem(atPath: clip, toPath: media + "/" + name) }
            try "notes".write(toFile: media + "/readme.txt", atomically: true, encoding: .utf8)
            try FileManager.default.copyItem(atPath: clips[0], toPath: media + "/.hidden.mp4")
            // A link back to the folder itself: listed once, not followed round.
            try FileManager.default.createSymbolicLink(atPath: media + "/again", withDestinationPath: media)
            let folder = Fixtures.newFolder("playlist-folder")
            let result = try Self.run([media], folder: folder)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try Self.presented(folder) == clips.flatMap { try Fixtures.frameMD5s($0) })
        }

        @Test("An M3U playlist (relative and absolute paths) and a PLS play their entries; a missing entry is skipped with its error line, and the exit is mpv's 3 (some failed)")
        func playlistFiles() throws {
            let clips = try Self.clips()
            let lists = Fixtures.newFolder("playlist-lists")
            try FileManager.default.copyItem(atPath: clips[1], toPath: lists + "/second.mp4")
            try "#EXTM3U\n#EXTINF:1,First\n\(clips[0])\nsecond.mp4\nmissing.mp4\n".write(toFile: lists + "/list.m3u8", atomically: true, encoding: .utf8)
            try "[playlist]\nNumberOfEntries=1\nFile1=\(clips[2])\n".write(toFile: lists + "/more.pls", atomically: true, encoding: .utf8)
            let folder = Fixtures.newFolder("playlist-lists-played")
            let result = try Self.run([lists + "/list.m3u8", lists + "/more.pls"], folder: folder)
            #expect(result.status == 3, "\(result.stderr)")
            let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("hplayer: error: ") }
            #expect(errors == ["hplayer: error: \(lists)/missing.mp4: No such file or directory"], "\(result.stderr)")
            #expect(try Self.presented(folder) == clips.flatMap { try Fixtures.frameMD5s($0) })
        }

        @Test("An M3U and a PLS served over HTTP (nginx) play their entries: relative ones from the playlist's folder on the server, one naming the server's root from there, in order, frame-exact; a local file they name is refused with one error line")
        func remotePlaylists() throws {
            let clips = try Self.clips()
            let site = Fixtures.newFolder("playlist-remote")
            try FileManager.default.createDirectory(atPath: site + "/lists/media", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: clips[0], toPath: site + "/lists/media/one.mp4")
            try FileManager.default.copyItem(atPath: clips[1], toPath: site + "/two.mp4")
            try FileManager.default.copyItem(atPath: clips[2], toPath: site + "/lists/three.mp4")
            try "#EXTM3U\n#EXTINF:1,One\nmedia/one.mp4\n/two.mp4\nfile://\(clips[0])\n".write(toFile: site + "/lists/list.m3u", atomically: true, encoding: .utf8)
            try "[playlist]\nNumberOfEntries=1\nFile1=three.mp4\n".write(toFile: site + "/lists/more.pls", atomically: true, encoding: .utf8)
            let server = try NginxServer(root: site)
            let folder = Fixtures.newFolder("playlist-remote-played")
            let result = try Self.run([server.url("lists/list.m3u"), server.url("lists/more.pls?from=test")], folder: folder)
            #expect(result.status == 0, "\(result.stderr)")
            let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("hplayer: error: ") }
            #expect(errors.count == 1 && errors[0].contains("a remote document may not name a local file"), "\(result.stderr)")
            #expect(try Self.presented(folder) == clips.flatMap { try Fixtures.frameMD5s($0) })
        }

        @Test("--ao and --vo record:DIR hold every file of the run, one after the other: one WAV whose header counts all the samples, the frames of each; nothing of an earlier run")
        func recordingsGoOnAcrossFiles() throws {
            let first = try Clips.audioVideo(seconds: 2)
            let second = try Clips.audioVideo(seconds: 3)
            let folder = Fixtures.newFolder("playlist-recorded")
            try "stale\tline\tfrom an earlier run\n".write(toFile: folder + "/video.tsv", atomically: true, encoding: .utf8)
            let result = try Command.run([Command.hplayer, "/nonexistent/first.mp4", first, second, "--vo", "record:\(folder)",
                                          "--ao", "record:\(folder)", "--untimed", "--no-status"], timeout: 60)
            #expect(result.status == 3, "\(result.stderr)")
            #expect(try Self.presented(folder) == [first, second].flatMap { try Fixtures.frameMD5s($0) })
            let wav = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/audio.wav")))
            let dataBytes = wav[40..<44].reversed().reduce(0) { $0 << 8 | Int($1) }
            #expect(wav.count == 44 + dataBytes, "the header counts \(dataBytes) bytes of samples in a file of \(wav.count)")
            let riffs = (0..<(wav.count - 4)).filter { wav[$0..<$0 + 4].elementsEqual("RIFF".utf8) }
            #expect(riffs == [0], "headers at \(riffs)")
            let callbacks = try String(contentsOfFile: folder + "/audio.tsv", encoding: .utf8).split(separator: "\n")
            let samples = callbacks.map { Int($0.split(separator: "\t")[2])! }.reduce(0, +)
            #expect(dataBytes == samples * 2 * 4, "stereo float samples: \(samples)")
            #expect(Double(samples) / 48000 > 4.9, "\(Double(samples) / 48000) s of sound for 5 s of files")
        }

        @Test("When no file of several plays, the exit is mpv's 2, with a line for each")
        func allFail() throws {
            let result = try Command.run([Command.hplayer, "/nonexistent/a.mp4", "/nonexistent/b.mp4", "--vo", "null", "--ao", "null", "--no-status"])
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").filter { $0.hasPrefix("hplayer: error: /nonexistent/") }.count == 2, "\(result.stderr)")
        }

        @Test("--loop-playlist=2 plays the list twice; --playlist-start=1 starts at the second entry; --playlist=FILE reads a path a line")
        func loopStartAndPlaylistOption() throws {
            let clips = try Self.clips()
            let looped = Fixtures.newFolder("playlist-loop")
            #expect(try Self.run([clips[0], clips[1], "--loop-playlist=2"], folder: looped).status == 0)
            let once = try [clips[0], clips[1]].flatMap { try Fixtures.frameMD5s($0) }
            #expect(try Self.presented(looped) == once + once)
            let started = Fixtures.newFolder("playlist-start")
            let list = Fixtures.newFolder("playlist-option") + "/files.txt"
            try clips.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
            #expect(try Self.run(["--playlist", list, "--playlist-start", "1"], folder: started).status == 0)
            #expect(try Self.presented(started) == [clips[1], clips[2]].flatMap { try Fixtures.frameMD5s($0) })
        }

        @Test("--shuffle plays every entry once, each whole, in some order")
        func shuffle() throws {
            let clips = try Self.clips()
            let folder = Fixtures.newFolder("playlist-shuffle")
            #expect(try Self.run(clips + ["--shuffle"], folder: folder).status == 0)
            let presented = try Self.presented(folder)
            let each = try clips.map { try Fixtures.frameMD5s($0) }
            // Some order of the three files, each whole.
            let orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]
            #expect(orders.contains { order in order.flatMap { each[$0] } == presented })
        }

        @Test("--volume and --mute start the first file; the volume, muting and speed then go on to the next file, as mpv's",
              .timeLimit(.minutes(1)))
        func settingsGoOnFromFileToFile() throws {
            let clips = try [("testsrc2", "a"), ("smptebars", "b")].map { pattern, name in
                try Fixtures.clip("playlist-long-\(name).mp4", ["-f", "lavfi", "-i", "\(pattern)=size=160x120:rate=25:duration=30",
                                                               "-c:v", "libx264", "-g", "25", "-pix_fmt", "yuv420p"])
            }
            let socket = Fixtures.newFolder("playlist-settings") + "/hplayer.sock"
            let process = try BackgroundProcess([Command.hplayer] + clips + ["--vo", "null", "--ao", "null", "--no-status",
                                                                             "--volume", "30", "--mute", "--input-ipc-server", socket])
            let client = try IPCClient(path: socket)
            #expect(client.waitUntilLoaded())
            func read(_ name: String) -> JSONValue? { client.request([.string("get_property"), .string(name)])?["data"] }
            #expect(read("volume") == .number(30))
            #expect(read("mute") == .bool(true))
            #expect(client.request([.string("set_property"), .string("volume"), .number(55)])?["error"] == .string("success"))
            #expect(client.request([.string("set_property"), .string("speed"), .number(1.5)])?["error"] == .string("success"))
            client.events.removeAll()
            #expect(client.request([.string("playlist-next")])?["error"] == .string("success"))
            #expect(client.event("file-loaded") != nil)
            #expect(read("playlist-pos") == .number(1))
            #expect(read("volume") == .number(55))
            #expect(read("mute") == .bool(true))
            #expect(read("speed") == .number(1.5))
            #expect(client.request([.string("quit")])?["error"] == .string("success"))
            #expect(process.wait(timeout: 10) == 0, "\(process.stderr)")
        }

        @Test("IPC: playlist, playlist-pos and -count as mpv's; playlist-next, -prev, -move, -remove and setting playlist-pos play where they say; end-file says stop",
              .timeLimit(.minutes(1)))
        func overTheIPC() throws {
            // Long enough that each stays playing until a command moves on.
            let clips = try [("testsrc2", "a"), ("smptebars", "b"), ("testsrc", "c")].map { pattern, name in
                try Fixtures.clip("playlist-long-\(name).mp4", ["-f", "lavfi", "-i", "\(pattern)=size=160x120:rate=25:duration=30",
                                                               "-c:v", "libx264", "-g", "25", "-pix_fmt", "yuv420p"])
            }
            let socket = Fixtures.newFolder("playlist-ipc") + "/hplayer.sock"
            let process = try BackgroundProcess([Command.hplayer] + clips + ["--vo", "null", "--ao", "null", "--no-status",
                                                                             "--input-ipc-server", socket])
            let client = try IPCClient(path: socket)
            #expect(client.waitUntilLoaded())
            func playing() -> String? {
                guard case .array(let entries)? = client.request([.string("get_property"), .string("playlist")])?["data"] else { return nil }
                let current = entries.filter { $0["current"] == .bool(true) }
                return current.count == 1 ? current[0]["filename"]?.string : nil
            }
            func waitForFile(_ path: String) -> Bool {
                eventually(timeout: 10) { playing() == path && client.request([.string("get_property"), .string("time-pos")])?["error"] == .string("success") }
            }
            #expect(client.request([.string("get_property"), .string("playlist-count")])?["data"] == .number(3))
            #expect(client.request([.string("get_property"), .string("playlist-pos")])?["data"] == .number(0))
            #expect(playing() == clips[0])
            client.events.removeAll()
            #expect(client.request([.string("playlist-next")])?["error"] == .string("success"))
            #expect(client.event("end-file")?["reason"] == .string("stop"))
            #expect(waitForFile(clips[1]))
            #expect(client.request([.string("playlist-prev")])?["error"] == .string("success"))
            #expect(waitForFile(clips[0]))
            #expect(client.request([.string("playlist-prev")])?["error"] == .string("error running command"))
            // The last entry first: c, a, b; the one playing (a) is now at 1.
            #expect(client.request([.string("playlist-move"), .number(2), .number(0)])?["error"] == .string("success"))
            #expect(client.request([.string("get_property"), .string("playlist-pos")])?["data"] == .number(1))
            #expect(client.request([.string("set_property"), .string("playlist-pos"), .number(0)])?["error"] == .string("success"))
            #expect(waitForFile(clips[2]))
            #expect(client.request([.string("playlist-remove"), .number(1)])?["error"] == .string("success"))
            #expect(client.request([.string("get_property"), .string("playlist-count")])?["data"] == .number(2))
            #expect(client.request([.string("playlist-remove"), .string("current")])?["error"] == .string("success"))
            #expect(waitForFile(clips[1]))
            #expect(client.request([.string("playlist-next")])?["error"] == .string("error running command"))
            #expect(client.request([.string("playlist-next"), .string("force")])?["error"] == .string("success"))
            #expect(process.wait(timeout: 10) == 0, "\(process.stderr)")
        }
    }
}
