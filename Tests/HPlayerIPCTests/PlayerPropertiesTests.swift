import Foundation
import HPlayerIPC
import HPlayerKit
import Testing

struct PlayerPropertiesTests {
    static let snapshot = PropertySnapshot(isPaused: false, position: 3.5, duration: 10, volume: 80, isMuted: false, isLooping: true,
                                           isEndReached: false, isPausedForCache: false, cacheDuration: 2.25, avsync: -0.002,
                                           droppedFrames: 4, abLoop: ABLoop(a: 1.5), speed: 1.5)

    @Test("Reading", arguments: [
        ("pause", Result<JSONValue, IPCError>.success(.bool(false))),
        ("time-pos", .success(.number(3.5))),
        ("duration", .success(.number(10))),
        ("speed", .success(.number(1.5))),
        ("volume", .success(.number(80))),
        ("mute", .success(.bool(false))),
        ("loop-file", .success(.string("inf"))),
        ("eof-reached", .success(.bool(false))),
        ("paused-for-cache", .success(.bool(false))),
        ("demuxer-cache-duration", .success(.number(2.25))),
        ("cache-buffering-state", .success(.number(100))),
        ("demuxer-cache-state", .success(.object([
            "cache-end": .number(5.75), "reader-pts": .number(3.5), "cache-duration": .number(2.25), "fw-bytes": .number(123_456),
            "total-bytes": .number(123_456), "eof": .bool(false), "eof-cached": .bool(false), "bof-cached": .bool(false),
            "underrun": .bool(false), "idle": .bool(false), "seekable-ranges": .array([.object(["start": .number(0), "end": .number(4)])]), "raw-input-rate": .number(250_000),
            "debug-ts-last": .number(5.75), "debug-low-level-seeks": .number(0), "debug-byte-level-seeks": .number(0),
        ]))),
        ("cache-speed", .success(.number(250_000))),
        ("avsync", .success(.number(-0.002))),
        ("frame-drop-count", .success(.number(4))),
        ("ab-loop-a", .success(.number(1.5))),
        ("ab-loop-b", .success(.string("no"))),
        ("aid", .success(.number(2))),
        ("sid", .success(.bool(false))),
        ("secondary-sid", .success(.bool(false))),
        ("secondary-sub-text", .failure(.propertyUnavailable)),
        ("sub-visibility", .success(.bool(true))),
        ("sub-delay", .success(.number(0))),
        ("sub-text", .failure(.propertyUnavailable)),
        ("sub-scale", .success(.number(1))),
        ("sub-pos", .success(.number(100))),
        ("sub-start", .failure(.propertyUnavailable)),
        ("hls-bitrate", .success(.number(2_800_000))),
        ("video-params", .success(.object(["w": .number(1280), "h": .number(720)]))),
        ("no-such-thing", .failure(.propertyNotFound)),
    ])
    func reads(name: String, value: Result<JSONValue, IPCError>) {
        var snapshot = Self.snapshot
        snapshot.audioTrack = 2
        snapshot.bufferedBytes = 123_456
        snapshot.downloadSpeed = 250_000.4
        snapshot.cachedRanges = [TimeRange(start: 0, end: 4)]
        snapshot.hlsBitrate = 2_800_000
        snapshot.videoSize = PictureSize(width: 1280, height: 720)
        #expect(PlayerProperties.value(of: name, in: snapshot) == value)
    }

    @Test("sub-text, sub-start, sub-end and secondary-sub-text read the cues over the frame on screen; with a track but no cue, \"\" and unavailable",
          arguments: [(String?.some("Two\nlines"), Double?.some(1.5), Double?.some(2.0)), ("", nil, nil)])
    func subtitleShown(text: String?, start: Double?, end: Double?) {
        var snapshot = Self.snapshot
        snapshot.subtitleTrack = 1
        (snapshot.subtitleText, snapshot.subtitleStart, snapshot.subtitleEnd) = (text, start, end)
        #expect(PlayerProperties.value(of: "sub-text", in: snapshot) == .success(.string(text ?? "")))
        #expect(PlayerProperties.value(of: "sub-start", in: snapshot) == (start.map { .success(.number($0)) } ?? .failure(.propertyUnavailable)))
        #expect(PlayerProperties.value(of: "sub-end", in: snapshot) == (end.map { .success(.number($0)) } ?? .failure(.propertyUnavailable)))
        snapshot.secondarySubtitleTrack = 2
        snapshot.secondarySubtitleText = text
        #expect(PlayerProperties.value(of: "secondary-sid", in: snapshot) == .success(.number(2)))
        #expect(PlayerProperties.value(of: "secondary-sub-text", in: snapshot) == .success(.string(text ?? "")))
    }

