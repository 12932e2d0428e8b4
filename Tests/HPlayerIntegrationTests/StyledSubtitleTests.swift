import Foundation
import HPlayerIPC
import HPlayerKit
import HPlayerTestSupport
import Testing

extension RawPicture {
    /// The RGB of pixel (x, y) of an rgb24 picture.
    func rgb(_ x: Int, _ y: Int) -> (Int, Int, Int) {
        let offset = (y * width + x) * 3
        return (Int(pixels[offset]), Int(pixels[offset + 1]), Int(pixels[offset + 2]))
    }

    /// How many pixels of `region` satisfy `matches`.
    func count(in region: LayoutRect, _ matches: (Int, Int, Int) -> Bool) -> Int {
        var found = 0
        for y in region.y..<(region.y + region.height) {
            for x in region.x..<(region.x + region.width) where matches(rgb(x, y).0, rgb(x, y).1, rgb(x, y).2) { found += 1 }
        }
        return found
    }

    /// The PSNR of `region` against the same region of `other` (infinity where they are the same).
    func psnr(in region: LayoutRect, against other: RawPicture) -> Double {
        var squares = 0.0
        for y in region.y..<(region.y + region.height) {
            for x in region.x..<(region.x + region.width) {
                let (a, b) = (rgb(x, y), other.rgb(x, y))
                squares += Double((a.0 - b.0) * (a.0 - b.0) + (a.1 - b.1) * (a.1 - b.1) + (a.2 - b.2) * (a.2 - b.2))
            }
        }
        let meanSquare = squares / Double(region.width * region.height * 3)
        return meanSquare == 0 ? .infinity : 10 * log10(255 * 255 / meanSquare)
    }

    /// The mean x of the pixels of `region` brighter than 128 in every channel; nil for none.
    func brightCentre(in region: LayoutRect) -> Double? {
        var sum = 0, found = 0
        for y in region.y..<(region.y + region.height) {
            for x in region.x..<(region.x + region.width) {
                let (r, g, b) = rgb(x, y)
                if r > 128, g > 128, b > 128 { sum += x; found += 1 }
            }
        }
        return found == 0 ? nil : Double(sum) / Double(found)
    }
}

