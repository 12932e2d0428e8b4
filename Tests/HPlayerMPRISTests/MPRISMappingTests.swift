import HPlayerIPC
import HPlayerKit
@testable import HPlayerMPRIS
import Testing

struct MPRISMappingTests {
    /// A file playing: the second of three entries, tagged, at 2.5 s of 10.
    static let playing: [String: JSONValue] = [
        "pause": .bool(false), "eof-reached": .bool(false), "time-pos": .number(2.5), "duration": .number(10),
        "speed": .number(1.5), "volume": .number(40), "loop-file": .bool(false), "playlist-pos": .number(1),
        "playlist-count": .number(3),
        "playlist": .array([.object(["filename": .string("/m/a.mp4"), "id": .number(1)]),
                            .object(["filename": .string("clips/b c.mp4"), "id": .number(2), "current": .bool(true), "playing": .bool(true)]),
                            .object(["filename": .string("http://host/c.m3u8"), "id": .number(3)])]),
        "media-title": .string("The Title"),
        "metadata": .object(["TITLE": .string("The Title"), "Artist": .string("Someone"), "album": .string("Songs")]),
    ]

    static var playingState: MPRISState {
        var state = MPRISState()
        state.status = .playing
        state.rate = 1.5
        state.volume = 0.4
        state.position = 2_500_000
        state.length = 10_000_000
        state.trackID = "/org/hplayer/track/2"
        state.title = "The Title"
        state.artists = ["Someone"]
        state.album = "Songs"
        state.url = "file:///home/me/clips/b%20c.mp4"
        state.canGoNext = true
        state.canGoPrevious = true
        state.canSeek = true
        return state
    }

    static func changed(_ properties: [String: JSONValue], _ change: (inout MPRISState) -> Void) -> ([String: JSONValue], MPRISState) {
        var state = playingState
        change(&state)
        return (properties, state)
    }

    @Test("mpv's properties to MPRIS's state", arguments: [
        (playing, playingState),
        changed(playing.merging(["pause": .bool(true)]) { $1 }) { $0.status = .paused },
        changed(playing.merging(["eof-reached": .bool(true)]) { $1 }) { $0.status = .stopped },
        changed(playing.merging(["loop-file": .string("inf")]) { $1 }) { $0.loop = .track },
        changed(playing.merging(["loop-playlist": .string("inf"), "playlist-pos": .number(2)]) { $1 }) {
            $0.loop = .playlist
            $0.canGoNext = true  // round to the first
        },
        changed(playing.merging(["playlist-pos": .number(2)]) { $1 }) { $0.canGoNext = false },
        changed(playing.merging(["playlist-pos": .number(0)]) { $1 }) { $0.canGoPrevious = false },
        changed(playing.merging(["volume": .number(130)]) { $1 }) { $0.volume = 1 },
        // Without tags (before mpv's metadata is read): the media title, else the file's name.
        changed(playing.filter { $0.key != "metadata" }) {
            $0.artists = []
            $0.album = nil
        },
        changed(playing.filter { $0.key != "metadata" && $0.key != "media-title" }) {
            $0.title = "b c.mp4"
            $0.artists = []
            $0.album = nil
        },
        changed(playing.filter { $0.key != "duration" }) {
            $0.length = nil
            $0.canSeek = false
        },
        changed(playing.merging(["seekable": .bool(false)]) { $1 }) { $0.canSeek = false },
        // Between files: no track, whatever the playlist says.
        (["playlist-pos": .number(0), "playlist-count": .number(2)], {
            var state = MPRISState()
            state.canGoNext = true
            return state
        }()),
        ([:], MPRISState()),
    ])
    func state(properties: [String: JSONValue], expected: MPRISState) {
        #expect(MPRISMapping.state(from: properties, workingDirectory: "/home/me") == expected)
    }

