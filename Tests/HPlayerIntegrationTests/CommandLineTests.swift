import Foundation
import HPlayerKit
import HPlayerTestSupport
import Testing

extension Playback {
    @Suite struct CommandLine {
        /// Runs hplayer with null outputs unless the arguments name others (so no window opens and
        /// no sound plays); bad input must end within the time bound, never hang.
        func hplayer(_ arguments: String..., timeout: Double = 60) throws -> CommandResult {
            var arguments = arguments
            if arguments.first != "probe", arguments.first != "bench" {
                if !arguments.contains("--vo") { arguments += ["--vo", "null"] }
                if !arguments.contains("--ao") { arguments += ["--ao", "null"] }
            }
            let result = try Command.run([Command.hplayer] + arguments, timeout: timeout)
            #expect(!result.timedOut, "hplayer \(arguments) did not end within \(timeout) s")
            return result
        }

        /// The pts of each frame the recording video output logged to `folder`, in order.
        func recordedPts(_ folder: String) throws -> [Double] {
            try String(contentsOfFile: folder + "/video.tsv", encoding: .utf8).split(separator: "\n").map { Double($0.split(separator: "\t")[0])! }
        }

        func errorLines(_ result: CommandResult) -> [Substring] {
            result.stderr.split(separator: "\n").filter { $0.hasPrefix("hplayer: error: ") }
        }

        /// A media error: exit 1 and exactly one stderr line, `hplayer: error: INPUT: REASON`.
        func expectMediaError(_ result: CommandResult, input: String, reason: String? = nil) {
            #expect(result.status == 1)
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "stderr: \(result.stderr)")
            #expect(lines.first?.hasPrefix("hplayer: error: \(input): ") == true, "stderr: \(result.stderr)")
            if let reason { #expect(lines.first?.hasSuffix(reason) == true, "stderr: \(result.stderr)") }
        }

        @Test("hplayer.conf applies (a start and exact seeks: the frames from 1 s), --profile applies a section over it, --no-config leaves it out, and an unknown option is one warning naming the file and the line")
        func configFile() throws {
            let clip = try Clips.audioVideo(seconds: 3)
            let home = Fixtures.newFolder("config-home")
            try FileManager.default.createDirectory(atPath: home + "/hplayer", withIntermediateDirectories: true)
            let config = home + "/hplayer/hplayer.conf"
            try "# playing from the first second\nstart=1\nexact-seek\nbogus-option=3\n[later]\nstart=2\n"
                .write(toFile: config, atomically: true, encoding: .utf8)
            func play(_ extra: [String]) throws -> (result: CommandResult, firstPts: Double?) {
                let folder = Fixtures.newFolder("config-played")
                let result = try Command.run(["env", "XDG_CONFIG_HOME=\(home)", Command.hplayer, clip, "--vo", "record:\(folder)",
                                              "--ao", "null", "--no-status"] + extra, timeout: 60)
                return (result, try recordedPts(folder).first)
            }
            let plain = try play([])
            #expect(plain.result.status == 0 && plain.firstPts == 1, "\(plain.result.stderr)")
            #expect(plain.result.stderr.split(separator: "\n") == ["hplayer: warning: \(config):4: Unknown option '--bogus-option'"])
            let profiled = try play(["--profile=later"])
            #expect(profiled.result.status == 0 && profiled.firstPts == 2, "\(profiled.result.stderr)")
            let overridden = try play(["--profile=later", "--start", "0.4"])
            #expect(overridden.firstPts == 0.4, "the command line comes last and wins")
            let bare = try play(["--no-config"])
            #expect(bare.result.status == 0 && bare.firstPts == 0 && bare.result.stderr.isEmpty, "\(bare.result.stderr)")
        }

