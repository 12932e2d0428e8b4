import Foundation
import HPlayerIPC
import HPlayerKit
import HPlayerSDL
import HPlayerTestSupport
import Testing

extension Clips {
    /// Four coloured quadrants (red, green / blue, white), 320x240 H.264, 4 s.
    static func quadrants() throws -> String {
        try Fixtures.clip("quadrants.mp4", [
            "-f", "lavfi", "-i",
            "color=c=red:size=320x240:rate=25:duration=4,drawbox=x=160:y=0:w=160:h=120:c=lime:t=fill,"
                + "drawbox=x=0:y=120:w=160:h=120:c=blue:t=fill,drawbox=x=160:y=120:w=160:h=120:c=white:t=fill",
            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"])
    }

    /// The quadrants with a display matrix saying: turn 90° clockwise.
    static func rotatedQuadrants() throws -> String {
        let path = Fixtures.directory.appendingPathComponent("quadrants-rotated.mp4").path
        if !FileManager.default.fileExists(atPath: path) {
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try quadrants())))
            // tkhd (version 0): the 3x3 matrix starts 44 bytes after the box type.
            guard let type = (0..<(bytes.count - 4)).first(where: { bytes[$0..<$0 + 4].elementsEqual("tkhd".utf8) }) else {
                throw FixtureError(description: "no tkhd box")
            }
            let matrix: [UInt32] = [0, 0x10000, 0, 0xFFFF_0000, 0, 0, 0, 0, 0x4000_0000]
            for (index, value) in matrix.enumerated() {
                for byte in 0..<4 { bytes[type + 44 + index * 4 + byte] = UInt8(truncatingIfNeeded: value >> (24 - 8 * byte)) }
            }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
        return path
    }

    /// 8 s of picture and a steady 440 Hz tone at half scale, H.264 + AAC, a key frame each second.
    static func tone(seconds: Int = 8, name: String = "tone") throws -> String {
        try Fixtures.clip("\(name)-\(seconds).mp4", [
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=\(seconds)",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds),volume=4.0",
            "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-c:a", "aac", "-b:a", "128k", "-ac", "1", "-shortest"])
    }
}

extension Playback {
    @Suite(.desktop, .enabled(if: Desktop.unavailableReason == nil, Comment(rawValue: Desktop.unavailableReason ?? "")))
    struct DesktopWindow {
        private func play(_ clip: String, _ arguments: [String] = [], environment: [String: String] = [:]) throws -> BackgroundProcess {
            try BackgroundProcess([Command.hplayer, clip, "--no-status"] + arguments, environment: environment)
        }

        @Test("The window has the picture's display size and the file's name, or what --geometry and --title say")
        func sizeAndTitle() throws {
            let square = try play(try Clips.quadrants(), ["--ao", "null"])
            let window = try Desktop.window(titled: "quadrants.mp4")
            #expect((window.width, window.height) == (320, 240))
            try Desktop.press("q", in: window)
            #expect(square.wait(timeout: 10) == 0)

            // Pixels twice as wide as tall: shown at 640x240.
            let wide = try Fixtures.clip("sar-2-1.mp4", ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=3",
                                                          "-vf", "setsar=2/1", "-c:v", "libx264", "-preset", "ultrafast"])
            let stretched = try play(wide, ["--ao", "null"])
            let stretchedWindow = try Desktop.window(titled: "sar-2-1.mp4")
            #expect((stretchedWindow.width, stretchedWindow.height) == (640, 240))
            try Desktop.press("q", in: stretchedWindow)
            #expect(stretched.wait(timeout: 10) == 0)

            let placed = try play(try Clips.quadrants(), ["--ao", "null", "--geometry", "400x300+30+40", "--title", "Placed here"])
            let placedWindow = try Desktop.window(titled: "Placed here")
            #expect((placedWindow.width, placedWindow.height, placedWindow.x, placedWindow.y) == (400, 300, 30, 40))
            try Desktop.press("Escape", in: placedWindow)
            #expect(placed.wait(timeout: 10) == 0)
        }

        /// The colour at the centre of each quadrant of a screenshot, as (r, g, b).
        private func quadrantColors(_ window: Desktop.Window) throws -> [(Int, Int, Int)] {
            let pixels = try Desktop.screenshot(window)
            return [(1, 1), (3, 1), (1, 3), (3, 3)].map { (qx, qy) in
                let x = window.width * qx / 4, y = window.height * qy / 4
                let offset = (y * window.width + x) * 3
                return (Int(pixels[offset]), Int(pixels[offset + 1]), Int(pixels[offset + 2]))
            }
        }