extension Playback {
    /// Subtitles drawn by libass as their authors styled them, against mpv's drawing with the
    /// same libass (mpv's `--vo=image` draws the subtitles on each frame it writes). The picture
    /// is black 4:4:4, so that neither player's colours are blurred by chroma subsampling.
    @Suite(.enabled(if: IPC.hasMpv, "needs mpv")) struct StyledSubtitles {
        static let header = """
            [Script Info]
            ScriptType: v4.00+
            PlayResX: 640
            PlayResY: 360

            [V4+ Styles]
            Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, \
            Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, \
            MarginV, Encoding
            Style: Default,DejaVu Sans,40,&H00FFFFFF,&H000000FF,&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,2,0,2,10,10,10,1

            [Events]
            Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text

            """

        /// An ASS script of `events` (Dialogue lines' fields after "Dialogue: ").
        static func script(_ name: String, _ events: [String], header: String = header) throws -> String {
            try Subtitles.subtitleFile(name, header + events.map { "Dialogue: " + $0 + "\n" }.joined())
        }

        /// 5 s of black 640x360, 25 fps, 4:4:4.
        static func black() throws -> String {
            try Fixtures.clip("black-444.mkv", ["-f", "lavfi", "-i", "color=c=black:size=640x360:rate=25:duration=5",
                                                "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv444p", "-qp", "0"])
        }

        /// The frame at `at` with its subtitles, as `hplayer snapshot` draws it.
        static func hplayerFrame(_ clip: String, at: String, _ options: [String]) throws -> RawPicture {
            let output = Fixtures.newFolder("styled") + "/hplayer.png"
            let result = try Command.run([Command.hplayer, "snapshot", clip, "--at", at, "-o", output] + options, timeout: 60)
            try #require(result.status == 0 && !result.timedOut, "hplayer snapshot: \(result.stderr)")
            return try Snapshots().pixels(ofPNG: output)
        }

        /// The frame at `at` with its subtitles, as mpv's `--vo=image` writes it.
        static func mpvFrame(_ clip: String, at: String, _ options: [String]) throws -> RawPicture {
            let folder = Fixtures.newFolder("styled-mpv")
            let result = try Command.run(["mpv", "--no-config", "--really-quiet", "--ao=null", "--vo=image", "--vo-image-format=png",
                                          "--vo-image-outdir=\(folder)", "--start=\(at)", "--frames=1"] + options + [clip], timeout: 60)
            try #require(result.status == 0 && !result.timedOut, "mpv: \(result.stderr)")
            return try Snapshots().pixels(ofPNG: folder + "/00000001.png")
        }

        static func isRed(_ r: Int, _ g: Int, _ b: Int) -> Bool { r > 150 && g < 80 && b < 80 }

        /// The black clip with an ASS track of one line, red, top-left, over the whole of it.
        static func redTopLeftTrack() throws -> String {
            let script = try script("shot.ass", [#"0,0:00:00.00,0:00:05.00,Default,,0,0,0,,{\an7\pos(20,20)\c&H0000FF&}On the picture"#])
            return try Fixtures.clip("black-ass-track.mkv", ["-i", try black(), "-i", script, "-map", "0", "-map", "1", "-c", "copy"])
        }

        /// At least 35 dB against mpv's in each region (the issue's bar).
        static func expectAsMpv(_ ours: RawPicture, _ mpv: RawPicture, in regions: [LayoutRect],
                                sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(ours.width == mpv.width && ours.height == mpv.height, sourceLocation: sourceLocation)
            for region in regions {
                let psnr = ours.psnr(in: region, against: mpv)
                #expect(psnr >= 35, "\(region): \(psnr) dB against mpv's", sourceLocation: sourceLocation)
            }
        }

        @Test("An ASS line styled red and placed top-left with \\an7\\pos(20,20) is drawn there in red, as mpv draws it",
              .timeLimit(.minutes(2)))
        func positionedAndColoured() throws {
            let script = try Self.script("red.ass", [#"0,0:00:01.00,0:00:04.00,Default,,0,0,0,,{\an7\pos(20,20)\c&H0000FF&}Red top left"#])
            let clip = try Self.black()
            let ours = try Self.hplayerFrame(clip, at: "2", ["--sub-file", script])
            let mpv = try Self.mpvFrame(clip, at: "2", ["--sub-file=\(script)"])
            let topLeft = LayoutRect(x: 0, y: 0, width: 320, height: 90)
            let (red, mpvRed) = (ours.count(in: topLeft, Self.isRed), mpv.count(in: topLeft, Self.isRed))
            #expect(mpvRed > 1000, "mpv drew \(mpvRed) red pixels")
            #expect(abs(red - mpvRed) <= mpvRed / 20, "red pixels top-left: \(red), mpv's \(mpvRed)")
            // Nothing where the style would have put it without the override.
            let bottom = LayoutRect(x: 0, y: 270, width: 640, height: 90)
            #expect(ours.count(in: bottom) { r, g, b in r + g + b > 60 } == 0)
            Self.expectAsMpv(ours, mpv, in: [topLeft, bottom])
            // Before the event's start: nothing at all.
            let before = try Self.hplayerFrame(clip, at: "0.5", ["--sub-file", script])
            #expect(before.count(in: topLeft, Self.isRed) == 0)
        }

        @Test("\\move at two instants: the line is where mpv draws it at each, 200 px further right at the second",
              .timeLimit(.minutes(2)))
        func moveAtTwoInstants() throws {
            let script = try Self.script("move.ass", [#"0,0:00:01.00,0:00:04.00,Default,,0,0,0,,{\move(100,300,500,300)}Moving"#])
            let clip = try Self.black()
            let band = LayoutRect(x: 0, y: 240, width: 640, height: 100)
            var centres: [Double] = []
            for at in ["1.8", "3.2"] {
                let ours = try Self.hplayerFrame(clip, at: at, ["--sub-file", script])
                let mpv = try Self.mpvFrame(clip, at: at, ["--sub-file=\(script)"])
                Self.expectAsMpv(ours, mpv, in: [band])
                centres.append(try #require(ours.brightCentre(in: band), "nothing drawn at \(at) s"))
            }
            // (500 - 100) px over 3 s: 1.4 s apart is 187 px.
            #expect(abs(centres[1] - centres[0] - 187) < 5, "centres \(centres)")
        }

        @Test("Karaoke (\\k): each syllable turns from its secondary to its primary colour at its time, as mpv draws it",
              .timeLimit(.minutes(2)))
        func karaoke() throws {
            // A silent 0.4 s first, then two syllables of 0.8 s: "Kara" at 1.4 s, "oke" at 2.2 s.
            let script = try Self.script("karaoke.ass", [#"0,0:00:01.00,0:00:04.00,Default,,0,0,0,,{\k40}{\k80}Kara{\k80}oke"#])
            let clip = try Self.black()
            let band = LayoutRect(x: 0, y: 240, width: 640, height: 120)
            var reds: [Int] = []
            // Before either syllable's time, after the first's, after both.
            for at in ["1.2", "1.8", "2.6"] {
                let ours = try Self.hplayerFrame(clip, at: at, ["--sub-file", script])
                let mpv = try Self.mpvFrame(clip, at: at, ["--sub-file=\(script)"])
                Self.expectAsMpv(ours, mpv, in: [band])
                reds.append(ours.count(in: band, Self.isRed))
            }
            #expect(reds[0] > reds[1] && reds[1] > 0 && reds[2] == 0, "red pixels at 1.2, 1.8 and 2.6 s: \(reds)")
        }

        @Test("SubRip is drawn in mpv's default style for text subtitles, italics kept", .timeLimit(.minutes(2)))
        func subRipInMpvsStyle() throws {
            let cues = try Subtitles.subtitleFile("styled.srt", "1\n00:00:01,000 --> 00:00:04,000\nHello <i>world</i>, a text subtitle\nsecond line\n\n")
            let clip = try Self.black()
            let ours = try Self.hplayerFrame(clip, at: "2", ["--sub-file", cues])
            let mpv = try Self.mpvFrame(clip, at: "2", ["--sub-file=\(cues)"])
            let bottom = LayoutRect(x: 0, y: 240, width: 640, height: 120)
            #expect(ours.count(in: bottom) { r, g, b in r > 200 && g > 200 && b > 200 } > 500)
            Self.expectAsMpv(ours, mpv, in: [bottom, LayoutRect(x: 0, y: 0, width: 640, height: 240)])
        }

        @Test("--sub-scale 2, --sub-pos 20 and --sub-font-size 30 with --sub-font DejaVu Serif draw the SubRip cue as mpv draws it with the same options",
              .timeLimit(.minutes(2)))
        func scaledAndMovedAsMpv() throws {
            let cues = try Subtitles.subtitleFile("scaled.srt", "1\n00:00:01,000 --> 00:00:04,000\nScaled up\n\n")
            let clip = try Self.black()
            let plain = try Self.hplayerFrame(clip, at: "2", ["--sub-file", cues])
            let whole = LayoutRect(x: 0, y: 0, width: 640, height: 360)
            let isText = { (r: Int, g: Int, b: Int) in r > 200 && g > 200 && b > 200 }
            for options in [["--sub-scale", "2"], ["--sub-pos", "20"], ["--sub-font", "DejaVu Serif", "--sub-font-size", "30"]] {
                let ours = try Self.hplayerFrame(clip, at: "2", ["--sub-file", cues] + options)
                let mpv = try Self.mpvFrame(clip, at: "2", ["--sub-file=\(cues)", "\(options[0])=\(options[1])"]
                                                          + (options.count > 2 ? ["\(options[2])=\(options[3])"] : []))
                Self.expectAsMpv(ours, mpv, in: [LayoutRect(x: 0, y: 0, width: 640, height: 180), LayoutRect(x: 0, y: 180, width: 640, height: 180)])
                #expect(ours.psnr(in: whole, against: plain) < 30, "\(options) made no difference")
            }
            // Twice the size: about four times the white pixels.
            let scaled = try Self.hplayerFrame(clip, at: "2", ["--sub-file", cues, "--sub-scale", "2"])
            let ratio = Double(scaled.count(in: whole, isText)) / Double(max(1, plain.count(in: whole, isText)))
            #expect(ratio > 3 && ratio < 5, "white pixels \(ratio) times as many")
        }

        /// The frame at 2 s with `script` and `options` (option and value in turn) against mpv's
        /// with the same, at least 35 dB in each half; and under 30 dB against `other`.
        static func expectAsMpv(_ clip: String, script: String, options: [String], differsFrom other: RawPicture,
                                sourceLocation: SourceLocation = #_sourceLocation) throws {
            let ours = try hplayerFrame(clip, at: "2", ["--sub-file", script] + options)
            let mpvOptions = stride(from: 0, to: options.count, by: 2).map { "\(options[$0])=\(options[$0 + 1])" }
            let mpv = try mpvFrame(clip, at: "2", ["--sub-file=\(script)"] + mpvOptions)
            expectAsMpv(ours, mpv, in: [LayoutRect(x: 0, y: 0, width: 640, height: 180), LayoutRect(x: 0, y: 180, width: 640, height: 180)],
                        sourceLocation: sourceLocation)
            let whole = LayoutRect(x: 0, y: 0, width: 640, height: 360)
            #expect(ours.psnr(in: whole, against: other) < 30, "\(options) made no difference", sourceLocation: sourceLocation)
        }

        @Test("--sub-ass-override no, scale, force and strip draw an ASS script as mpv draws it with the same options, each unlike the default yes",
              .timeLimit(.minutes(3)))
        func assOverrideAsMpv() throws {
            let header = Self.header.replacingOccurrences(of: "Style: Default,DejaVu Sans,40,&H00FFFFFF",
                                                          with: "Style: Default,DejaVu Serif,40,&H000000FF")
            let script = try Self.script("override.ass", ["0,0:00:01.00,0:00:04.00,Default,,0,0,0,,Styled red serif",
                                                          #"0,0:00:01.00,0:00:04.00,Default,,0,0,0,,{\an7\pos(20,60)\c&H00FF00&}Green placed"#],
                                         header: header)
            let clip = try Self.black()
            let subtitles = ["--sub-file", script]
            let asAuthored = try Self.hplayerFrame(clip, at: "2", subtitles)
            // yes (the default) scales every line and moves the bottom one; no does neither.
            let movedAndScaled = ["--sub-scale", "2", "--sub-pos", "50"]
            try Self.expectAsMpv(clip, script: script, options: ["--sub-ass-override", "no"] + movedAndScaled,
                                 differsFrom: try Self.hplayerFrame(clip, at: "2", subtitles + movedAndScaled))
            // scale leaves the placed line at its size.
            try Self.expectAsMpv(clip, script: script, options: ["--sub-ass-override", "scale", "--sub-scale", "2"],
                                 differsFrom: try Self.hplayerFrame(clip, at: "2", subtitles + ["--sub-scale", "2"]))
            // force puts the text style on the dialogue line (yes leaves the script's).
            try Self.expectAsMpv(clip, script: script, options: ["--sub-ass-override", "force", "--sub-font-size", "30", "--sub-font", "DejaVu Sans"],
                                 differsFrom: asAuthored)
            try Self.expectAsMpv(clip, script: script, options: ["--sub-ass-override", "strip"], differsFrom: asAuthored)
        }

        @Test("--secondary-sid draws a second track at the top as plain text, as mpv draws it; secondary-sid and secondary-sub-text over the IPC",
              .timeLimit(.minutes(2)))
        func secondaryAsMpv() throws {
            let primary = try Subtitles.subtitleFile("primary.srt", "1\n00:00:01,000 --> 00:00:04,000\nPrimary <i>line</i>\n\n")
            // Styled red and placed: drawn white at the top all the same, as its text alone.
            let secondary = try Self.script("secondary.ass", [#"0,0:00:01.00,0:00:04.00,Default,,0,0,0,,{\an7\pos(20,200)\c&H0000FF&}Second track"#])
            let clip = try Fixtures.clip("black-two-subtitle-tracks.mkv", ["-i", try Self.black(), "-i", primary, "-i", secondary,
                                                                           "-map", "0", "-map", "1", "-map", "2", "-c", "copy"])
            let folder = Fixtures.newFolder("secondary-screenshots")
            let socket = Fixtures.newFolder("ipc") + "/hplayer.sock"
            let process = try BackgroundProcess([Command.hplayer, clip, "--vo", "null", "--ao", "null", "--no-status", "--sid", "1",
                                                 "--secondary-sid", "2", "--start", "2", "--screenshot-dir", folder,
                                                 "--input-ipc-server", socket])
            let client = try IPCClient(path: socket)
            #expect(client.waitUntilLoaded())
            #expect(client.request([.string("set_property"), .string("pause"), .bool(true)])?["error"] == .string("success"))
            // A screenshot takes the picture on screen: there is one once video-params is known.
            let shown = MonotonicClock.now() + 20
            while client.request([.string("get_property"), .string("video-params")])?["error"] != .string("success"),
                  MonotonicClock.now() < shown {
                MonotonicClock.sleep(until: MonotonicClock.now() + 0.02)
            }
            func screenshot() throws -> RawPicture {
                do { return try client.screenshot(into: folder) } catch {
                    Issue.record("hplayer said: \(process.stderr)")
                    throw error
                }
            }
            let ours = try screenshot()
            let mpv = try Self.mpvFrame(clip, at: "2", ["--sid=1", "--secondary-sid=2"])
            let (top, bottom) = (LayoutRect(x: 0, y: 0, width: 640, height: 90), LayoutRect(x: 0, y: 90, width: 640, height: 270))
            Self.expectAsMpv(ours, mpv, in: [top, bottom])
            #expect(ours.count(in: top) { r, g, b in r > 200 && g > 200 && b > 200 } > 300, "white text at the top")
            #expect(ours.count(in: LayoutRect(x: 0, y: 0, width: 640, height: 360), Self.isRed) == 0, "the secondary's styling taken out")
            func property(_ name: String) -> JSONValue? { client.request([.string("get_property"), .string(name)]) }
            func set(_ name: String, _ value: JSONValue) -> JSONValue? {
                client.request([.string("set_property"), .string(name), value])?["error"]
            }
            #expect(property("secondary-sid")?["data"] == .number(2))
            #expect(property("secondary-sub-text")?["data"] == .string("Second track"))
            #expect(property("sub-text")?["data"] == .string("Primary line"))
            // One track cannot be both, as in mpv.
            #expect(set("secondary-sid", .number(1)) != .string("success"))
            #expect(set("sid", .number(2)) != .string("success"))
            #expect(set("secondary-sid", .string("no")) == .string("success"))
            #expect(property("secondary-sub-text")?["error"] == .string("property unavailable"))
            let without = try screenshot()
            #expect(without.count(in: top) { r, g, b in r + g + b > 30 } == 0, "nothing at the top once secondary-sid is no")
            #expect(client.request([.string("quit")]) != nil || !process.isRunning)
            #expect(process.wait(timeout: 10) == 0)
        }

        /// DejaVu Serif under a family name no system has: "DejaVu Serif" is 12 characters, as
        /// "HPlayer Test" is, so the name table's offsets hold (FreeType checks no checksum).
        static func renamedFont() throws -> String {
            let path = Fixtures.newFolder("font") + "/HPlayerTest.ttf"
            var data = try Data(contentsOf: URL(fileURLWithPath: "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"))
            for (old, new) in [("DejaVu Serif", "HPlayer Test"), ("DejaVuSerif", "HPlayerTest")] {
                for encoding in [String.Encoding.ascii, .utf16BigEndian] {
                    let (from, to) = (old.data(using: encoding)!, new.data(using: encoding)!)
                    while let range = data.range(of: from) { data.replaceSubrange(range, with: to) }
                }
            }
            try data.write(to: URL(fileURLWithPath: path))
            return path
        }

        @Test("A font attached to the Matroska file, which the system lacks, is the one drawn, as mpv draws it",
              .timeLimit(.minutes(2)))
        func attachedFont() throws {
            let style = "Style: Default,HPlayer Test,48,&H00FFFFFF,&H000000FF,&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,2,0,5,10,10,10,1"
            let header = Self.header.replacingOccurrences(of: "Style: Default,DejaVu Sans,40,&H00FFFFFF,&H000000FF,&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,2,0,2,10,10,10,1", with: style)
            let script = try Self.script("font.ass", ["0,0:00:00.00,0:00:05.00,Default,,0,0,0,,Serif glyphs"], header: header)
            let font = try Self.renamedFont()
            let clip = try Fixtures.clip("black-font-attached.mkv", ["-i", try Self.black(), "-i", script, "-attach", font,
                                                                     "-metadata:s:t", "mimetype=application/x-truetype-font",
                                                                     "-map", "0", "-map", "1", "-c", "copy"])
            let ours = try Self.hplayerFrame(clip, at: "2", ["--sid", "1"])
            let mpv = try Self.mpvFrame(clip, at: "2", ["--sid=1"])
            let middle = LayoutRect(x: 0, y: 120, width: 640, height: 120)
            Self.expectAsMpv(ours, mpv, in: [middle])
            // The same script without the file's fonts falls back to the system's sans-serif.
            let fallback = try Self.hplayerFrame(try Self.black(), at: "2", ["--sub-file", script])
            #expect(fallback.psnr(in: middle, against: ours) < 25, "the attached font made no difference")
        }

        @Test("The screenshot command draws the subtitles shown over the frame; screenshot video leaves them out",
              .timeLimit(.minutes(2)))
        func screenshotWithAndWithoutSubtitles() throws {
            let clip = try Self.redTopLeftTrack()
            let folder = Fixtures.newFolder("screenshots")
            let socket = Fixtures.newFolder("ipc") + "/hplayer.sock"
            let process = try BackgroundProcess([Command.hplayer, clip, "--vo", "null", "--ao", "null", "--no-status", "--sid", "1",
                                                 "--screenshot-dir", folder, "--input-ipc-server", socket])
            let client = try IPCClient(path: socket)
            #expect(client.waitUntilLoaded())
            #expect(client.request([.string("set_property"), .string("pause"), .bool(true)])?["error"] == .string("success"))
            let topLeft = LayoutRect(x: 0, y: 0, width: 320, height: 90)
            let withSubtitles = try client.screenshot(into: folder)
            let videoOnly = try client.screenshot([.string("screenshot"), .string("video")], into: folder)
            #expect(withSubtitles.count(in: topLeft, Self.isRed) > 1000)
            #expect(videoOnly.count(in: topLeft) { r, g, b in r + g + b > 30 } == 0)
            #expect(client.request([.string("quit")]) != nil || !process.isRunning)
            #expect(process.wait(timeout: 10) == 0)
        }
    }
}
