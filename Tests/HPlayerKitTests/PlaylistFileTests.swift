import HPlayerKit
import Testing

/// Playlist files read as players write them, and names sorted as people sort them.
@Suite struct PlaylistFileTests {
    @Test("Formats: by name, and by content where HLS could hide behind .m3u8", arguments: [
        ("list.m3u", "#EXTM3U\n#EXTINF:10,A\na.mp4\n", PlaylistFile.Format?.some(.m3u)),
        ("list.M3U8", "a.mp4\nb.mkv\n", .m3u),
        ("live.m3u8", "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\nseg.ts\n", nil),
        ("master.m3u8", "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000\nlow.m3u8\n", nil),
        ("radio.pls", "[playlist]\nFile1=a.mp3\n", .pls),
        ("whatever.txt", "\u{FEFF}[Playlist]\nFile1=a.mp3\n", .pls),
        ("clip.mp4", "a.mp4\n", nil),
    ])
    func format(name: String, text: String, format: PlaylistFile.Format?) {
        #expect(PlaylistFile.format(name: name, text: text) == format)
    }

    @Test("Entries: comments and blank lines left out, relative paths placed in the playlist's folder, URLs and absolute paths as they are", arguments: [
        ("#EXTM3U\r\n#EXTINF:123,Artist - Title\r\n  a.mp4  \r\n\r\n/abs/b.mkv\r\nhttp://host/c.ts\r\nsub/d.webm\r\n", PlaylistFile.Format.m3u, "/music",
         ["/music/a.mp4", "/abs/b.mkv", "http://host/c.ts", "/music/sub/d.webm"]),
        ("[playlist]\nNumberOfEntries=3\nFile2=second.mp3\nTitle2=Second\nFile1=first.mp3\nFile10=tenth.mp3\nVersion=2\n", .pls, "/r",
         ["/r/first.mp3", "/r/second.mp3", "/r/tenth.mp3"]),
        ("a.mp4\n# not a file\nb.mp4\n", .lines, "/x/", ["/x/a.mp4", "/x/b.mp4"]),
        ("seg/a.ts\n../b.ts\n", .m3u, "http://host/list/", ["http://host/list/seg/a.ts", "http://host/b.ts"]),
        ("/root.mp4\nhttps://other/x.mp4\n", .m3u, "http://host/list/", ["http://host/root.mp4", "https://other/x.mp4"]),  // a remote list's "/x": its server's
    ])
    func entries(text: String, format: PlaylistFile.Format, folder: String, entries: [String]) {
        #expect(PlaylistFile.entries(text, format: format, folder: folder) == entries)
    }

    @Test("Natural order: digit runs by value, letters case aside", arguments: [
        ("ep2.mkv", "ep10.mkv", true),
        ("ep10.mkv", "ep2.mkv", false),
        ("Alpha.mp4", "beta.mp4", true),
        ("beta.mp4", "Alpha.mp4", false),
        ("track 9", "track 10", true),
        ("a1b2", "a1b10", true),
        ("a", "a1", true),
        ("01.mp3", "1.mp3", true),  // the same value: a fixed order still
        ("1.mp3", "01.mp3", false),
        ("x", "x", false),
    ])
    func naturalOrder(a: String, b: String, precedes: Bool) {
        #expect(NaturalOrder.precedes(a, b) == precedes)
    }
}
