import Foundation
import HPlayerIPC
import HPlayerKit
import HPlayerTestSupport
import Testing

/// A bitmap subtitle format and how its clip is made: PGS written by `PGSWriter`, the others
/// from it by ffmpeg's encoders (which take a bitmap subtitle as it was decoded; the PGS clear
/// becomes the cue's duration with -fix_sub_duration).
struct BitmapFormat: Sendable, CustomTestStringConvertible {
    var name: String
    /// The clip made, or for VobSub the .idx beside its .sub.
    var file: String
    /// ffmpeg's arguments for the subtitle stream, after the two inputs are mapped.
    var encoding: [String]
    var testDescription: String { name }
    var isExternal: Bool { file.hasSuffix(".idx") }

    static let pgs = BitmapFormat(name: "PGS in Matroska", file: "bitmap-pgs.mkv", encoding: ["-c", "copy"])
    static let all = [
        pgs,
        BitmapFormat(name: "DVB in MPEG-TS", file: "bitmap-dvb.ts", encoding: ["-c:v", "copy", "-c:s", "dvbsub"]),
        BitmapFormat(name: "DVD in Matroska", file: "bitmap-dvd.mkv", encoding: ["-c:v", "copy", "-c:s", "dvdsub"]),
        BitmapFormat(name: "XSUB in AVI", file: "bitmap-xsub.avi", encoding: ["-c:v", "copy", "-bsf:v", "h264_mp4toannexb", "-c:s", "xsub"]),
        BitmapFormat(name: "VobSub .idx and .sub, external", file: "bitmap-vobsub.idx", encoding: []),
    ]
}

/// A VobSub pair as DVD rippers write it: the .sub an MPEG program stream of DVD subpictures
/// (ffmpeg's vob muxer writes one), the .idx naming the canvas, the palette, and each
/// subpicture's time and the file position of the pack it starts in.
enum VobSubPair {
    /// The 16 colours the subpictures index, given to ffmpeg's dvdsub encoder and written in the .idx.
    static let palette = ["000000", "00ff00", "ffffff", "ff0000", "0000ff", "ffff00", "ff00ff", "00ffff",
                          "808000", "8080ff", "800080", "80ff80", "008080", "ff8080", "555555", "aaaaaa"]

