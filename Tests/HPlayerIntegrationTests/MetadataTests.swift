import Foundation
import HPlayerIPC
import HPlayerKit
import HPlayerSDL
import HPlayerTestSupport
import Testing

extension Clips {
    /// 6 s of a dark blue picture (nothing on it looks like a chapter tick) and a tone, H.264 + AAC in Matroska, tagged (title, artist, album) and in
    /// three chapters: Intro at 0, Middle at 2 s, End at 4 s. One key frame, at the start, so a
    /// chapter is reached only by an exact seek.
    static func chaptered() throws -> String {
        let folder = Fixtures.newFolder("chaptered-metadata")
        let metadata = folder + "/metadata.txt"
        var text = ";FFMETADATA1\ntitle=Song Title\nartist=The Artist\nalbum=An Album\n"
        for (start, title) in [(0, "Intro"), (2000, "Middle"), (4000, "End")] {
            text += "[CHAPTER]\nTIMEBASE=1/1000\nSTART=\(start)\nEND=\(start + 2000)\ntitle=\(title)\n"
        }
        try text.write(toFile: metadata, atomically: true, encoding: .utf8)
        return try Fixtures.clip("chaptered-navy.mkv", [
            "-f", "lavfi", "-i", "color=c=navy:size=320x240:rate=25:duration=6",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=6",
            "-i", metadata, "-map", "0", "-map", "1", "-map_metadata", "2", "-map_chapters", "2",
            "-c:v", "libx264", "-preset", "ultrafast", "-g", "1000", "-pix_fmt", "yuv420p", "-c:a", "aac"])
    }
}