        private func matches(_ color: (Int, Int, Int), _ expected: (Int, Int, Int)) -> Bool {
            abs(color.0 - expected.0) < 40 && abs(color.1 - expected.1) < 40 && abs(color.2 - expected.2) < 40
        }

        @Test("The window shows the picture, and turns it as the file says")
        func pictureAndRotation() async throws {
            let red = (255, 0, 0), green = (0, 255, 0), blue = (0, 0, 255), white = (255, 255, 255)
            let upright = try play(try Clips.quadrants(), ["--ao", "null", "--loop"])
            let window = try Desktop.window(titled: "quadrants.mp4")
            try await Task.sleep(nanoseconds: 500_000_000)
            let colors = try quadrantColors(window)
            #expect(zip(colors, [red, green, blue, white]).allSatisfy(matches), "quadrants: \(colors)")
            try Desktop.press("q", in: window)
            #expect(upright.wait(timeout: 10) == 0)

            let turned = try play(try Clips.rotatedQuadrants(), ["--ao", "null", "--loop"])
            let turnedWindow = try Desktop.window(titled: "quadrants-rotated.mp4")
            #expect((turnedWindow.width, turnedWindow.height) == (240, 320))
            try await Task.sleep(nanoseconds: 500_000_000)
            let turnedColors = try quadrantColors(turnedWindow)
            // Turned a quarter clockwise: blue comes to the top left, red to the top right.
            #expect(zip(turnedColors, [blue, red, white, green]).allSatisfy(matches), "quadrants: \(turnedColors)")
            try Desktop.press("q", in: turnedWindow)
            #expect(turned.wait(timeout: 10) == 0)
        }