    @Test("Tags and chapters read as mpv's: media-title from the title tag, else the file name; metadata every tag; chapter the one begun, -1 before the first, unavailable without chapters")
    func tagsAndChapters() {
        var snapshot = Self.snapshot
        snapshot.path = "/media/Some Film.mkv"
        #expect(PlayerProperties.value(of: "media-title", in: snapshot) == .success(.string("Some Film.mkv")))
        #expect(PlayerProperties.value(of: "filename", in: snapshot) == .success(.string("Some Film.mkv")))
        #expect(PlayerProperties.value(of: "chapter", in: snapshot) == .failure(.propertyUnavailable))
        #expect(PlayerProperties.value(of: "chapters", in: snapshot) == .success(.number(0)))
        #expect(PlayerProperties.value(of: "chapter-list", in: snapshot) == .success(.array([])))
        snapshot.tags = [MetadataTag(key: "TITLE", value: "The Title"), MetadataTag(key: "encoder", value: "Lavf")]
        snapshot.chapters = [Chapter(start: 1, end: 3, title: "One"), Chapter(start: 3, end: 6, title: nil)]
        #expect(PlayerProperties.value(of: "media-title", in: snapshot) == .success(.string("The Title")))
        #expect(PlayerProperties.value(of: "metadata", in: snapshot) == .success(.object(["TITLE": .string("The Title"), "encoder": .string("Lavf")])))
        #expect(PlayerProperties.value(of: "chapter-list", in: snapshot) == .success(.array([
            .object(["title": .string("One"), "time": .number(1)]), .object(["title": .string(""), "time": .number(3)]),
        ])))
        for (position, chapter) in [(0.5, -1.0), (1, 0), (2.99, 0), (3, 1), (10, 1)] {
            snapshot.position = position
            #expect(PlayerProperties.value(of: "chapter", in: snapshot) == .success(.number(chapter)), "at \(position)")
        }
        #expect(PlayerProperties.change(setting: "chapter", to: .number(1)) == .success(.chapter(1)))
        #expect(PlayerProperties.change(setting: "chapter", to: .string("x")) == .failure(.unsupportedFormat))
    }

    @Test func hlsBitrateAndVideoParamsAreUnavailableWithoutAVariantOrAPicture() {
        #expect(PlayerProperties.value(of: "hls-bitrate", in: Self.snapshot) == .failure(.propertyUnavailable))
        #expect(PlayerProperties.value(of: "video-params", in: Self.snapshot) == .failure(.propertyUnavailable))
    }

    @Test func unknownDurationAndLoopOffReadAsMpvs() {
        var snapshot = Self.snapshot
        snapshot.duration = nil
        snapshot.isLooping = false
        // cache-speed reads 0 where nothing is downloaded, as mpv's for a local file.
        #expect(PlayerProperties.value(of: "cache-speed", in: snapshot) == .success(.number(0)))
        #expect(PlayerProperties.value(of: "duration", in: snapshot) == .failure(.propertyUnavailable))
        #expect(PlayerProperties.value(of: "loop-file", in: snapshot) == .success(.bool(false)))
    }

    @Test("Setting", arguments: [
        ("pause", JSONValue.bool(true), Result<PropertyChange, IPCError>.success(.pause(true))),
        ("pause", .string("no"), .success(.pause(false))),
        ("pause", .number(1), .failure(.unsupportedFormat)),
        ("time-pos", .number(4.5), .success(.position(4.5))),
        ("ab-loop-a", .number(2), .success(.abLoopA(2))),
        ("ab-loop-b", .string("no"), .success(.abLoopB(nil))),
        ("ab-loop-b", .string("later"), .failure(.unsupportedFormat)),
        ("volume", .number(50), .success(.volume(50))),
        ("volume", .number(120), .success(.volume(100))),
        ("volume", .number(200), .failure(.unsupportedFormat)),
        ("volume", .string("abc"), .failure(.unsupportedFormat)),
        ("mute", .bool(true), .success(.mute(true))),
        ("loop-file", .string("inf"), .success(.loopFile(true))),
        ("loop-file", .bool(false), .success(.loopFile(false))),
        ("loop-file", .number(3), .failure(.unsupportedFormat)),
        ("speed", .number(1), .success(.speed(1))),
        ("speed", .string("0.25"), .success(.speed(0.25))),
        ("speed", .number(4), .success(.speed(4))),
        ("speed", .number(0.2), .failure(.accessDenied)),
        ("speed", .number(10), .failure(.accessDenied)),
        ("speed", .number(9999), .failure(.unsupportedFormat)),
        ("speed", .string("fast"), .failure(.unsupportedFormat)),
        ("duration", .number(3), .failure(.accessDenied)),
        ("aid", .number(2), .success(.audioTrack(2))),
        ("aid", .string("2"), .success(.audioTrack(2))),
        ("aid", .string("no"), .failure(.accessDenied)),
        ("aid", .number(1.5), .failure(.unsupportedFormat)),
        ("aid", .number(0), .failure(.unsupportedFormat)),
        ("sid", .number(1), .success(.subtitleTrack(1))),
        ("sid", .string("no"), .success(.subtitleTrack(nil))),
        ("sid", .bool(false), .success(.subtitleTrack(nil))),
        ("sid", .string("first"), .failure(.unsupportedFormat)),
        ("secondary-sid", .number(2), .success(.secondarySubtitleTrack(2))),
        ("secondary-sid", .string("no"), .success(.secondarySubtitleTrack(nil))),
        ("secondary-sid", .number(0), .failure(.unsupportedFormat)),
        ("sub-visibility", .bool(false), .success(.subtitleVisibility(false))),
        ("sub-visibility", .string("yes"), .success(.subtitleVisibility(true))),
        ("sub-visibility", .number(1), .failure(.unsupportedFormat)),
        ("sub-delay", .number(-0.25), .success(.subtitleDelay(-0.25))),
        ("sub-delay", .string("1.5"), .success(.subtitleDelay(1.5))),
        ("sub-delay", .number(1e9), .failure(.unsupportedFormat)),
        ("sub-scale", .number(1.5), .success(.subtitleScale(1.5))),
        ("sub-scale", .number(-1), .failure(.unsupportedFormat)),
        ("sub-pos", .string("20"), .success(.subtitlePosition(20))),
        ("sub-pos", .number(151), .failure(.unsupportedFormat)),
        ("frame-drop-count", .number(0), .failure(.accessDenied)),
        ("no-such-thing", .number(0), .failure(.propertyNotFound)),
    ])
    func sets(name: String, value: JSONValue, change: Result<PropertyChange, IPCError>) {
        #expect(PlayerProperties.change(setting: name, to: value) == change)
    }
}

