import Foundation
import HPlayerIPC
import HPlayerKit
import HPlayerTestSupport
import Testing

extension Clips {
    /// 8 s of a 440 Hz tone in MP3, tagged "Covered Song", with a red 200x200 cover picture (ID3 APIC:
    /// the PNG file's own bytes).
    static func coveredSong() throws -> String {
        let cover = try Fixtures.clip("cover-red.png", ["-f", "lavfi", "-i", "color=c=red:size=200x200", "-frames:v", "1"])
        return try Fixtures.clip("covered-song.mp3", [
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=8", "-i", cover,
            "-map", "0", "-map", "1", "-c:a", "libmp3lame", "-c:v", "copy", "-disposition:v", "attached_pic",
            "-id3v2_version", "3", "-metadata", "title=Covered Song"])
    }

    /// 8 s of a tone in AAC (.m4a), no picture of any kind.
    static func plainSong() throws -> String {
        try Fixtures.clip("plain-song.m4a", ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=8", "-c:a", "aac"])
    }
}

extension Playback {
    /// What the window does for sound without a moving picture, as mpv: a cover is shown, no
    /// picture means no window, unless --force-window.
    @Suite(.desktop, .enabled(if: Desktop.unavailableReason == nil, Comment(rawValue: Desktop.unavailableReason ?? "")), .timeLimit(.minutes(1)))
    struct AudioWindow {
        @Test("An audio file's cover picture is shown in the window (red, as the file's PNG), titled by the file's title tag")
        func coverIsShown() throws {
            let player = try BackgroundProcess([Command.hplayer, try Clips.coveredSong(), "--no-status", "--ao", "null"])
            let window = try Desktop.window(titled: "Covered Song")
            #expect(eventually {
                guard let pixels = try? Desktop.screenshot(window) else { return false }
                let offset = (window.height / 2 * window.width + window.width / 2) * 3
                return pixels[offset] > 200 && pixels[offset + 1] < 50 && pixels[offset + 2] < 50
            }, "the centre of the window is not the cover's red")
            try Desktop.press("q", in: window)
            #expect(player.wait(timeout: 10) == 0, "\(player.stderr)")
        }

        @Test("An audio file without a picture opens no window while it plays; with --force-window one opens, titled by the file")
        func noPictureNoWindowUnlessForced() throws {
            let song = try Clips.plainSong()
            for forced in [false, true] {
                let folder = Fixtures.newFolder("audio-window-\(forced)")
                let socket = folder + "/hplayer.sock"
                let player = try BackgroundProcess([Command.hplayer, song, "--no-status", "--ao", "null", "--input-ipc-server", socket]
                                                   + (forced ? ["--force-window"] : []))
                let client = try IPCClient(path: socket)
                #expect(client.waitUntilLoaded())
                // A second into playback: a window for this file would have opened by now.
                #expect(eventually { (client.request([.string("get_property"), .string("time-pos")])?["data"]?.number ?? 0) > 1 })
                let search = try Command.run(["xdotool", "search", "--name", "^plain-song.m4a$"])
                #expect((search.status == 0) == forced, "xdotool found: \(search.stdout)")
                #expect(client.request([.string("quit")])?["error"] == .string("success"))
                #expect(player.wait(timeout: 10) == 0, "\(player.stderr)")
            }
        }

