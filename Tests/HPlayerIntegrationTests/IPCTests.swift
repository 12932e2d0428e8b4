import Foundation
import HPlayerIPC
import HPlayerKit
import Testing

extension Playback {
    /// mpv's JSON IPC: one client drives hplayer and mpv with the same requests, and the answers
    /// must have the same shape.
    @Suite struct IPC {
        static let hasMpv = (try? Command.run(["which", "mpv"]))?.status == 0

        /// A running player with its socket and a client connected to it.
        struct Driven {
            let process: BackgroundProcess
            let socket: String
            let client: IPCClient
        }

        func hplayer(_ clip: String, _ extra: [String] = []) throws -> Driven {
            let socket = Fixtures.newFolder("ipc") + "/hplayer.sock"
            let process = try BackgroundProcess([Command.hplayer, clip, "--vo", "null", "--ao", "null", "--no-status",
                                                 "--input-ipc-server", socket] + extra)
            return Driven(process: process, socket: socket, client: try IPCClient(path: socket))
        }

        func mpv(_ clip: String, _ extra: [String] = []) throws -> Driven {
            let socket = Fixtures.newFolder("ipc") + "/mpv.sock"
            let process = try BackgroundProcess(["mpv", "--no-config", "--really-quiet", "--vo=null", "--ao=null",
                                                 "--input-ipc-server=\(socket)"] + extra + [clip])
            return Driven(process: process, socket: socket, client: try IPCClient(path: socket))
        }

        static let requests: [[JSONValue]] = PlayerProperties.names.map { [.string("get_property"), .string($0)] } + [
            [.string("get_property"), .string("no-such-property")],
            [.string("set_property"), .string("pause"), .bool(true)],
            [.string("get_property"), .string("pause")],
            [.string("set_property"), .string("pause"), .bool(false)],
            [.string("set_property"), .string("volume"), .number(50)],
            [.string("set_property"), .string("volume"), .string("loud")],
            [.string("set_property"), .string("speed"), .number(9999)],
            [.string("set_property"), .string("speed"), .number(2)],
            [.string("get_property"), .string("speed")],
            [.string("set_property"), .string("speed"), .number(1)],
            [.string("set_property"), .string("duration"), .number(3)],
            [.string("set_property"), .string("loop-file"), .string("inf")],
            [.string("get_property"), .string("loop-file")],
            [.string("set_property"), .string("loop-file"), .bool(false)],
            [.string("get_property"), .string("loop-file")],
            [.string("set_property"), .string("ab-loop-a"), .number(1)],
            [.string("get_property"), .string("ab-loop-a")],
            [.string("set_property"), .string("ab-loop-a"), .string("no")],
            [.string("set_property"), .string("ab-loop-b"), .string("soon")],
            [.string("set_property"), .string("aid"), .number(1)],
            [.string("set_property"), .string("aid"), .string("first")],
            [.string("set_property"), .string("sid"), .string("no")],
            [.string("set_property"), .string("sub-visibility"), .bool(false)],
            [.string("get_property"), .string("sub-visibility")],
            [.string("frame-step")],
            [.string("frame-back-step")],
            [.string("set_property"), .string("pause"), .bool(false)],
            [.string("seek"), .number(2), .string("absolute"), .string("exact")],
            [.string("seek"), .number(-1)],
            [.string("seek"), .number(50), .string("absolute-percent+keyframes")],
            [.string("seek"), .string("here")],
            [.string("set"), .string("pause"), .string("yes")],
            [.string("cycle"), .string("pause")],
            [.string("add"), .string("volume"), .number(-10)],
            [.string("add"), .string("volume")],
            [.string("multiply"), .string("speed"), .number(2)],
            [.string("set"), .string("speed"), .string("1")],
            [.string("set"), .string("nosuch"), .string("1")],
            [.string("set"), .string("volume"), .string("loud")],
            [.string("cycle"), .string("nosuch")],
            [.string("cycle"), .string("mute"), .string("sideways")],
            [.string("multiply"), .string("volume")],
            [.string("playlist-prev")],
            [.string("playlist-next")],
            [.string("playlist-move"), .number(0), .number(0)],
            [.string("playlist-remove"), .number(5)],
            [.string("playlist-clear")],
            [.string("loadlist"), .string("/nonexistent/list.m3u")],
            [.string("no_such_command")],
            [],
        ]