struct TrackListTests {
    static func stream(_ index: Int, _ type: StreamType, codec: String, language: String? = nil, width: Int? = nil, height: Int? = nil,
                       sampleRate: Int? = nil, channels: Int? = nil, cover: Bool = false) -> StreamInfo {
        // Decoded: StreamInfo is Codable, and has no public initializer.
        var fields: [String: Any] = ["index": index, "type": type.rawValue, "codec": codec, "isDefault": index == 0, "isAttachedPicture": cover]
        fields["language"] = language
        fields["width"] = width
        fields["height"] = height
        fields["sampleRate"] = sampleRate
        fields["channels"] = channels
        return try! JSONDecoder().decode(StreamInfo.self, from: JSONSerialization.data(withJSONObject: fields))
    }

    /// An HLS variant's video, two audio streams, a cover picture, a file's subtitle stream and an external one.
    static let streams = [
        stream(0, .video, codec: "h264", width: 640, height: 360),
        stream(1, .audio, codec: "aac", language: "eng", sampleRate: 48000, channels: 2),
        stream(2, .audio, codec: "aac", language: "fra", sampleRate: 44100, channels: 1),
        stream(3, .video, codec: "mjpeg", width: 300, height: 300, cover: true),
    ]
    static let subtitles = [
        SubtitleTrackDescription(streamIndex: 4, path: nil, codec: "subrip", language: "eng", title: nil, isDefault: false),
        SubtitleTrackDescription(streamIndex: nil, path: "/films/a.fr.srt", codec: "subrip", language: nil, title: nil, isDefault: false),
    ]