        @Test("--version prints the player's and FFmpeg's versions, exit 0; --volume past 100 is a usage error")
        func versionAndVolume() throws {
            let version = try Command.run([Command.hplayer, "--version"])
            #expect(version.status == 0 && version.stdout.hasPrefix("hplayer 0.1 (FFmpeg 5."), "\(version.stdout)")
            let loud = try hplayer(try Clips.audioVideo(seconds: 2), "--volume", "130")
            #expect(loud.status == 2 && errorLines(loud) == ["hplayer: error: --volume: expected 0 to 100, got 130"], "\(loud.stderr)")
        }

        @Test("--start=-1 starts a second before the end (the frames from 2 s of a 3 s clip), as mpv's")
        func startBeforeTheEnd() throws {
            let folder = Fixtures.newFolder("start-before-end")
            let result = try hplayer(try Clips.audioVideo(seconds: 3), "--vo", "record:\(folder)", "--no-status", "--start=-1")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try recordedPts(folder).first == 2)
        }

        @Test func aMissingFile() throws {
            expectMediaError(try hplayer("/nonexistent/clip.mp4"), input: "/nonexistent/clip.mp4", reason: "No such file or directory")
        }

        @Test func aFolder() throws {
            let folder = Fixtures.newFolder("folder")
            expectMediaError(try hplayer("play", folder), input: folder)
        }

        @Test func somethingThatIsNotMedia() throws {
            let path = Fixtures.newFolder("text") + "/notes.mp4"
            try "just some text, not a video\n".write(toFile: path, atomically: true, encoding: .utf8)
            expectMediaError(try hplayer(path), input: path, reason: "Invalid data found when processing input")
        }

