import HPlayerIPC
import Testing

struct IPCRequestTests {
    private static func parse(_ text: String) -> Result<IPCRequest, IPCFailure> {
        IPCRequest.parse(Array(text.utf8))
    }

    @Test("Requests as mpv's clients send them", arguments: [
        (#"{"command": ["loadfile", "a.mp4"]}"#, IPCCommand.loadFile(url: "a.mp4", mode: .replace), JSONValue.number(0)),
        (#"{"command": ["loadfile", "a.mp4", "append-play"], "request_id": 4}"#, .loadFile(url: "a.mp4", mode: .appendPlay), .number(4)),
        (#"{"command": ["seek", 10], "request_id": "x"}"#, .seek(target: 10, reference: .relative, precision: nil), .string("x")),
        (#"{"command": ["seek", "-2.5", "absolute+exact"]}"#, .seek(target: -2.5, reference: .absolute, precision: .exact), .number(0)),
        (#"{"command": ["seek", 50, "absolute-percent", "keyframes"]}"#, .seek(target: 50, reference: .absolutePercent, precision: .keyframes), .number(0)),
        (#"{"command": ["get_property", "time-pos"], "request_id": 1}"#, .getProperty("time-pos"), .number(1)),
        (#"{"command": ["set_property", "pause", true]}"#, .setProperty("pause", .bool(true)), .number(0)),
        (#"{"command": ["observe_property", 7, "pause"]}"#, .observeProperty(id: 7, name: "pause"), .number(0)),
        (#"{"command": ["unobserve_property", 7]}"#, .unobserveProperty(id: 7), .number(0)),
        (#"{"command": ["frame-step"]}"#, .frameStep(forward: true), .number(0)),
        (#"{"command": ["frame-back-step"], "request_id": 2}"#, .frameStep(forward: false), .number(2)),
        (#"{"command": ["quit"]}"#, .quit(code: 0), .number(0)),
        (#"{"command": ["quit", 3]}"#, .quit(code: 3), .number(0)),
        (#"{"command": ["screenshot"]}"#, .screenshot(withSubtitles: true), .number(0)),
        (#"{"command": ["screenshot", "subtitles"]}"#, .screenshot(withSubtitles: true), .number(0)),
        (#"{"command": ["screenshot", "video"]}"#, .screenshot(withSubtitles: false), .number(0)),
        (#"{"command": ["screenshot", "video+each-frame"]}"#, .screenshot(withSubtitles: false), .number(0)),
        (#"{"command": ["screenshot", "window"]}"#, .screenshot(withSubtitles: true), .number(0)),
        (#"{"command": ["loadlist", "list.m3u"]}"#, .loadList(path: "list.m3u", mode: .replace), .number(0)),
        (#"{"command": ["loadlist", "list.m3u", "append"]}"#, .loadList(path: "list.m3u", mode: .append), .number(0)),
        (#"{"command": ["playlist-next"]}"#, .playlist(.next(force: false)), .number(0)),
        (#"{"command": ["playlist-next", "force"]}"#, .playlist(.next(force: true)), .number(0)),
        (#"{"command": ["playlist-prev", "weak"]}"#, .playlist(.previous(force: false)), .number(0)),
        (#"{"command": ["playlist-clear"]}"#, .playlist(.clear), .number(0)),
        (#"{"command": ["playlist-remove", "current"]}"#, .playlist(.remove(index: nil)), .number(0)),
        (#"{"command": ["playlist-remove", 2]}"#, .playlist(.remove(index: 2)), .number(0)),
        (#"{"command": ["playlist-move", "0", 3]}"#, .playlist(.move(from: 0, to: 3)), .number(0)),
        (#"{"command": ["set", "pause", "yes"]}"#, .set("pause", .string("yes")), .number(0)),
        (#"{"command": ["add", "volume", -10]}"#, .add("volume", -10), .number(0)),
        (#"{"command": ["add", "volume"]}"#, .add("volume", 1), .number(0)),
        (#"{"command": ["multiply", "speed", "2"]}"#, .multiply("speed", 2), .number(0)),
        (#"{"command": ["cycle", "pause"]}"#, .cycle("pause", up: true), .number(0)),
        (#"{"command": ["cycle", "sid", "down"]}"#, .cycle("sid", up: false), .number(0)),
    ])
    func parses(text: String, command: IPCCommand, requestID: JSONValue) throws {
        let request = try Self.parse(text).get()
        #expect(request.command == command)
        #expect(request.requestID == requestID)
    }

    @Test("What mpv answers with \"invalid parameter\", or ignores", arguments: [
        ("{not json", JSONValue?.some(.number(0))),
        (#"{"command": ["nosuch"], "request_id": 8}"#, .number(8)),
        (#"{"command": [], "request_id": 8}"#, .number(8)),
        (#"{"command": "seek 1", "request_id": 8}"#, .number(8)),
        (#"{"request_id": 8}"#, .number(8)),
        (#"{"command": ["seek", "x"]}"#, .number(0)),
        (#"{"command": ["seek", 1, "sideways"]}"#, .number(0)),
        (#"{"command": ["get_property"]}"#, .number(0)),
        (#"{"command": ["loadfile", "a.mp4", "shuffle"]}"#, .number(0)),
        (#"{"command": ["playlist-next", "now"]}"#, .number(0)),
        (#"{"command": ["playlist-remove"]}"#, .number(0)),
        (#"{"command": ["playlist-move", 1]}"#, .number(0)),
        (#"{"command": ["playlist-move", 1.5, 2]}"#, .number(0)),
        (#"{"command": ["multiply", "volume"]}"#, .number(0)),
        (#"{"command": ["cycle", "mute", "sideways"]}"#, .number(0)),
        (#"{"command": ["set", "pause"]}"#, .number(0)),
        (#"[1, 2]"#, nil),
        (#""text""#, nil),
    ])
    func refuses(text: String, requestID: JSONValue?) {
        guard case .failure(let failure) = Self.parse(text) else {
            Issue.record("accepted: \(text)")
            return
        }
        #expect(failure == IPCFailure(requestID: requestID, error: .invalidParameter))
    }

    @Test func repliesAndEventsAreLinesInMpvsShape() {
        #expect(IPCMessage.reply(.number(3), data: .some(.number(1.5))).line == #"{"data":1.5,"error":"success","request_id":3}"# + "\n")
        #expect(IPCMessage.reply(.number(3), data: .some(.null)).line == #"{"data":null,"error":"success","request_id":3}"# + "\n")
        #expect(IPCMessage.reply(.string("a"), error: .propertyNotFound).line
            == #"{"error":"property not found","request_id":"a"}"# + "\n")
        #expect(IPCMessage.event("end-file", ["reason": .string("eof"), "playlist_entry_id": .number(1)]).line
            == #"{"event":"end-file","playlist_entry_id":1,"reason":"eof"}"# + "\n")
    }
}