    /// The .idx for `sub`: a line for each private-stream-1 PES with a PTS, at the pack before it.
    static func index(of sub: [UInt8], width: Int, height: Int) -> String {
        var lines = ["# VobSub index file, v7 (do not modify this line!)", "size: \(width)x\(height)",
                     "palette: " + palette.joined(separator: ", "), "", "id: en, index: 0"]
        var pack = 0
        var at = 0
        while at + 14 <= sub.count {
            guard sub[at] == 0, sub[at + 1] == 0, sub[at + 2] == 1 else { at += 1; continue }
            if sub[at + 3] == 0xBA { pack = at }
            if sub[at + 3] == 0xBD, sub[at + 7] & 0x80 != 0 {
                let b = sub[(at + 9)...].prefix(5).map(Int.init)
                let pts = (b[0] >> 1 & 7) << 30 | b[1] << 22 | (b[2] >> 1) << 15 | b[3] << 7 | b[4] >> 1
                let milliseconds = pts / 90
                let time = String(format: "%02d:%02d:%02d:%03d", milliseconds / 3_600_000, milliseconds / 60_000 % 60,
                                  milliseconds / 1000 % 60, milliseconds % 1000)
                lines.append("timestamp: \(time), filepos: " + String(format: "%09x", pack))
            }
            at += 4
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension Playback {
    /// Bitmap subtitles, each drawn at its place and for its time, against ffmpeg's `overlay` of
    /// the same stream (the reference): a box of three colours, one half transparent,
    /// from 1 s to 4 s, where a PGS clear (a display set with no picture) ends it.
    @Suite struct BitmapSubtitles {
        static let box = LayoutRect(x: 400, y: 280, width: 120, height: 60)
        /// The box with a pixel of margin each side, for the scaling's edge.
        static let boxRegion = LayoutRect(x: 398, y: 278, width: 124, height: 64)

        /// Green, with a white border 2 px wide and a half-transparent red square inside.
        static func picture() -> PGSWriter.Picture {
            var indices = [UInt8](repeating: 1, count: box.width * box.height)
            for y in 0..<box.height {
                for x in 0..<box.width {
                    if x < 2 || y < 2 || x >= box.width - 2 || y >= box.height - 2 {
                        indices[y * box.width + x] = 2
                    } else if (10..<30).contains(x), (10..<30).contains(y) {
                        indices[y * box.width + x] = 3
                    }
                }
            }
            let palette = [PGSWriter.Colour(y: 145, cr: 34, cb: 54, alpha: 255), PGSWriter.Colour(y: 235, cr: 128, cb: 128, alpha: 255),
                           PGSWriter.Colour(y: 81, cr: 240, cb: 90, alpha: 128)]
            return PGSWriter.Picture(x: box.x, y: box.y, width: box.width, height: box.height, indices: indices, palette: palette)
        }

        /// 5 s of black 640x360, 25 fps, 4:4:4, a key frame every half second: each snapshot
        /// decodes a dozen pictures at most.
        static func black() throws -> String {
            try Fixtures.clip("black-444-short-gop.mkv", ["-f", "lavfi", "-i", "color=c=black:size=640x360:rate=25:duration=5",
                                                          "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv444p", "-qp", "0",
                                                          "-g", "12"])
        }

        static func supFile() throws -> String {
            let path = Fixtures.newFolder("pgs") + "/box.sup"
            let bytes = PGSWriter.sup(videoWidth: 640, videoHeight: 360, displaySets: [(1.0, picture()), (4.0, nil)])
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }

        /// The clip, and the options that show its subtitles. The times are kept as written
        /// (-copyts): the PGS stream starts at 1 s.
        static func clip(_ format: BitmapFormat) throws -> (clip: String, options: [String]) {
            guard format.isExternal else {
                let clip = try Fixtures.clip(format.file, ["-copyts", "-i", try black(), "-fix_sub_duration", "-i", try supFile(),
                                                           "-map", "0:v", "-map", "1"] + format.encoding)
                return (clip, ["--sid", "1"])
            }
            let sub = try Fixtures.clip(format.file.replacingOccurrences(of: ".idx", with: ".sub"),
                                        ["-copyts", "-fix_sub_duration", "-i", try supFile(), "-c:s", "dvdsub",
                                         "-palette", VobSubPair.palette.joined(separator: " "), "-f", "vob"])
            let index = sub.replacingOccurrences(of: ".sub", with: ".idx")
            if !FileManager.default.fileExists(atPath: index) {
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: sub)))
                try VobSubPair.index(of: bytes, width: 640, height: 360).write(toFile: index, atomically: true, encoding: .utf8)
            }
            return (try black(), ["--sub-file", index])
        }

        static func isGreen(_ r: Int, _ g: Int, _ b: Int) -> Bool { g > 150 && r < 100 && b < 100 }
        static func isDrawn(_ r: Int, _ g: Int, _ b: Int) -> Bool { r + g + b > 30 }
        static let whole = LayoutRect(x: 0, y: 0, width: 640, height: 360)

        /// The frames at `times` (seconds, on the 25 fps clip's frames) with ffmpeg's overlay of
        /// the subtitle stream on them, composited in RGB.
        static func ffmpegFrames(_ clip: String, at times: [Double], subtitles: String? = nil) throws -> [RawPicture] {
            let folder = Fixtures.newFolder("bitmap-ffmpeg")
            let picks = times.map { "eq(n\\,\(Int(($0 * 25).rounded())))" }.joined(separator: "+")
            let inputs = ["-i", clip] + (subtitles.map { ["-i", $0] } ?? [])
            let result = try Command.run(["ffmpeg", "-nostdin", "-v", "error"] + inputs + ["-filter_complex",
                                          "[0:v][\(subtitles == nil ? 0 : 1):s]overlay=format=rgb,select='\(picks)'",
                                          "-vsync", "0", "\(folder)/%d.png"], timeout: 120)
            try #require(result.status == 0, "ffmpeg: \(result.stderr)")
            return try (1...times.count).map { try Snapshots().pixels(ofPNG: "\(folder)/\($0).png") }
        }

        @Test("Each bitmap format is drawn as ffmpeg overlays it, from the frame at its start to the frame before its end",
              .timeLimit(.minutes(3)), arguments: BitmapFormat.all)
        func shownAndClearedOnTime(_ format: BitmapFormat) throws {
            let (clip, options) = try Self.clip(format)
            let times = [0.96, 1.0, 2.5, 3.96, 4.0]
            // ffmpeg's overlay of a second input (the .idx) comes a few frames late: its frame in
            // the middle of the cue is the reference for every time.
            let references = format.isExternal
                ? Array(repeating: try Self.ffmpegFrames(clip, at: [2.5], subtitles: options[1])[0], count: times.count)
                : try Self.ffmpegFrames(clip, at: times)
            for (time, reference) in zip(times, references) {
                let ours = try StyledSubtitles.hplayerFrame(clip, at: String(time), options)
                let showing = time >= 1 && time < 4
                let green = ours.count(in: Self.boxRegion, Self.isGreen)
                if showing {
                    let referenceGreen = reference.count(in: Self.boxRegion, Self.isGreen)
                    #expect(referenceGreen > 4000, "at \(time) s ffmpeg drew \(referenceGreen) green pixels")
                    #expect(abs(green - referenceGreen) <= referenceGreen / 20, "at \(time) s: \(green) green pixels, ffmpeg's \(referenceGreen)")
                    let psnr = ours.psnr(in: Self.boxRegion, against: reference)
                    #expect(psnr >= 35, "at \(time) s: \(psnr) dB against ffmpeg's overlay")
                    // Nothing drawn anywhere else.
                    let above = LayoutRect(x: 0, y: 0, width: 640, height: Self.boxRegion.y)
                    #expect(ours.count(in: above, Self.isDrawn) == 0, "drawn outside the box at \(time) s")
                } else {
                    #expect(ours.count(in: Self.whole, Self.isDrawn) == 0, "drawn at \(time) s")
                    if !format.isExternal { #expect(reference.count(in: Self.whole, Self.isDrawn) == 0, "ffmpeg drew at \(time) s") }
                }
            }
        }

        @Test("In playback, a PGS picture comes on screen with the frame at its start, listed as the rectangle it is",
              .timeLimit(.minutes(2)))
        func recordedWithItsFrame() throws {
            let folder = Fixtures.newFolder("bitmap-record")
            let result = try Command.run([Command.hplayer, try Self.clip(.pgs).clip, "--sid", "1", "--vo", "record:\(folder)", "--ao", "null",
                                          "--no-status"], timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            let cues = try RecordedCue.read(folder)
            #expect(cues.count == 1, "\(cues)")
            let cue = try #require(cues.first)
            #expect(abs(cue.start - 1) < 0.001 && abs(cue.framePts - 1) < 0.001, "\(cue)")
            #expect(cue.text == "[bitmap 120x60+400+280]")
        }

        @Test("In playback, the screenshot shows the PGS picture on the frame before its clear and not on the frame at it",
              .timeLimit(.minutes(2)))
        func clearedInPlayback() throws {
            let folder = Fixtures.newFolder("bitmap-screenshots")
            let socket = Fixtures.newFolder("ipc") + "/hplayer.sock"
            let process = try BackgroundProcess([Command.hplayer, try Self.clip(.pgs).clip, "--vo", "null", "--ao", "null", "--no-status",
                                                 "--sid", "1", "--screenshot-dir", folder, "--input-ipc-server", socket])
            let client = try IPCClient(path: socket)
            #expect(client.waitUntilLoaded())
            #expect(client.waitUntilPlaying(), "playback did not start")
            #expect(client.request([.string("set_property"), .string("pause"), .bool(true)])?["error"] == .string("success"))
            func shot(at position: Double) throws -> RawPicture {
                client.events.removeAll()
                let seeked = client.request([.string("seek"), .number(position), .string("absolute+exact")])
                #expect(seeked?["error"] == .string("success"))
                // The first frame there is presented.
                try #require(client.event("playback-restart", timeout: 20) != nil, "the seek to \(position) did not land")
                let landed = client.request([.string("get_property"), .string("time-pos")])?["data"]?.number
                #expect(landed.map { abs($0 - position) < 0.001 } ?? false, "landed at \(String(describing: landed)), not \(position)")
                return try client.screenshot(into: folder)
            }
            #expect(try shot(at: 3.96).count(in: Self.boxRegion, Self.isGreen) > 4000, "not shown before the clear")
            #expect(try shot(at: 4.0).count(in: Self.whole, Self.isDrawn) == 0, "still shown at the clear")
            // Back before its start, then into it again: read again, shown once.
            #expect(try shot(at: 0.48).count(in: Self.whole, Self.isDrawn) == 0, "shown before its start")
            #expect(try shot(at: 2).count(in: Self.boxRegion, Self.isGreen) > 4000, "not shown after a seek back")
            #expect(client.request([.string("quit")]) != nil || !process.isRunning)
            #expect(process.wait(timeout: 10) == 0)
        }
    }
}