        @Test("Every reply has the shape of mpv's", .enabled(if: hasMpv, "needs mpv"), .timeLimit(.minutes(2)))
        func repliesHaveMpvsShape() throws {
            let clip = try Clips.audioVideo(seconds: 10)
            let players = [try hplayer(clip), try mpv(clip)]
            for player in players { #expect(player.client.waitUntilLoaded()) }
            for words in Self.requests {
                let replies = players.map { $0.client.request(words)?.shape ?? "no reply" }
                #expect(replies[0] == replies[1], "\(words): hplayer \(replies[0]), mpv \(replies[1])")
            }
            // An observed property is reported at once after the reply, then at each change.
            for player in players {
                let reply = player.client.request([.string("observe_property"), .number(7), .string("pause")])
                #expect(reply?.shape == #"{error:"success",request_id:number}"#)
                #expect(player.client.event("property-change")?.shape == #"{data:bool,event:"property-change",id:number,name:"pause"}"#)
                _ = player.client.request([.string("set_property"), .string("pause"), .bool(true)])
                #expect(player.client.event("property-change")?["data"] == .bool(true))
            }
            // Not JSON: "invalid parameter" with request_id 0, from both.
            let garbage = players.map { player in
                player.client.send(raw: "{not json\n")
                return player.client.readUntil(timeout: 5) { $0["error"] != nil }?.shape ?? "no reply"
            }
            #expect(garbage[0] == garbage[1], "hplayer \(garbage[0]), mpv \(garbage[1])")
            for player in players {
                #expect(player.client.request([.string("quit")]) != nil || !player.process.isRunning)
                #expect(player.process.wait(timeout: 10) == 0)
            }
        }

        @Test("Seek and loadfile tell the events mpv tells, in its order", .enabled(if: hasMpv, "needs mpv"), .timeLimit(.minutes(2)))
        func eventsHaveMpvsShape() throws {
            let clip = try Clips.audioVideo(seconds: 10)
            let players = [try hplayer(clip), try mpv(clip)]
            var seen: [[String]] = []
            for player in players {
                #expect(player.client.waitUntilLoaded())
                player.client.events.removeAll()
                _ = player.client.request([.string("seek"), .number(5), .string("absolute"), .string("exact")])
                #expect(player.client.event("seek") != nil)
                #expect(player.client.event("playback-restart") != nil)
                player.client.events.removeAll()
                let reply = player.client.request([.string("loadfile"), .string(clip), .string("replace")])
                #expect(reply?["data"]?["playlist_entry_id"]?.number == 2)
                #expect(player.client.readUntil(timeout: 10) { $0["event"] == .string("playback-restart") } != nil)
                // What clients key on; mpv also tells of audio and video reconfiguration.
                let names = ["end-file", "start-file", "file-loaded", "playback-restart"]
                seen.append(player.client.events.filter { names.contains($0["event"]?.string ?? "") }.map(\.shape))
                _ = player.client.request([.string("quit")])
                #expect(player.process.wait(timeout: 10) == 0)
            }
            #expect(seen[0] == seen[1], "hplayer: \(seen[0])\nmpv: \(seen[1])")
            #expect(seen[0].first == #"{event:"end-file",playlist_entry_id:number,reason:"stop"}"#)
            #expect(seen[0].last == #"{event:"playback-restart"}"#)
        }

        @Test("sub-text, sub-start and sub-end read the cue over the frame on screen, as mpv's; between cues \"\" and unavailable",
              .enabled(if: hasMpv, "needs mpv"), .timeLimit(.minutes(2)))
        func subtitleTextAsMpv() throws {
            let clip = try Subtitles.clip(container: "mkv", codec: "srt")
            // The track chosen at the start by both: mpv's set_property sid is carried out later.
            let players = [try hplayer(clip, ["--sid", "1"]), try mpv(clip, ["--sid=1"])]
            var read: [[String]] = []
            for (index, player) in players.enumerated() {
                #expect(player.client.waitUntilLoaded())
                _ = player.client.request([.string("set_property"), .string("pause"), .bool(true)])
                var values: [String] = []
                for (position, text) in [(1.6, "Two\nlines"), (1.4, "")] {
                    player.client.events.removeAll()
                    _ = player.client.request([.string("seek"), .number(position), .string("absolute"), .string("exact")])
                    #expect(player.client.event("playback-restart", timeout: 20) != nil)
                    func readAll() -> [String] {
                        ["sub-text", "sub-start", "sub-end"].map { name in
                            let reply = player.client.request([.string("get_property"), .string(name)])
                            let value = reply?["data"].map { $0.number.map { String(format: "%.3f", $0) } ?? $0.string ?? "\($0)" }
                            return "\(name)@\(position): " + (value ?? (reply?["error"]?.string ?? "no reply"))
                        }
                    }
                    var now = readAll()
                    // mpv decodes its subtitles after its playback-restart (under load, later): it
                    // is read again until its text has come. hplayer's is read once, at the restart.
                    let deadline = MonotonicClock.now() + 10
                    while index == 1, now.first != "sub-text@\(position): \(text)", MonotonicClock.now() < deadline {
                        MonotonicClock.sleep(until: MonotonicClock.now() + 0.05)
                        now = readAll()
                    }
                    values += now
                }
                read.append(values)
                _ = player.client.request([.string("quit")])
                #expect(player.process.wait(timeout: 10) == 0)
            }
            #expect(read[0] == read[1], "hplayer: \(read[0])\nmpv: \(read[1])")
            #expect(read[0].first == "sub-text@1.6: Two\nlines")
        }

        @Test("Bad clients are answered or dropped, and playback goes on to the end", .timeLimit(.minutes(1)))
        func badClientsDoNotStopPlayback() throws {
            // Paused while the bad clients come, so that however slowly a sanitized build on a busy
            // machine answers them, the file is not over before the good client's turn.
            let clip = try Clips.audioVideo(seconds: 3)
            let player = try hplayer(clip)
            let socket = player.socket
            #expect(player.client.waitUntilLoaded())
            #expect(player.client.request([.string("set_property"), .string("pause"), .bool(true)])?["error"] == .string("success"))
            // Half a request, then gone.
            try IPCClient(path: socket).send(raw: #"{"command": ["get_prop"#)
            // Many requests and never a read: its replies pile up until it is dropped or leaves.
            let silent = try IPCClient(path: socket)
            for _ in 0..<2000 { silent.send(raw: #"{"command": ["get_property", "time-pos"]}"# + "\n") }
            // A line that never ends: dropped past 1 MiB.
            let endless = try IPCClient(path: socket)
            endless.send(raw: String(repeating: "x", count: 2 << 20))
            // The server answers the 2,000 first, in order: 30 s is for a sanitized build on a busy machine.
            #expect(player.client.request([.string("no_such_command")], timeout: 30)?["error"] == .string("invalid parameter"))
            #expect(player.client.request([.string("get_property"), .string("time-pos")], timeout: 30)?["error"] == .string("success"))
            #expect(player.client.request([.string("set_property"), .string("pause"), .bool(false)], timeout: 30)?["error"] == .string("success"))
            #expect(player.client.event("end-file", timeout: 30)?["reason"] == .string("eof"))
            #expect(player.process.wait(timeout: 10) == 0)
        }

        @Test("set_property takes: get_property reads back the value set", .timeLimit(.minutes(1)))
        func setPropertyIsReadBack() throws {
            let player = try hplayer(try Clips.audioVideo(seconds: 10))
            #expect(player.client.waitUntilLoaded())
            let values: [(String, JSONValue, JSONValue)] = [
                ("pause", .bool(true), .bool(true)), ("pause", .bool(false), .bool(false)),
                ("volume", .number(50), .number(50)), ("mute", .bool(true), .bool(true)), ("mute", .bool(false), .bool(false)),
                ("speed", .number(2), .number(2)), ("speed", .number(1), .number(1)),
                ("loop-file", .string("inf"), .string("inf")), ("loop-file", .bool(false), .bool(false)),
                ("ab-loop-a", .number(1), .number(1)), ("ab-loop-b", .number(2.5), .number(2.5)),
                ("ab-loop-a", .string("no"), .string("no")), ("ab-loop-b", .string("no"), .string("no")),
                ("sub-visibility", .bool(false), .bool(false)), ("sub-visibility", .bool(true), .bool(true)),
                ("aid", .number(1), .number(1)),
            ]
            for (name, value, readBack) in values {
                #expect(player.client.request([.string("set_property"), .string(name), value])?["error"] == .string("success"), "\(name)")
                #expect(player.client.request([.string("get_property"), .string(name)])?["data"] == readBack, "\(name) set to \(value)")
            }
            #expect(player.client.request([.string("set_property"), .string("time-pos"), .number(6)])?["error"] == .string("success"))
            let position = player.client.request([.string("get_property"), .string("time-pos")])?["data"]
            if case .number(let seconds)? = position { #expect(seconds >= 5.9 && seconds < 7, "time-pos \(seconds)") } else { Issue.record("time-pos: \(String(describing: position))") }
            #expect(player.client.request([.string("quit")])?["error"] == .string("success"))
            #expect(player.process.wait(timeout: 10) == 0)
        }

        @Test("Text commands on the socket, as input.conf writes them, are carried out with no reply: set, cycle, add, multiply, two in a line, seek",
              .timeLimit(.minutes(1)))
        func textCommands() throws {
            let player = try hplayer(try Clips.audioVideo(seconds: 10))
            #expect(player.client.waitUntilLoaded())
            func read(_ name: String) -> JSONValue? { player.client.request([.string("get_property"), .string(name)])?["data"] }
            // Sent as a line; whatever comes back within 0.2 s that is not an event is a reply, which mpv never sends.
            func run(_ line: String) {
                player.client.send(raw: line + "\n")
                #expect(player.client.readUntil(timeout: 0.2) { $0["event"] == nil } == nil, "a reply to '\(line)'")
            }
            run("set pause yes")
            #expect(read("pause") == .bool(true))
            run("cycle mute ; add volume -10")
            #expect(read("mute") == .bool(true))
            #expect(read("volume") == .number(90))
            run("multiply speed 2")
            #expect(read("speed") == .number(2))
            run("no-osd seek 6 absolute exact")
            let position = read("time-pos")
            if case .number(let seconds)? = position { #expect(abs(seconds - 6) < 0.05, "time-pos \(seconds)") } else { Issue.record("time-pos: \(String(describing: position))") }
            run("nosuch command")
            #expect(player.client.request([.string("quit")])?["error"] == .string("success"))
            #expect(player.process.wait(timeout: 10) == 0)
        }

        @Test func aSocketPathThatCannotBeUsed() throws {
            let clip = try Clips.audioVideo(seconds: 2)
            let missing = try Command.run([Command.hplayer, clip, "--vo", "null", "--ao", "null", "--input-ipc-server", "/nonexistent/dir/sock"])
            #expect(missing.status == 2)
            #expect(missing.stderr.split(separator: "\n") == ["hplayer: error: --input-ipc-server: /nonexistent/dir/sock: No such file or directory"])
            // A file that is not a socket is left as it is.
            let file = Fixtures.newFolder("ipc-file") + "/notes.txt"
            try "keep me".write(toFile: file, atomically: true, encoding: .utf8)
            let taken = try Command.run([Command.hplayer, clip, "--vo", "null", "--ao", "null", "--input-ipc-server", file])
            #expect(taken.status == 2)
            #expect(taken.stderr.hasSuffix("exists and is not a socket\n"), "stderr: \(taken.stderr)")
            #expect(try String(contentsOfFile: file, encoding: .utf8) == "keep me")
        }
    }
}