    @Test func eachStreamIsAnEntryNumberedPerTypeWithThePlayingVariantsBitrateAndSize() {
        var snapshot = PlayerPropertiesTests.snapshot
        snapshot.tracks = TrackListEntry.entries(streams: Self.streams, playing: [0, 2], subtitles: Self.subtitles, shownSubtitle: 2,
                                                 variantBandwidth: 2_800_000, pictureSize: PictureSize(width: 1280, height: 720))
        let common: [String: JSONValue] = ["forced": .bool(false), "external": .bool(false)]
        #expect(PlayerProperties.value(of: "track-list", in: snapshot) == .success(.array([
            .object(common.merging(["id": .number(1), "type": .string("video"), "selected": .bool(true), "codec": .string("h264"), "default": .bool(true),
                                    "demux-w": .number(1280), "demux-h": .number(720), "hls-bitrate": .number(2_800_000)]) { $1 }),
            .object(common.merging(["id": .number(1), "type": .string("audio"), "selected": .bool(false), "codec": .string("aac"), "default": .bool(false),
                                    "lang": .string("eng"), "demux-samplerate": .number(48000), "demux-channel-count": .number(2)]) { $1 }),
            .object(common.merging(["id": .number(2), "type": .string("audio"), "selected": .bool(true), "codec": .string("aac"), "default": .bool(false),
                                    "lang": .string("fra"), "demux-samplerate": .number(44100), "demux-channel-count": .number(1)]) { $1 }),
            .object(common.merging(["id": .number(1), "type": .string("sub"), "selected": .bool(false), "codec": .string("subrip"), "default": .bool(false),
                                    "lang": .string("eng")]) { $1 }),
            .object(["id": .number(2), "type": .string("sub"), "selected": .bool(true), "codec": .string("subrip"), "default": .bool(false),
                     "forced": .bool(false), "external": .bool(true), "external-filename": .string("/films/a.fr.srt")]),
        ])))
    }

    @Test func withoutAVariantOrAPictureTheStreamsOwnSize() {
        let entries = TrackListEntry.entries(streams: Self.streams, playing: [0, 1], subtitles: [], shownSubtitle: nil,
                                             variantBandwidth: nil, pictureSize: nil)
        #expect(entries.first?.width == 640 && entries.first?.height == 360 && entries.first?.hlsBitrate == nil)
        #expect(entries.map(\.kind) == [.video, .audio, .audio])
    }
}

/// mpv's playlist properties, read from the playlist's view; playlist-pos set.
struct PlaylistPropertyTests {
    @Test func entriesWithTheirIdsTheOnePlayingMarkedAndItsIndex() {
        var snapshot = PlayerPropertiesTests.snapshot
        snapshot.playlist = PlaylistView(entries: [PlaylistView.Entry(url: "/a.mp4", id: 1), PlaylistView.Entry(url: "http://h/b.mkv", id: 4)],
                                         playing: 1)
        #expect(PlayerProperties.value(of: "playlist", in: snapshot) == .success(.array([
            .object(["filename": .string("/a.mp4"), "id": .number(1)]),
            .object(["filename": .string("http://h/b.mkv"), "id": .number(4), "current": .bool(true), "playing": .bool(true)]),
        ])))
        #expect(PlayerProperties.value(of: "playlist-pos", in: snapshot) == .success(.number(1)))
        #expect(PlayerProperties.value(of: "playlist-playing-pos", in: snapshot) == .success(.number(1)))
        #expect(PlayerProperties.value(of: "playlist-count", in: snapshot) == .success(.number(2)))
        snapshot.playlist.playing = nil
        #expect(PlayerProperties.value(of: "playlist-pos", in: snapshot) == .success(.number(-1)))
    }

    @Test("Setting playlist-pos", arguments: [
        (JSONValue.number(2), Result<PropertyChange, IPCError>.success(.playlistPosition(2))),
        (.string("0"), .success(.playlistPosition(0))),
        (.number(1.5), .failure(.unsupportedFormat)),
        (.string("next"), .failure(.unsupportedFormat)),
    ])
    func sets(value: JSONValue, change: Result<PropertyChange, IPCError>) {
        #expect(PlayerProperties.change(setting: "playlist-pos", to: value) == change)
    }
}