extension Playback {
    /// Tags and chapters, as mpv shows them: printed on opening, read over the IPC, and chapters
    /// seeked to.
    @Suite(.timeLimit(.minutes(1))) struct Metadata {
        @Test("On opening, the file's tags are printed under File tags (Artist, Album, Title, mpv's order) and its chapters listed with their starts and titles")
        func printedOnOpening() throws {
            let folder = Fixtures.newFolder("metadata-printed")
            let result = try Command.run([Command.hplayer, try Clips.chaptered(), "--vo", "record:\(folder)", "--ao", "null",
                                          "--untimed", "--no-status"], timeout: 60)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            let tags = lines.firstIndex(of: "File tags:")
            #expect(tags.map { Array(lines[($0 + 1)...].prefix(3)) } == [" Artist: The Artist", " Album: An Album", " Title: Song Title"],
                    "\(result.stdout)")
            let chapters = lines.firstIndex(of: "Chapters:")
            #expect(chapters.map { Array(lines[($0 + 1)...].prefix(3)) }
                        == [" 1: 00:00:00.000 Intro", " 2: 00:00:02.000 Middle", " 3: 00:00:04.000 End"], "\(result.stdout)")
        }

        @Test("The IPC reads media-title (the title tag), metadata (every tag), chapters, chapter-list and chapter; setting chapter seeks to its start exactly (paused: the position within a frame of the chapter's start), add chapter -1 from a chapter's start goes to the one before, and past the last chapter playback ends")
        func overTheIPC() throws {
            let folder = Fixtures.newFolder("metadata-ipc")
            let socket = folder + "/hplayer.sock"
            let player = try BackgroundProcess([Command.hplayer, try Clips.chaptered(), "--vo", "null", "--ao", "null", "--no-status",
                                                "--input-ipc-server", socket])
            let client = try IPCClient(path: socket)
            #expect(client.waitUntilLoaded())
            func get(_ name: String) -> JSONValue? { client.request([.string("get_property"), .string(name)])?["data"] }
            func isAt(_ seconds: Double) -> Bool { get("time-pos")?.number.map { abs($0 - seconds) < 0.05 } ?? false }
            #expect(client.request([.string("set_property"), .string("pause"), .bool(true)])?["error"] == .string("success"))
            #expect(get("media-title") == .string("Song Title"))
            let metadata = get("metadata")
            #expect(metadata?["ARTIST"] == .string("The Artist") && metadata?["ALBUM"] == .string("An Album")
                    && metadata?["title"] == .string("Song Title"), "\(String(describing: metadata))")
            #expect(get("chapters") == .number(3))
            #expect(get("chapter-list") == .array([
                .object(["title": .string("Intro"), "time": .number(0)]),
                .object(["title": .string("Middle"), "time": .number(2)]),
                .object(["title": .string("End"), "time": .number(4)]),
            ]))
            #expect(get("chapter") == .number(0) || get("chapter") == .number(1), "paused within the first 4 s")
            #expect(client.request([.string("set_property"), .string("chapter"), .number(2)])?["error"] == .string("success"))
            #expect(eventually { isAt(4) }, "time-pos \(String(describing: get("time-pos")))")
            #expect(get("chapter") == .number(2))
            #expect(client.request([.string("add"), .string("chapter"), .string("-1")])?["error"] == .string("success"))
            #expect(eventually { isAt(2) }, "time-pos \(String(describing: get("time-pos")))")
            #expect(get("chapter") == .number(1))
            #expect(client.request([.string("add"), .string("chapter"), .string("2")])?["error"] == .string("success"))
            #expect(player.wait(timeout: 10) == 0, "\(player.stderr)")
        }
    }

    @Suite(.desktop, .enabled(if: Desktop.unavailableReason == nil, Comment(rawValue: Desktop.unavailableReason ?? "")), .timeLimit(.minutes(1)))
    struct MetadataInTheWindow {
        @Test("In the window: the title is the file's title tag, the progress bar has a yellow tick at each chapter's start (2 s and 4 s of 6), PgDn seeks to the next chapter and PgUp back")
        func chaptersInTheWindow() throws {
            let folder = Fixtures.newFolder("metadata-window")
            let socket = folder + "/hplayer.sock"
            let player = try BackgroundProcess([Command.hplayer, try Clips.chaptered(), "--no-status", "--ao", "null",
                                                "--input-ipc-server", socket])
            let client = try IPCClient(path: socket)
            #expect(client.waitUntilLoaded())
            let window = try Desktop.window(titled: "Song Title")
            func get(_ name: String) -> JSONValue? { client.request([.string("get_property"), .string(name)])?["data"] }
            func isAt(_ seconds: Double) -> Bool { get("time-pos")?.number.map { abs($0 - seconds) < 0.05 } ?? false }
            // Paused, the progress bar stays on screen. Positions within a frame of a chapter's
            // start: where the exact seek stopped, by the picture's or the sound's frame.
            #expect(client.request([.string("set_property"), .string("pause"), .bool(true)])?["error"] == .string("success"))
            #expect(client.request([.string("seek"), .number(0.5), .string("absolute"), .string("exact")])?["error"] == .string("success"))
            #expect(eventually { isAt(0.5) })
            try Desktop.press("Next", in: window)
            #expect(eventually { isAt(2) }, "time-pos \(String(describing: get("time-pos")))")
            let chapter = get("chapter")?.number ?? -1
            try Desktop.press("Prior", in: window)
            #expect(eventually { get("chapter")?.number == chapter - 1 }, "chapter \(String(describing: get("chapter"))) after \(chapter)")
            let bar = WindowLayout.progressBar(window: (window.width, window.height))
            let pixels = try Desktop.screenshot(window)
            func isYellow(x: Int) -> Bool {
                // Above the bar, where only the tick reaches.
                let offset = ((bar.y - 2) * window.width + x) * 3
                return pixels[offset] > 200 && pixels[offset + 1] > 150 && pixels[offset + 2] < 100
            }
            for fraction in [1.0 / 3, 2.0 / 3] {
                let x = bar.x + Int((fraction * Double(bar.width)).rounded())
                #expect((x - 2...x + 2).contains { isYellow(x: $0) }, "no chapter tick at \(fraction) of the bar")
            }
            #expect(!(bar.x + 5..<bar.x + bar.width / 4).contains { isYellow(x: $0) }, "a tick where no chapter starts")
            try Desktop.press("q", in: window)
            #expect(player.wait(timeout: 10) == 0, "\(player.stderr)")
        }
    }
}