        @Test("Two files in one window: the title follows the file; > goes to the next, < back, Enter on, and at the last Enter does nothing (mpv's weak playlist-next)")
        func playlistKeysAndTitle() throws {
            let clips = try ["first", "second"].map { name in
                try Fixtures.clip("\(name).mp4", ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=20",
                                                  "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"])
            }
            let player = try BackgroundProcess([Command.hplayer] + clips + ["--no-status", "--ao", "null"])
            let first = try Desktop.window(titled: "first.mp4")
            try Desktop.press("greater", in: first)
            let second = try Desktop.window(titled: "second.mp4")
            #expect(second.id == first.id, "one window for both files")
            try Desktop.press("less", in: second)
            _ = try Desktop.window(titled: "first.mp4")
            try Desktop.press("Return", in: first)
            _ = try Desktop.window(titled: "second.mp4")
            try Desktop.press("Return", in: second)
            MonotonicClock.sleep(until: MonotonicClock.now() + 0.5)
            #expect(player.isRunning, "Enter at the last file ended playback")
            try Desktop.press("q", in: second)
            #expect(player.wait(timeout: 10) == 0, "\(player.stderr)")
        }

        @Test("input.conf binds keys in the window: its commands run (x cycles pause, as the IPC reads it), ignore unbinds a default key (space), an unbound key keeps mpv's default (p), and q quits with the code it gives")
        func inputConfBindings() throws {
            let folder = Fixtures.newFolder("input-conf")
            try "x cycle pause\nSPACE ignore\nq quit 7\n".write(toFile: folder + "/input.conf", atomically: true, encoding: .utf8)
            let socket = folder + "/hplayer.sock"
            let player = try BackgroundProcess([Command.hplayer, try Clips.tone(seconds: 12), "--no-status", "--ao", "null",
                                                "--input-conf", folder + "/input.conf", "--input-ipc-server", socket])
            let client = try IPCClient(path: socket)
            #expect(client.waitUntilLoaded())
            let window = try Desktop.window(titled: "tone-12.mp4")
            func paused() -> JSONValue? { client.request([.string("get_property"), .string("pause")])?["data"] }
            try Desktop.press("x", in: window)
            #expect(eventually { paused() == .bool(true) })
            try Desktop.press("space", in: window)
            try Desktop.press("x", in: window)
            #expect(eventually { paused() == .bool(false) }, "space, unbound, must not have paused it again")
            try Desktop.press("p", in: window)
            #expect(eventually { paused() == .bool(true) })
            try Desktop.press("q", in: window)
            #expect(player.wait(timeout: 10) == 7, "\(player.stderr)")
        }

        @Test("In the window: # (Shift+3, as the layout types it) goes to the next soundtrack, Ctrl+9 and Alt+m are not 9 and m, input.conf binds Ctrl+x and F5, a right click pauses and the wheel seeks 10 s (mpv's defaults)")
        func keysWithModifiersAndTheMouse() throws {
            let folder = Fixtures.newFolder("input-conf-modifiers")
            try "Ctrl+x cycle pause\nF5 cycle pause\n".write(toFile: folder + "/input.conf", atomically: true, encoding: .utf8)
            let socket = folder + "/hplayer.sock"
            let clip = try Clips.twoSoundtracks(seconds: 30)
            let player = try BackgroundProcess([Command.hplayer, clip, "--no-status", "--ao", "null",
                                                "--input-conf", folder + "/input.conf", "--input-ipc-server", socket])
            let client = try IPCClient(path: socket)
            #expect(client.waitUntilLoaded())
            let window = try Desktop.window(titled: "two-soundtracks-30.0.mp4")
            func get(_ name: String) -> JSONValue? { client.request([.string("get_property"), .string(name)])?["data"] }
            try Desktop.press("numbersign", in: window)
            #expect(eventually { get("aid") == .number(2) })
            // Keys with Ctrl or Alt are not their plain keys as well: 9 would lower the volume, m mute.
            try Desktop.press("ctrl+9", in: window)
            try Desktop.press("alt+m", in: window)
            try Desktop.press("Tab", in: window)
            #expect(get("volume") == .number(100) && get("mute") == .bool(false))
            try Desktop.press("ctrl+x", in: window)
            #expect(eventually { get("pause") == .bool(true) })
            try Desktop.press("F5", in: window)
            #expect(eventually { get("pause") == .bool(false) })
            _ = try Command.run(["xdotool", "mousemove", "--window", window.id, "\(window.width / 2)", "\(window.height / 3)"])
            _ = try Command.run(["xdotool", "click", "3"])
            #expect(eventually { get("pause") == .bool(true) })
            let before = get("time-pos")?.number ?? -1
            _ = try Command.run(["xdotool", "click", "4"])
            #expect(eventually { (get("time-pos")?.number ?? -1) > before + 5 }, "wheel up from \(before): \(String(describing: get("time-pos")))")
            try Desktop.press("q", in: window)
            #expect(player.wait(timeout: 10) == 0, "\(player.stderr)")
        }

        @Test("Keys in the window pause, seek, toggle the loop and quit", .realTime)
        func keys() async throws {
            // Long enough that a seek 5 s forward from wherever the pause left it stays inside.
            let clip = try Clips.tone(seconds: 12)
            let folder = Fixtures.newFolder("keys")
            let player = try play(clip, ["--ao", "record:\(folder)"])
            let window = try Desktop.window(titled: "tone-12.mp4")
            @Sendable func heard() -> [AudioCallback] { AudioLog.callbacks(in: folder) }
            #expect(await until { (heard().last?.firstPts ?? 0) > 1 })

            try Desktop.press("space", in: window)
            try await Task.sleep(nanoseconds: 400_000_000)
            let pausedAt = heard().count
            try await Task.sleep(nanoseconds: 800_000_000)
            #expect(heard().count == pausedAt, "sound went on while paused")
            try Desktop.press("p", in: window)
            #expect(await until { heard().count > pausedAt + 10 }, "did not resume")

            let before = heard().last?.firstPts ?? 0
            try Desktop.press("Right", in: window)
            #expect(await until { (heard().last?.firstPts ?? 0) >= before + 4 }, "no seek forward")
            try Desktop.press("Left", in: window)
            #expect(await until { (heard().last?.firstPts ?? 99) < before + 3 }, "no seek back")

            try Desktop.press("L", in: window)  // loop on: the end leads back to the start
            #expect(await until(timeout: 15) { heard().compactMap(\.firstPts).suffix(50).contains { $0 < 1 } && heard().count > 450 },
                    "did not loop")
            #expect(player.isRunning)
            try Desktop.press("q", in: window)
            #expect(player.wait(timeout: 10) == 0)
        }

        /// The brightest pixel of a rectangle of a screenshot.
        private func brightest(_ rect: LayoutRect, in window: Desktop.Window) throws -> Int {
            let pixels = try Desktop.screenshot(window)
            var brightest = 0
            for y in rect.y..<(rect.y + rect.height) {
                for x in rect.x..<(rect.x + rect.width) {
                    let offset = (y * window.width + x) * 3
                    brightest = max(brightest, Int(pixels[offset]), Int(pixels[offset + 1]), Int(pixels[offset + 2]))
                }
            }
            return brightest
        }

        @Test("The progress bar shows on a mouse move, hides after 2 s of quiet, and a click on it seeks there", .realTime)
        func progressBar() async throws {
            // Long enough that the slowest screenshots leave playback well short of where the click seeks.
            let clip = try Fixtures.clip("black-16.mp4", ["-f", "lavfi", "-i", "color=c=black:size=320x240:rate=25:duration=16",
                                                          "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=16",
                                                         "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-c:a", "aac", "-shortest"])
            let folder = Fixtures.newFolder("bar")
            _ = try Command.run(["xdotool", "mousemove", "0", "0"])  // off the window: entering it would count as a move
            let player = try play(clip, ["--ao", "record:\(folder)"])
            let window = try Desktop.window(titled: "black-16.mp4")
            let bar = WindowLayout.progressBar(window: (window.width, window.height))
            // The bar and the time text above it.
            let osd = LayoutRect(x: bar.x, y: bar.y - 30, width: bar.width, height: bar.height + 30)
            @Sendable func heard() -> [AudioCallback] { AudioLog.callbacks(in: folder) }
            #expect(await until { (heard().last?.firstPts ?? 0) > 0.5 })
            #expect(try brightest(osd, in: window) < 40, "something shows over the picture before any input")

            _ = try Command.run(["xdotool", "mousemove", "--window", window.id, "160", "100"])
            try await Task.sleep(nanoseconds: 300_000_000)
            #expect(try brightest(osd, in: window) > 180, "no progress bar or time after a mouse move")
            try await Task.sleep(nanoseconds: 2_700_000_000)
            #expect(try brightest(osd, in: window) < 40, "the progress bar stayed after 2 s of quiet")

            // Nine tenths of the bar: 14.4 s, well past where playback stands (about 4 s).
            #expect((heard().last?.firstPts ?? 0) < 10)
            let x = bar.x + bar.width * 9 / 10, y = bar.y + bar.height / 2
            _ = try Command.run(["xdotool", "mousemove", "--window", window.id, "\(x)", "\(y)", "click", "1"])
            #expect(await until(timeout: 3) { (heard().last?.firstPts ?? 0) >= 14 }, "a click on the bar did not seek there")
            #expect(player.wait(timeout: 15) == 0)
        }

        @Test("Subtitles show over the bottom of the picture; v hides and shows them, j turns them off")
        func subtitles() async throws {
            let cue = try Playback.Subtitles.subtitleFile("long.srt", "1\n00:00:00,000 --> 00:00:20,000\nSubtitles on screen\n\n")
            let clip = try Fixtures.clip("black-subtitled.mkv", ["-f", "lavfi", "-i", "color=c=black:size=640x360:rate=25:duration=20",
                                                                 "-i", cue, "-c:v", "libx264", "-preset", "ultrafast", "-g", "25",
                                                                 "-c:s", "srt", "-disposition:s:0", "default"])
            _ = try Command.run(["xdotool", "mousemove", "0", "0"])  // off the window: entering it would show the progress bar
            let player = try play(clip, ["--ao", "null"])
            let window = try Desktop.window(titled: "black-subtitled.mkv")
            // The middle of the bottom quarter, where the subtitle goes, clear of the progress bar's place.
            let band = LayoutRect(x: window.width / 5, y: window.height * 3 / 4, width: window.width * 3 / 5, height: window.height / 6)
            let quiet: UInt64 = 2_600_000_000  // for the bar and the notice a key brings to go
            try await Task.sleep(nanoseconds: 800_000_000)
            #expect(try brightest(band, in: window) > 200, "no subtitle")
            try Desktop.press("v", in: window)
            try await Task.sleep(nanoseconds: quiet)
            #expect(try brightest(band, in: window) < 40, "v did not hide the subtitle")
            try Desktop.press("v", in: window)
            try await Task.sleep(nanoseconds: quiet)
            #expect(try brightest(band, in: window) > 200, "v did not show it again")
            try Desktop.press("j", in: window)
            try await Task.sleep(nanoseconds: quiet)
            #expect(try brightest(band, in: window) < 40, "j past the only track did not turn subtitles off")
            try Desktop.press("q", in: window)
            #expect(player.wait(timeout: 10) == 0)
        }

        /// The 640x360 window of `clip` playing its first subtitle track, grabbed 1.5 s after it
        /// shows (at about 2 s of the clip); the player quit after.
        private func grabWithSubtitles(_ clip: String, titled title: String) async throws -> RawPicture {
            _ = try Command.run(["xdotool", "mousemove", "0", "0"])  // off the window: entering it would show the progress bar
            let player = try play(clip, ["--ao", "null", "--sid", "1"])
            let window = try Desktop.window(titled: title)
            try #require(window.width == 640 && window.height == 360, "the window is \(window.width)x\(window.height)")
            try await Task.sleep(nanoseconds: 1_500_000_000)
            let grabbed = RawPicture(width: window.width, height: window.height, pixels: Data(try Desktop.screenshot(window)))
            try Desktop.press("q", in: window)
            #expect(player.wait(timeout: 10) == 0)
            return grabbed
        }

        @Test("In the window, an ASS line styled red and placed top-left is drawn as mpv draws it", .enabled(if: Playback.IPC.hasMpv, "needs mpv"))
        func styledSubtitleInTheWindow() async throws {
            let clip = try Playback.StyledSubtitles.redTopLeftTrack()
            let ours = try await grabWithSubtitles(clip, titled: "black-ass-track.mkv")
            let mpv = try Playback.StyledSubtitles.mpvFrame(clip, at: "2", ["--sid=1"])
            let topLeft = LayoutRect(x: 0, y: 0, width: 320, height: 90)
            let (red, mpvRed) = (ours.count(in: topLeft, Playback.StyledSubtitles.isRed), mpv.count(in: topLeft, Playback.StyledSubtitles.isRed))
            #expect(mpvRed > 1000 && abs(red - mpvRed) <= mpvRed / 20, "red pixels top-left: \(red), mpv's \(mpvRed)")
            Playback.StyledSubtitles.expectAsMpv(ours, mpv, in: [topLeft])
        }

        @Test("In the window, a PGS subtitle is drawn where and as ffmpeg overlays it")
        func bitmapSubtitleInTheWindow() async throws {
            let clip = try Playback.BitmapSubtitles.clip(.pgs).clip
            let ours = try await grabWithSubtitles(clip, titled: "bitmap-pgs.mkv")
            let reference = try Playback.BitmapSubtitles.ffmpegFrames(clip, at: [2])[0]
            let region = Playback.BitmapSubtitles.boxRegion
            let (green, referenceGreen) = (ours.count(in: region, Playback.BitmapSubtitles.isGreen),
                                           reference.count(in: region, Playback.BitmapSubtitles.isGreen))
            #expect(referenceGreen > 4000 && abs(green - referenceGreen) <= referenceGreen / 20, "green pixels: \(green), ffmpeg's \(referenceGreen)")
            let psnr = ours.psnr(in: region, against: reference)
            #expect(psnr >= 35, "\(psnr) dB against ffmpeg's overlay")
        }

        @Test("Sound reaches the sound server: a 440 Hz tone at its level", .realTime)
        func soundReachesTheServer() async throws {
            let player = try play(try Clips.tone(seconds: 8), ["--vo", "null"])
            try await Task.sleep(nanoseconds: 1_500_000_000)
            let samples = try Desktop.recordSink(seconds: 3)
            #expect(player.wait(timeout: 20) == 0)
            let middle = samples.dropFirst(samples.count / 4).prefix(samples.count / 2)
            let frequency = Sound.toneFrequency(middle, rate: 48000)
            let level = 20 * log10(Sound.rms(middle))
            print(String(format: "sound: %.1f Hz at %.1f dBFS", frequency, level))
            #expect(abs(frequency - 440) < 440 * 0.02)
            // A half-scale sine: -9 dBFS.
            #expect(abs(level - -9.03) < 1.5)
        }

        /// hplayer, mpv and ffplay play a flash-and-beep clip side by side, each beeping at its
        /// own frequency, in one capture of screen and sound; a few runs, medians.
        @Test("Through the real devices, picture and sound are as much in step as mpv's (±15 ms)", .realTime,
              .enabled(if: ["mpv", "ffplay"].allSatisfy { (try? Command.run(["which", $0]))?.status == 0 }, "needs mpv and ffplay"))
        func syncMatchesMpv() throws {
            let lanes = [SyncCapture.Lane(name: "hplayer", left: 0, frequency: 1000),
                         SyncCapture.Lane(name: "mpv", left: 330, frequency: 2000),
                         SyncCapture.Lane(name: "ffplay", left: 660, frequency: 3000)]
            let clips = try lanes.map { try Clips.flashAndBeepLane(frequency: $0.frequency) }
            // The pointer away from the windows: over one, a player would show its controls on the picture.
            _ = try Command.run(["xdotool", "mousemove", "1270", "710"])
            var offsets: [String: [Double]] = [:]
            for run in 1...3 {
                let capture = try SyncCapture.record(seconds: 11) {
                    [try BackgroundProcess([Command.hplayer, clips[0], "--no-status", "--geometry", "320x240+0+0"]),
                     try BackgroundProcess(["mpv", "--no-config", "--really-quiet", "--vo=sdl", "--ao=pulse",
                                            "--geometry=320x240+330+0", clips[1]]),
                     try BackgroundProcess(["ffplay", "-v", "error", "-autoexit", "-left", "660", "-top", "0",
                                            "-x", "320", "-y", "240", clips[2]])]
                }
                for lane in lanes {
                    guard let offset = capture.offset(of: lane) else { continue }
                    offsets[lane.name, default: []].append(offset.median)
                    print(String(format: "sync run %d: %@ flash - beep %+.1f ms (median of %d; includes the capture's offset)",
                                 run, lane.name, offset.median * 1000, offset.pairs))
                }
            }
            func median(_ name: String) -> Double? {
                offsets[name].flatMap { $0.isEmpty ? nil : $0.sorted()[$0.count / 2] }
            }
            // Each run's capture offset cancels in the difference between two players of that run.
            func relative(_ name: String) -> Double? {
                let differences = zip(offsets[name] ?? [], offsets["mpv"] ?? []).map { $0 - $1 }
                return differences.isEmpty ? nil : differences.sorted()[differences.count / 2]
            }
            #expect(offsets["hplayer"]?.count == 3 && offsets["mpv"]?.count == 3, "flashes or beeps not found: \(offsets)")
            guard let ours = relative("hplayer"), median("mpv") != nil else { return }
            print(String(format: "sync: hplayer %+.1f ms from mpv, ffplay %@ (medians of 3 runs)", ours * 1000,
                         relative("ffplay").map { String(format: "%+.1f ms", $0 * 1000) } ?? "not measured"))
            #expect(abs(ours) <= 0.015, "hplayer's flash-minus-beep differs from mpv's by \(ours * 1000) ms")
        }

        @Test("A hidden window goes on playing sound, and picture again when shown", .realTime)
        func hiddenWindowKeepsPlaying() async throws {
            let folder = Fixtures.newFolder("hidden")
            let player = try play(try Clips.tone(seconds: 5), ["--ao", "record:\(folder)"])
            let window = try Desktop.window(titled: "tone-5.mp4")
            #expect(await until { AudioLog.callbacks(in: folder).count > 20 })
            _ = try Command.run(["xdotool", "windowunmap", window.id])
            let hiddenAt = AudioLog.callbacks(in: folder).count
            try await Task.sleep(nanoseconds: 1_000_000_000)
            #expect(AudioLog.callbacks(in: folder).count > hiddenAt + 30, "sound stopped while hidden")
            _ = try Command.run(["xdotool", "windowmap", "--sync", window.id])
            #expect(player.wait(timeout: 15) == 0)
            let pts = AudioLog.callbacks(in: folder).compactMap(\.firstPts)
            #expect((pts.last ?? 0) > 4.9, "did not play to the end")
        }

        @Test("No display: one line says so, and the sound still plays")
        func noDisplay() async throws {
            let player = try play(try Clips.tone(seconds: 5), environment: ["DISPLAY": "", "WAYLAND_DISPLAY": ""])
            try await Task.sleep(nanoseconds: 1_000_000_000)
            let samples = try Desktop.recordSink(seconds: 2)
            #expect(player.wait(timeout: 15) == 0)
            let notices = player.stderr.split(separator: "\n").filter { $0.hasPrefix("hplayer: no display") }
            #expect(notices.count == 1, "stderr: \(player.stderr)")
            #expect(Sound.rms(samples[...]) > 0.1, "no sound reached the server")
        }
    }
}

/// The audio.tsv a recording output writes, read while it is being written.
enum AudioLog {
    static func callbacks(in folder: String) -> [AudioCallback] {
        guard let text = try? String(contentsOfFile: folder + "/audio.tsv", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t")
            guard fields.count == 3, let at = Double(fields[1]), let samples = Int(fields[2]) else { return nil }
            return AudioCallback(firstPts: Double(fields[0]).flatMap { $0.isNaN ? nil : $0 }, playedAt: at, samples: samples)
        }
    }
}