        @Test(.disabled(if: getuid() == 0, "root reads any file: a file without read permission cannot be made"))
        func anUnreadableFile() throws {
            let path = Fixtures.newFolder("unreadable") + "/clip.mp4"
            try FileManager.default.copyItem(atPath: try Clips.audioVideo(seconds: 2), toPath: path)
            try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: path)
            try #require(access(path, R_OK) != 0, "the file can still be read with its permissions taken away")
            expectMediaError(try hplayer(path), input: path, reason: "Permission denied")
        }

        @Test func aFileCutShortBeforeItsIndex() throws {
            let clip = try Fixtures.clip("index-at-end.mp4", ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=3",
                                                              "-c:v", "libx264", "-preset", "fast"])
            let data = try Data(contentsOf: URL(fileURLWithPath: clip))
            let path = Fixtures.newFolder("truncated") + "/cut.mp4"
            try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: path))
            expectMediaError(try hplayer(path), input: path)
        }

        @Test("A stream cut short plays what is there and ends")
        func aStreamCutShort() throws {
            let clip = try Fixtures.clip("cut.ts", ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4",
                                                    "-c:v", "libx264", "-preset", "fast", "-g", "25"])
            let data = try Data(contentsOf: URL(fileURLWithPath: clip))
            let folder = Fixtures.newFolder("cut-ts")
            try data.prefix(data.count / 2 + 77).write(to: URL(fileURLWithPath: folder + "/cut.ts"))
            let result = try hplayer(folder + "/cut.ts", "--vo", "record:\(folder)", "--no-status")
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let frames = try recordedPts(folder).count
            #expect(frames > 30 && frames < 100)
        }

        @Test("Corrupt packets mid-stream are skipped with a warning and playback goes on")
        func corruptPacketsAreSkipped() throws {
            let clip = try Fixtures.clip("to-corrupt.ts", ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4",
                                                           "-c:v", "libx264", "-preset", "fast", "-g", "25"])
            var data = try Data(contentsOf: URL(fileURLWithPath: clip))
            // Scribble over the payload of a run of TS packets in the middle, keeping their headers.
            let packets = data.count / 188
            for packet in (packets / 3)..<(packets / 3 + 40) {
                for offset in 8..<188 { data[packet * 188 + offset] = UInt8(truncatingIfNeeded: offset &* 37 &+ packet) }
            }
            let folder = Fixtures.newFolder("corrupt")
            try data.write(to: URL(fileURLWithPath: folder + "/corrupt.ts"))
            let result = try hplayer(folder + "/corrupt.ts", "--vo", "record:\(folder)", "--no-status")
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(errorLines(result).isEmpty)
            let frames = try recordedPts(folder).count
            print("corrupt: \(frames) of 100 frames presented; stderr: \(result.stderr)")
            #expect(frames > 60)
            #expect(result.stderr.contains("warning"))
        }

        @Test("A stream with no decoder: the others play, or a clear error when none is left")
        func noDecoder() throws {
            func withoutDecoder(_ clip: String, _ name: String) throws -> String {
                let data = try Data(contentsOf: URL(fileURLWithPath: clip))
                var bytes = [UInt8](data)
                for (from, to) in [("avc1", "zzzz"), ("avcC", "zzzC")] {
                    let pattern = Array(from.utf8)
                    for index in 0..<(bytes.count - 4) where Array(bytes[index..<index + 4]) == pattern {
                        bytes.replaceSubrange(index..<index + 4, with: Array(to.utf8))
                    }
                }
                let path = Fixtures.newFolder("nodecoder") + "/" + name
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                return path
            }
            let videoOnly = try withoutDecoder(try Clips.video("h264"), "video-only.mp4")
            expectMediaError(try hplayer(videoOnly), input: videoOnly, reason: "no decoder for this codec")

            let both = try withoutDecoder(try Clips.audioVideo(seconds: 2), "both.mp4")
            let folder = Fixtures.newFolder("nodecoder-audio")
            let result = try hplayer(both, "--ao", "record:\(folder)", "--no-status")
            #expect(result.status == 0)
            #expect(result.stderr.contains("hplayer: warning: \(both): skipping video stream 0 (unknown codec 'zzzz')"))
            let recorded = try WAVFile.read(folder + "/audio.wav")
            #expect(recorded.samples.count / 2 >= 2 * 48000)
        }

        @Test("Bad usage exits 2 with one error line", arguments: [
            ["play"], ["play", "x.mp4", "--vo", "bogus"], ["x.mp4", "--ao", "record:"], ["play", "x.mp4", "--start", "-3"],
            ["play", "x.mp4", "--no-such-option"], ["probe"], ["x.mp4", "--geometry", "big"], ["x.mp4", "--geometry", "640x"],
            ["x.m3u8", "--hls-abr", "fastest"], ["abr-sim", "x", "--segments", "0"],
        ])
        func badUsage(_ arguments: [String]) throws {
            let result = try Command.run([Command.hplayer] + arguments)
            #expect(result.status == 2)
            #expect(result.stderr.split(separator: "\n").count == 1, "stderr: \(result.stderr)")
            #expect(result.stderr.hasPrefix("hplayer: error: "))
        }

        @Test func anUnwritableRecordingFolder() throws {
            let clip = try Clips.audioVideo(seconds: 2)
            let file = Fixtures.newFolder("notadir") + "/file"
            try "x".write(toFile: file, atomically: true, encoding: .utf8)
            expectMediaError(try hplayer(clip, "--vo", "record:\(file)"), input: file, reason: "not a directory")
        }

        @Test("hplayer URL plays like hplayer play URL, with a status line", .realTime)
        func playIsTheDefaultCommand() throws {
            let clip = try Clips.audioVideo(seconds: 2)
            let folder = Fixtures.newFolder("default-command")
            let result = try hplayer(clip, "--vo", "record:\(folder)", "--start", "1", "--exact-seek")
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("AV: 00:00:02 / 00:00:02 (100%)"), "stderr: \(result.stderr)")
            let pts = try recordedPts(folder)
            #expect(pts == (25..<50).map { Double($0) / 25 })
        }

        @Test("No sound device for ALSA: the one line says so, without libasound's own lines before it")
        func noSoundCardIsOneLine() throws {
            // An empty ALSA configuration has no device at all, whatever cards or sound server
            // the machine has; libasound then writes "Unknown PCM default" and more on stderr.
            let configuration = Fixtures.newFolder("alsa-empty") + "/alsa.conf"
            try "".write(toFile: configuration, atomically: true, encoding: .utf8)
            let result = try Command.run(["env", "SDL_AUDIODRIVER=alsa", "ALSA_CONFIG_PATH=\(configuration)", Command.hplayer,
                                          try Clips.audioVideo(seconds: 2), "--vo", "null", "--no-status"], timeout: 30)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("hplayer: no sound device (ALSA: "), "stderr: \(result.stderr)")
        }

        @Test("No sound device: one line says so, and the picture plays at its own pace", .realTime)
        func noSoundDevice() throws {
            let clip = try Clips.audioVideo(seconds: 3)
            let folder = Fixtures.newFolder("no-sound")
            // env(1) runs it: an audio driver SDL does not have stands for a machine with no sound device.
            let result = try Command.run(["SDL_AUDIODRIVER=none-here", Command.hplayer, clip, "--vo", "record:\(folder)", "--no-status"],
                                         timeout: 30)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("hplayer: no sound device ("), "stderr: \(result.stderr)")
            let frames = try String(contentsOfFile: folder + "/video.tsv", encoding: .utf8).split(separator: "\n").map { line in
                line.split(separator: "\t").prefix(2).map { Double($0)! }
            }
            #expect(frames.count == 75)
            guard let first = frames.first, let last = frames.last else { return }
            // Presented as the pts say: 2.96 s from the first frame to the last, not as fast as decoded.
            #expect(abs((last[1] - first[1]) - (last[0] - first[0])) < 0.2, "frames: \(first) … \(last)")
        }

        /// Runs hplayer in a terminal (`script` gives it one), types `keys` after the delays, and
        /// gives back what the terminal showed, with the terminal's settings before and after.
        /// The first delay counts from the first status line: by then hplayer reads keys, so a
        /// slow start cannot turn a typed Ctrl-C into a signal to the whole terminal session.
        /// With `signal`, that signal is sent to hplayer half a second after the first status line.
        private func inTerminal(_ clip: String, typing keys: [(delay: Double, text: String)], environment: String = "",
                                options: String = "", signal: String? = nil) throws -> (output: String, before: String, after: String) {
            let shown = Fixtures.newFolder("terminal") + "/shown"
            let waitForStatus = "i=0; until grep -q 'AV: ' \(shown) || [ $i -ge 200 ]; do sleep 0.05; i=$((i+1)); done"
            let typing = [waitForStatus] + keys.map { "sleep \($0.delay); printf '\($0.text)'" }
                + (signal.map { ["sleep 0.5; pkill -\($0) -f '^\(Command.hplayer) \(clip)'"] } ?? [])
            // The shell traps Ctrl-C as an interactive one would: dash (the shell script runs, here
            // and on CI) is in hplayer's process group and would otherwise die of it before printing EXIT.
            let session = "trap true INT; stty -g; \(environment) \(Command.hplayer) \(clip) --vo null --ao null \(options); echo EXIT=\\$?; stty -g"  // \\$: expanded by the shell inside script
            _ = try Command.run(["sh", "-c", "(\(typing.joined(separator: "; "))) | SHELL=/bin/sh script -qec \"\(session)\" /dev/null > \(shown)"], timeout: 30)
            let output = try String(contentsOfFile: shown, encoding: .utf8)
            let lines = output.replacingOccurrences(of: "\r", with: "\n").split(separator: "\n").map(String.init)
            let settings = lines.filter { $0.split(separator: ":").count > 30 }  // stty -g: the settings, colon-separated
            return (lines.joined(separator: "\n"), settings.first ?? "", settings.dropFirst().first ?? "")
        }

        @Test("Keys typed in the terminal pause and quit; the terminal is left as it was, on q and on Ctrl-C")
        func terminalKeys() throws {
            let clip = try Clips.audioVideo(seconds: 8)
            let quit = try inTerminal(clip, typing: [(0.5, " "), (1.0, "q")])
            #expect(quit.output.contains("(Paused) AV: "), "no pause: \(quit.output)")
            #expect(quit.output.contains("EXIT=0"), "q did not quit with status 0: \(quit.output)")
            #expect(!quit.before.isEmpty && quit.after == quit.before, "terminal settings changed: \(quit.before) → \(quit.after)")

            let interrupted = try inTerminal(clip, typing: [(0.5, "\\003")])
            #expect(interrupted.output.contains("EXIT=130"), "Ctrl-C: \(interrupted.output)")
            #expect(!interrupted.before.isEmpty && interrupted.after == interrupted.before,
                    "terminal settings changed: \(interrupted.before) → \(interrupted.after)")
        }

        @Test("With no window, what a key did shows in the terminal as a line: the volume (9), the loop (L), no next file (>)")
        func noticesInTheTerminal() throws {
            let shown = try inTerminal(try Clips.audioVideo(seconds: 8), typing: [(0.3, "9"), (0.3, "L"), (0.3, ">"), (0.3, "q")])
            // Each line as the terminal shows it: the erase-line code before it left out.
            let lines = shown.output.split(separator: "\n").map { $0.replacingOccurrences(of: "\u{1B}[K", with: "") }
            for notice in ["Volume 98%", "Loop on", "No next file"] {
                #expect(lines.contains(notice), "no '\(notice)' line: \(shown.output)")
            }
            #expect(shown.output.contains("EXIT=0"), "\(shown.output)")
        }

        @Test("SIGTERM, SIGHUP and SIGQUIT quit with status 4, as mpv's, and leave the terminal as it was",
              arguments: ["TERM", "HUP", "QUIT"])
        func signals(_ signal: String) throws {
            let ended = try inTerminal(try Clips.audioVideo(seconds: 8), typing: [], signal: signal)
            #expect(ended.output.contains("EXIT=4"), "SIG\(signal): \(ended.output)")
            #expect(!ended.output.contains("crashed"), "SIG\(signal): \(ended.output)")
            #expect(!ended.before.isEmpty && ended.after == ended.before, "terminal settings changed: \(ended.before) → \(ended.after)")
        }

        @Test("s writes the frame on screen to --screenshot-dir; a folder that cannot be written to is one error line")
        func screenshotKey() throws {
            let clip = try Clips.audioVideo(seconds: 8)
            let folder = Fixtures.newFolder("screenshots")
            let taken = try inTerminal(clip, typing: [(0.5, " "), (0.3, "s"), (2.0, "q")], options: "--screenshot-dir \(folder)")
            #expect(taken.output.contains("EXIT=0"), "\(taken.output)")
            let files = try FileManager.default.contentsOfDirectory(atPath: folder)
            try #require(files.count == 1, "\(taken.output)")
            #expect(taken.output.contains("hplayer: screenshot: \(folder)/\(files[0])"))
            // av-8.0-00-00-01.240.png: the position of the frame on screen.
            let stamp = files[0].dropFirst("av-8.0-".count).dropLast(".png".count).split(separator: "-").compactMap { Double($0) }
            try #require(stamp.count == 3, "\(files[0])")
            let seconds = stamp[0] * 3600 + stamp[1] * 60 + stamp[2]
            func rgb(_ arguments: [String]) throws -> String {
                let result = try Command.run(["sh", "-c", (["ffmpeg", "-v", "error"] + arguments + ["-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-", "|", "md5sum"]).joined(separator: " ")], timeout: 30)
                return result.stdout
            }
            #expect(try rgb(["-i", folder + "/" + files[0]]) == rgb(["-ss", "\(seconds)", "-i", clip]), "\(files[0])")

            let unwritable = folder + "/missing/folder"
            let failed = try inTerminal(clip, typing: [(0.5, "s"), (1.5, "q")], options: "--screenshot-dir \(unwritable)")
            #expect(failed.output.contains("EXIT=0"), "\(failed.output)")
            #expect(failed.output.contains("hplayer: error: \(unwritable)/"), "\(failed.output)")
        }

        @Test("--start takes seconds, [[hh:]mm:]ss and a percentage of the duration", arguments: ["1.5", "0:02", "00:00:01", "25%"])
        func startForms(_ start: String) throws {
            let clip = try Clips.audioVideo(seconds: 4)
            let duration = try JSONDecoder().decode(MediaInfo.self, from: Data(hplayer("probe", clip, "--json").stdout.utf8)).duration ?? 0
            let seconds = StartPosition(start)!.seconds(duration: duration)!
            let folder = Fixtures.newFolder("start")
            let result = try hplayer(clip, "--vo", "record:\(folder)", "--ao", "null", "--no-status", "--start", start)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let first = try recordedPts(folder).first
            #expect(try first == Fixtures.framePts(clip).first { $0 >= seconds - 1e-6 }, "--start \(start) (\(seconds) s)")
        }

        @Test("Q remembers the position; --resume starts there once; an unwritable state folder is one error line")
        func quitAndResume() throws {
            let clip = try Clips.audioVideo(seconds: 8)
            let state = Fixtures.newFolder("state")
            let quit = try inTerminal(clip, typing: [(1.0, "Q")], environment: "XDG_STATE_HOME=\(state)")
            #expect(quit.output.contains("EXIT=0"), "Q: \(quit.output)")
            let saved = try FileManager.default.contentsOfDirectory(atPath: state + "/hplayer/watch_later")
            try #require(saved.count == 1)
            let text = try String(contentsOfFile: state + "/hplayer/watch_later/" + saved[0], encoding: .utf8)
            let position = try #require(text.split(separator: "\n").first { $0.hasPrefix("start=") }.flatMap { Double($0.dropFirst(6)) })
            #expect(position > 0.5 && position < 7, "saved \(position)")

            func firstFrame(resuming: Bool) throws -> Double? {
                let folder = Fixtures.newFolder("resume")
                let result = try Command.run(["XDG_STATE_HOME=\(state)", Command.hplayer, clip, "--vo", "record:\(folder)", "--ao", "null",
                                              "--no-status"] + (resuming ? ["--resume"] : []), timeout: 30)
                #expect(result.status == 0, "stderr: \(result.stderr)")
                return try recordedPts(folder).first
            }
            let resumedAt = try firstFrame(resuming: true)
            #expect(try resumedAt == Fixtures.framePts(clip).first { $0 >= position - 1e-6 },
                    "saved \(position), the first frame shown \(String(describing: resumedAt))")
            #expect(try firstFrame(resuming: true) == 0, "the position is forgotten once resumed")

            let unwritable = Fixtures.newFolder("state-file") + "/file"
            try "x".write(toFile: unwritable, atomically: true, encoding: .utf8)
            let failed = try inTerminal(clip, typing: [(0.5, "Q")], environment: "XDG_STATE_HOME=\(unwritable)")
            #expect(failed.output.contains("EXIT=1"), "Q with an unwritable folder: \(failed.output)")
            #expect(failed.output.contains("hplayer: error: \(unwritable): not a directory"), "\(failed.output)")
        }

        @Test("--no-video, --no-audio, and --aid picking the second soundtrack; a track the file lacks is one warning", .realTime)
        func trackChoice() throws {
            let clip = try Clips.twoSoundtracks(seconds: 2)
            func play(_ options: String...) throws -> (result: CommandResult, frames: Int, tone: Double?) {
                let folder = Fixtures.newFolder("tracks")
                let result = try Command.run([Command.hplayer, clip, "--vo", "record:\(folder)", "--ao", "record:\(folder)", "--no-status"] + options,
                                             timeout: 30)
                let frames = (try? recordedPts(folder))?.count ?? 0
                let tone = (try? WAVFile.read(folder + "/audio.wav")).flatMap { audio -> Double? in
                    let left = stride(from: 0, to: audio.samples.count, by: audio.channels).map { audio.samples[$0] }
                    guard left.count > audio.rate else { return nil }
                    let middle = left[(audio.rate / 4)..<(audio.rate / 4 + audio.rate)]
                    return Double(zip(middle, middle.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count)
                }
                return (result, frames, tone)
            }
            let both = try play()
            #expect(both.result.status == 0 && both.frames == 50 && both.tone.map { abs($0 - 440) < 3 } == true, "default: \(both)")
            let second = try play("--aid", "2")
            #expect(second.result.status == 0 && second.tone.map { abs($0 - 880) < 3 } == true, "--aid 2: \(second)")
            #expect(second.result.stdout == """
                 (+) Video --vid=1 (*) (h264 320x240 25.000fps)
                     Audio --aid=1 (*) (aac 1ch 48000Hz)
                 (+) Audio --aid=2 (aac 1ch 48000Hz)

                """, "the track list")
            let noVideo = try play("--no-video")
            #expect(noVideo.result.status == 0 && noVideo.frames == 0 && noVideo.tone != nil, "--no-video: \(noVideo)")
            let noAudio = try play("--no-audio")
            #expect(noAudio.result.status == 0 && noAudio.frames == 50 && noAudio.tone == nil, "--no-audio: \(noAudio)")
            let missing = try play("--aid", "3")
            #expect(missing.result.status == 0 && missing.tone.map { abs($0 - 440) < 3 } == true, "--aid 3: \(missing)")
            #expect(missing.result.stderr == "hplayer: warning: \(clip): no audio track 3 (the file has 2): playing the default one\n")
        }

        @Test func probeDescribesEveryStream() throws {
            let clip = try Clips.audioVideo(seconds: 2)
            let result = try hplayer("probe", clip, "--json")
            #expect(result.status == 0)
            let info = try JSONDecoder().decode(MediaInfo.self, from: Data(result.stdout.utf8))
            #expect(info.container.hasPrefix("mov,mp4"))
            #expect(abs((info.duration ?? 0) - 2) < 0.05)
            #expect((info.bitRate ?? 0) > 0)
            #expect(info.streams.count == 2)
            let video = info.streams[0], audio = info.streams[1]
            #expect(video.type == .video && video.codec == "h264" && video.profile != nil)
            #expect(video.width == 320 && video.height == 240 && video.frameRate == 25 && video.pixelFormat == "yuv420p")
            #expect(video.sampleAspectRatio == "1:1" && video.rotation == 0 && video.language == "und")
            #expect(audio.type == .audio && audio.codec == "aac" && audio.sampleRate == 48000 && audio.channels == 2)
            let text = try hplayer("probe", clip)
            #expect(text.stdout.contains("stream 0: video h264 (High) 320x240 SAR 1:1 25 fps yuv420p"))
            expectMediaError(try hplayer("probe", "/nonexistent.mkv"), input: "/nonexistent.mkv")
        }

        @Test("bench passes every frame through and prints frames, seconds and fps")
        func bench() throws {
            let clip = try Clips.audioVideo(seconds: 6)
            let result = try hplayer("bench", clip)
            #expect(result.status == 0)
            let fields = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ")
            #expect(fields.count == 6 && fields[0] == "frames" && fields[2] == "seconds" && fields[4] == "fps", "stdout: \(result.stdout)")
            #expect(fields.count == 6 && Int(fields[1]) == 150)
            #expect(fields.count == 6 && (Double(fields[3]) ?? 0) > 0 && (Double(fields[5]) ?? 0) > 0)
        }
    }
}