        @Test("--idle --force-window: a 640x480 window titled No file before any file; a loadfile of a 320x240 video gives it the picture's size and the file's title")
        func forcedWindowTakesThePicturesSize() throws {
            let folder = Fixtures.newFolder("forced-window")
            let socket = folder + "/hplayer.sock"
            let player = try BackgroundProcess([Command.hplayer, "--idle", "--force-window", "--no-status", "--ao", "null",
                                                "--input-ipc-server", socket])
            let client = try IPCClient(path: socket)
            let empty = try Desktop.window(titled: "No file")
            #expect(empty.width == 640 && empty.height == 480, "\(empty)")
            #expect(client.request([.string("loadfile"), .string(try Clips.tone(seconds: 12))])?["error"] == .string("success"))
            let playing = try Desktop.window(titled: "tone-12.mp4")
            #expect(playing.id == empty.id, "one window throughout")
            #expect(eventually { (try? Desktop.describe(playing.id)).map { $0.width == 320 && $0.height == 240 } ?? false },
                    "\(String(describing: try? Desktop.describe(playing.id)))")
            #expect(client.request([.string("quit")])?["error"] == .string("success"))
            #expect(player.wait(timeout: 10) == 0, "\(player.stderr)")
        }

        @Test("A video, then an audio file without a picture, then a video: the window shows, hides while the sound plays, and shows again")
        func windowFollowsThePicture() throws {
            let video = try Clips.tone(seconds: 12)
            let song = try Clips.plainSong()
            let folder = Fixtures.newFolder("audio-window-between")
            let socket = folder + "/hplayer.sock"
            let player = try BackgroundProcess([Command.hplayer, video, song, video, "--no-status", "--ao", "null", "--input-ipc-server", socket])
            let client = try IPCClient(path: socket)
            func get(_ name: String) -> JSONValue? { client.request([.string("get_property"), .string(name)])?["data"] }
            func visible(_ title: String) throws -> Bool {
                try Command.run(["xdotool", "search", "--onlyvisible", "--name", "^\(title)$"]).status == 0
            }
            let window = try Desktop.window(titled: "tone-12.mp4")
            #expect(try visible("tone-12.mp4"))
            #expect(client.request([.string("playlist-next")])?["error"] == .string("success"))
            #expect(eventually { get("playlist-pos") == .number(1) && (get("time-pos")?.number ?? 0) > 1 })
            #expect(eventually { (try? visible("plain-song.m4a")) == false }, "the window shows while the sound plays")
            #expect(client.request([.string("playlist-next")])?["error"] == .string("success"))
            #expect(eventually { (try? visible("tone-12.mp4")) == true }, "the window did not come back for the video")
            #expect(try Desktop.window(titled: "tone-12.mp4").id == window.id, "one window throughout")
            #expect(client.request([.string("quit")])?["error"] == .string("success"))
            #expect(player.wait(timeout: 10) == 0, "\(player.stderr)")
        }
    }

    /// mpv's --idle: the player waits on the IPC rather than exit.
    @Suite(.timeLimit(.minutes(1))) struct Idle {
        @Test("--idle with no file waits (idle-active); loadfile append waits still, append-play plays the file (ffmpeg's frames), at its end the player waits again, and quit exits 0")
        func waitsForLoadfile() throws {
            let clip = try Clips.audioVideo(seconds: 2)
            let folder = Fixtures.newFolder("idle")
            let socket = folder + "/hplayer.sock"
            let player = try BackgroundProcess([Command.hplayer, "--idle", "--vo", "record:\(folder)", "--ao", "null", "--untimed",
                                                "--no-status", "--input-ipc-server", socket])
            let client = try IPCClient(path: socket)
            func get(_ name: String) -> JSONValue? { client.request([.string("get_property"), .string(name)])?["data"] }
            #expect(get("idle-active") == .bool(true))
            #expect(client.request([.string("loadfile"), .string(clip), .string("append")])?["error"] == .string("success"))
            #expect(get("playlist-count") == .number(1))
            #expect(get("idle-active") == .bool(true), "append alone starts nothing")
            #expect(client.request([.string("loadfile"), .string(clip), .string("append-play")])?["error"] == .string("success"))
            #expect(client.event("end-file", timeout: 30)?["reason"] == .string("eof"))
            #expect(eventually { get("idle-active") == .bool(true) })
            #expect(player.isRunning, "the player exited at the end of the list")
            #expect(get("playlist-pos") == .number(-1))
            let presented = try String(contentsOfFile: folder + "/video.tsv", encoding: .utf8).split(separator: "\n")
                .map { String($0.split(separator: "\t")[2]) }
            #expect(presented == (try Fixtures.frameMD5s(clip)))
            #expect(client.request([.string("quit")])?["error"] == .string("success"))
            #expect(player.wait(timeout: 10) == 0, "\(player.stderr)")
        }

        @Test("Without --idle and without a file, a one-line usage error and a non-zero exit")
        func noFileIsAUsageError() throws {
            let result = try Command.run([Command.hplayer, "--vo", "null", "--ao", "null"], timeout: 30)
            #expect(result.status != 0)
            #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains("no file to play"), "\(result.stderr)")
        }
    }
}