    @Test("The Player properties of a state; Metadata holds what is known")
    func playerProperties() {
        let properties = MPRISMapping.playerProperties(Self.playingState)
        #expect(properties["PlaybackStatus"] == .string("Playing"))
        #expect(properties["LoopStatus"] == .string("None"))
        #expect(properties["Rate"] == .double(1.5))
        #expect(properties["Volume"] == .double(0.4))
        #expect(properties["Position"] == .int64(2_500_000))
        #expect(properties["MinimumRate"] == .double(0.25))
        #expect(properties["MaximumRate"] == .double(4))
        #expect(properties["CanControl"] == .bool(true))
        #expect(properties["Metadata"] == .dictionary([
            "mpris:trackid": .objectPath("/org/hplayer/track/2"), "mpris:length": .int64(10_000_000),
            "xesam:title": .string("The Title"), "xesam:artist": .strings(["Someone"]), "xesam:album": .string("Songs"),
            "xesam:url": .string("file:///home/me/clips/b%20c.mp4"),
        ]))
        let stopped = MPRISMapping.playerProperties(MPRISState())
        #expect(stopped["Metadata"] == .dictionary(["mpris:trackid": .objectPath(MPRISState.noTrack)]))
        #expect(stopped["CanPlay"] == .bool(false))
        #expect(stopped["CanPause"] == .bool(false))
    }

    @Test("PropertiesChanged carries what changed, never Position; Seeked is due for a jump the rate does not explain", arguments: [
        // (the state 0.15 s after playingState, the properties changed, a seek)
        (playingState, [String](), false),
        (stateWith { $0.position += 150_000 * 3 / 2 }, [], false),  // played at 1.5x
        (stateWith { $0.position += 5_000_000 }, [], true),
        (stateWith { $0.position = 0 }, [], true),  // back to the start (a loop)
        (stateWith { $0.status = .paused }, ["PlaybackStatus"], false),
        (stateWith { $0.volume = 0.5 }, ["Volume"], false),
        (stateWith { $0.rate = 2 }, ["Rate"], false),
        (stateWith { $0.loop = .track }, ["LoopStatus"], false),
        (stateWith { $0.canGoNext = false }, ["CanGoNext"], false),
        (stateWith { $0.title = "Other" }, ["Metadata"], false),
        // A new track from its start: no seek.
        (stateWith { $0.trackID = "/org/hplayer/track/3"; $0.position = 0 }, ["Metadata"], false),
        (MPRISState(), ["CanGoNext", "CanGoPrevious", "CanPause", "CanPlay", "CanSeek", "Metadata", "PlaybackStatus", "Rate", "Volume"], false),
    ])
    func changes(new: MPRISState, properties: [String], isSeek: Bool) {
        #expect(MPRISMapping.changedProperties(from: Self.playingState, to: new).keys.sorted() == properties)
        #expect(MPRISMapping.isSeek(from: Self.playingState, to: new, elapsed: 0.15) == isSeek)
    }

    @Test("A paused player's position stands still: any move is a seek")
    func pausedSeek() {
        var old = Self.playingState
        old.status = .paused
        var new = old
        new.position += 600_000
        #expect(MPRISMapping.isSeek(from: old, to: new, elapsed: 1))
        #expect(!MPRISMapping.isSeek(from: old, to: old, elapsed: 1))
    }

    static func stateWith(_ change: (inout MPRISState) -> Void) -> MPRISState {
        var state = playingState
        change(&state)
        return state
    }

    @Test("MPRIS's actions to mpv's commands", arguments: [
        (MPRISAction.playPause, playingState, [IPCCommand.cycle("pause", up: true)]),
        (.playPause, MPRISState(), []),
        (.play, playingState, [.set("pause", .bool(false))]),
        (.pause, playingState, [.set("pause", .bool(true))]),
        (.stop, playingState, [.playlist(.play(index: -1))]),
        (.next, playingState, [.playlist(.next(force: false))]),
        (.next, stateWith { $0.canGoNext = false }, []),
        (.previous, playingState, [.playlist(.previous(force: false))]),
        (.previous, stateWith { $0.canGoPrevious = false }, []),
        (.seek(offset: -1_500_000), playingState, [.seek(target: -1.5, reference: .relative, precision: nil)]),
        (.seek(offset: 8_000_000), playingState, [.playlist(.next(force: false))]),  // past the end
        (.seek(offset: 8_000_000), stateWith { $0.canGoNext = false }, []),
        (.seek(offset: 1_000_000), stateWith { $0.canSeek = false }, []),
        (.setPosition(trackID: "/org/hplayer/track/2", position: 4_250_000), playingState,
         [.seek(target: 4.25, reference: .absolute, precision: .exact)]),
        (.setPosition(trackID: "/org/hplayer/track/1", position: 4_000_000), playingState, []),  // stale trackid
        (.setPosition(trackID: "/org/hplayer/track/2", position: 11_000_000), playingState, []),  // past the end
        (.setPosition(trackID: "/org/hplayer/track/2", position: -1), playingState, []),
        (.openURI("file:///home/me/a%20b.mp4"), playingState, [.loadFile(url: "/home/me/a b.mp4", mode: .replace)]),
        (.openURI("file://localhost/x.mkv"), playingState, [.loadFile(url: "/x.mkv", mode: .replace)]),
        (.openURI("https://host/a.m3u8?x=%20"), playingState, [.loadFile(url: "https://host/a.m3u8?x=%20", mode: .replace)]),
        (.quit, playingState, [.quit(code: 0)]),
        (.setLoop(.none), playingState, [.set("loop-file", .bool(false)), .set("loop-playlist", .string("no"))]),
        (.setLoop(.track), playingState, [.set("loop-file", .string("inf"))]),
        (.setLoop(.playlist), playingState, [.set("loop-file", .bool(false)), .set("loop-playlist", .string("inf"))]),
        (.setRate(2), playingState, [.set("speed", .number(2))]),
        (.setRate(10), playingState, [.set("speed", .number(4))]),
        (.setRate(0), playingState, [.set("pause", .bool(true))]),
        (.setVolume(0.555), playingState, [.set("volume", .number(56))]),
        (.setVolume(-1), playingState, [.set("volume", .number(0))]),
        (.setVolume(1.5), playingState, [.set("volume", .number(100))]),
    ])
    func commands(action: MPRISAction, state: MPRISState, expected: [IPCCommand]) {
        #expect(MPRISMapping.commands(for: action, in: state) == expected)
    }

    @Test("Properties.Set: LoopStatus, Rate and Volume are written; the rest refused", arguments: [
        ("LoopStatus", DBusValue.string("Track"), Result<MPRISAction, MPRISMapping.SetRefusal>.success(.setLoop(.track))),
        ("LoopStatus", .string("Sideways"), .failure(.invalidValue)),
        ("Rate", .variant(.double(0.5)), .success(.setRate(0.5))),
        ("Rate", .double(.nan), .failure(.invalidValue)),
        ("Volume", .double(0.25), .success(.setVolume(0.25))),
        ("Volume", .int32(1), .failure(.invalidValue)),
        ("Position", .int64(0), .failure(.readOnly)),
        ("PlaybackStatus", .string("Paused"), .failure(.readOnly)),
        ("Loudness", .double(1), .failure(.unknownProperty)),
    ])
    func set(name: String, value: DBusValue, expected: Result<MPRISAction, MPRISMapping.SetRefusal>) {
        #expect(MPRISMapping.action(setting: name, to: value) == expected)
    }

    @Test("A path to a file:// URL and back; a URL stays as it is")
    func urls() {
        #expect(FileURL.url(of: "a b/ç#.mp4", workingDirectory: "/w") == "file:///w/a%20b/%C3%A7%23.mp4")
        #expect(FileURL.path(ofURI: "file:///w/a%20b/%C3%A7%23.mp4") == "/w/a b/ç#.mp4")
        #expect(FileURL.url(of: "https://host/x.mp4", workingDirectory: "/w") == "https://host/x.mp4")
        #expect(FileURL.path(ofURI: "FILE:///tmp/%zz") == "/tmp/%zz")
    }

    @Test("Art file: the first picture of mpv-mpris's names beside a local file; none for a network URL")
    func coverArt() {
        let files: Set = ["/music/a b/folder.png", "/music/a b/cover.jpg", "/music/x/Front.webp"]
        #expect(ArtFile.url(besideTrack: "file:///music/a%20b/1.flac") { files.contains($0) } == "file:///music/a%20b/cover.jpg")
        #expect(ArtFile.url(besideTrack: "file:///music/x/1.flac") { files.contains($0) } == "file:///music/x/Front.webp")
        #expect(ArtFile.url(besideTrack: "file:///music/none/1.flac") { files.contains($0) } == nil)
        #expect(ArtFile.url(besideTrack: "https://host/music/a%20b/1.flac") { _ in true } == nil)
    }
}
