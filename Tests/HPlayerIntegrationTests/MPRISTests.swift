import Foundation
import HPlayerIPC
import HPlayerKit
import HPlayerTestSupport
import Testing

/// A D-Bus session bus of the test's own, on an abstract socket (no file to leave behind), stopped
/// with it. The daemon stays in the foreground, a child of the test: forked (--fork), it would hold
/// on to the status socket Foundation's Process watches for the end of the program that started it.
final class PrivateSessionBus {
    let address: String
    private let daemon: StoppedWithTest

    init() throws {
        let daemon = StoppedWithTest(try BackgroundProcess(["dbus-daemon", "--session", "--nofork", "--print-address=1",
                                                            "--address=unix:abstract=hplayer-test-\(UUID().uuidString)"]))
        guard eventually(timeout: 10, { daemon.process.stdout.hasSuffix("\n") }) else {
            throw FixtureError(description: "dbus-daemon did not start: \(daemon.process.stderr)")
        }
        address = daemon.process.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        self.daemon = daemon
    }

    /// Runs `arguments` (playerctl, gdbus) on this bus.
    func run(_ arguments: [String]) throws -> CommandResult {
        try Command.run(["DBUS_SESSION_BUS_ADDRESS=\(address)"] + arguments, timeout: 10)
    }
}

/// A helper program killed when the test lets go of it: the test runner's threads block SIGTERM,
/// and the programs it starts inherit that, so terminate() would leave them running.
final class StoppedWithTest {
    let process: BackgroundProcess

    init(_ process: BackgroundProcess) {
        self.process = process
    }

    deinit {
        guard process.isRunning else { return }
        process.send(signal: SIGKILL)
        _ = process.wait(timeout: 5)
    }
}

extension Playback {
    /// MPRIS: playerctl and gdbus, as the desktop's media keys and controls, drive a real hplayer
    /// on a private session bus; the IPC says what the player did.
    @Suite(.timeLimit(.minutes(1))) struct MPRIS {
        /// Long enough to stay playing through a test; a key frame a second, for seeks; tagged.
        static func clip(_ name: String) throws -> String {
            try Fixtures.clip("mpris-\(name).mp4", [
                "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=30",
                "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=30",
                "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest",
                "-metadata", "title=Title \(name)", "-metadata", "artist=Artist \(name)", "-metadata", "album=Album \(name)"])
        }

        /// hplayer playing `clips` on a bus of its own, with its IPC connected and its MPRIS name taken.
        struct Driven {
            let bus: PrivateSessionBus
            let player: StoppedWithTest
            let client: IPCClient

            var process: BackgroundProcess { player.process }

            func playerctl(_ arguments: String...) -> String? {
                guard let result = try? bus.run(["playerctl", "--player=hplayer"] + arguments), result.status == 0 else { return nil }
                return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            }

            func read(_ property: String) -> JSONValue? {
                client.request([.string("get_property"), .string(property)])?["data"]
            }

            var busName: String { "org.mpris.MediaPlayer2.hplayer.instance\(process.processIdentifier)" }

            /// `gdbus monitor` of the player's signals, from now on.
            func monitor() throws -> StoppedWithTest {
                let monitor = StoppedWithTest(try BackgroundProcess(["gdbus", "monitor", "--session", "--dest", busName],
                                                                    environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address]))
                // It prints a line once it watches.
                guard eventually(timeout: 5, { monitor.process.stdout.contains("Monitoring signals") }) else {
                    throw FixtureError(description: "gdbus monitor did not start: \(monitor.process.stderr)")
                }
                return monitor
            }
        }

        func start(_ clips: [String]) throws -> Driven {
            let bus = try PrivateSessionBus()
            let socket = Fixtures.newFolder("mpris") + "/hplayer.sock"
            let player = StoppedWithTest(try BackgroundProcess([Command.hplayer] + clips + ["--vo", "null", "--ao", "null", "--no-status",
                                                                                            "--input-ipc-server", socket],
                                                               environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address]))
            let driven = Driven(bus: bus, player: player, client: try IPCClient(path: socket))
            guard driven.client.waitUntilLoaded(), eventually(timeout: 10, { driven.playerctl("status") == "Playing" }) else {
                throw FixtureError(description: "no MPRIS player playing: \(player.process.stderr)")
            }
            return driven
        }

        @Test("The name is org.mpris.MediaPlayer2.hplayer.instance<PID>; PlayPause toggles mpv's pause (read over the IPC), PlaybackStatus follows with PropertiesChanged; Stop ends the player")
        func playPause() throws {
            let driven = try start([Self.clip("a")])
            let names = try driven.bus.run(["playerctl", "--list-all"]).stdout
            #expect(names.split(separator: "\n") == ["hplayer.instance\(driven.process.processIdentifier)"])
            let monitor = try driven.monitor()
            #expect(driven.playerctl("play-pause") != nil)
            #expect(eventually(timeout: 5) { driven.read("pause") == .bool(true) })
            #expect(eventually(timeout: 5) { driven.playerctl("status") == "Paused" })
            #expect(eventually(timeout: 5) { monitor.process.stdout.contains("'PlaybackStatus': <'Paused'>}, @as [])") }, "\(monitor.process.stdout)")
            #expect(driven.playerctl("play-pause") != nil)
            #expect(eventually(timeout: 5) { driven.read("pause") == .bool(false) })
            #expect(eventually(timeout: 5) { driven.playerctl("status") == "Playing" })
            #expect(driven.playerctl("stop") != nil)
            #expect(driven.process.wait(timeout: 10) == 0, "\(driven.process.stderr)")
        }

        @Test("Next plays the playlist's next entry (playlist-pos over the IPC); the trackid, CanGoNext and CanGoPrevious follow; Previous goes back")
        func next() throws {
            let driven = try start([Self.clip("a"), Self.clip("b")])
            #expect(driven.playerctl("metadata", "mpris:trackid") == "'/org/hplayer/track/1'")
            #expect(driven.read("playlist-pos") == .number(0))
            #expect(driven.playerctl("next") != nil)
            #expect(eventually(timeout: 10) { driven.read("playlist-pos") == .number(1) && driven.read("time-pos") != nil })
            #expect(eventually(timeout: 5) { driven.playerctl("metadata", "mpris:trackid") == "'/org/hplayer/track/2'" })
            let player = "org.mpris.MediaPlayer2.Player"
            let canGo = try driven.bus.run(["gdbus", "call", "--session", "--dest", driven.busName, "--object-path", "/org/mpris/MediaPlayer2",
                                            "--method", "org.freedesktop.DBus.Properties.GetAll", player]).stdout
            #expect(canGo.contains("'CanGoNext': <false>, 'CanGoPrevious': <true>"), "\(canGo)")
            #expect(driven.playerctl("previous") != nil)
            #expect(eventually(timeout: 10) { driven.read("playlist-pos") == .number(0) })
            #expect(driven.client.request([.string("quit")])?["error"] == .string("success"))
            #expect(driven.process.wait(timeout: 10) == 0, "\(driven.process.stderr)")
        }

        @Test("Metadata: the file's title, artist and album tags, its length in microseconds and its file:// URL")
        func metadata() throws {
            let clip = try Self.clip("tagged")
            let driven = try start([clip])
            let duration = try #require(driven.read("duration")?.number)
            #expect(driven.playerctl("metadata", "mpris:length") == String(Int64((duration * 1_000_000).rounded())))
            #expect(driven.playerctl("metadata", "xesam:url") == "file://" + clip)
            // Needs mpv's metadata property over the CommandRunner (HPlayerIPC's PlayerProperties).
            #expect(driven.playerctl("metadata", "xesam:title") == "Title tagged")
            #expect(driven.playerctl("metadata", "xesam:artist") == "Artist tagged")
            #expect(driven.playerctl("metadata", "xesam:album") == "Album tagged")
            #expect(driven.client.request([.string("quit")])?["error"] == .string("success"))
            #expect(driven.process.wait(timeout: 10) == 0, "\(driven.process.stderr)")
        }

        @Test("Metadata: an embedded cover (an MP3's PNG) is mpris:artUrl, a file of the PNG's very bytes, removed when the player quits")
        func embeddedCover() throws {
            let song = try Clips.coveredSong()
            let driven = try start([song])
            var found: String?
            #expect(eventually { found = driven.playerctl("metadata", "mpris:artUrl"); return found?.hasPrefix("file:///") ?? false })
            let artURL = try #require(found)
            #expect(artURL.hasSuffix(".png"), "\(artURL)")
            let file = FileURL.path(ofURI: artURL)
            let cover = try Fixtures.clip("cover-red.png", ["-f", "lavfi", "-i", "color=c=red:size=200x200", "-frames:v", "1"])
            #expect(FileManager.default.contents(atPath: file) == FileManager.default.contents(atPath: cover))
            #expect(driven.client.request([.string("quit")])?["error"] == .string("success"))
            #expect(driven.process.wait(timeout: 10) == 0, "\(driven.process.stderr)")
            #expect(!FileManager.default.fileExists(atPath: file), "the cover file was left behind")
        }

        @Test("Position follows playback and time-pos; SetPosition seeks there (time-pos over the IPC), with a Seeked signal")
        func position() throws {
            let driven = try start([Self.clip("a")])
            func position() -> Double? { driven.playerctl("position").flatMap(Double.init) }
            let first = try #require(position())
            MonotonicClock.sleep(until: MonotonicClock.now() + 1)
            let second = try #require(position())
            #expect((0.7...1.6).contains(second - first), "\(first) then \(second)")
            let timePos = try #require(driven.read("time-pos")?.number)
            #expect(abs(timePos - (try #require(position()))) < 0.5)
            let monitor = try driven.monitor()
            // playerctl's position N is SetPosition with the track's trackid.
            #expect(driven.playerctl("position", "12.5") != nil)
            #expect(eventually(timeout: 5) { (driven.read("time-pos")?.number).map { (12.4...13.5).contains($0) } ?? false },
                    "\(String(describing: driven.read("time-pos")))")
            #expect(eventually(timeout: 5) { monitor.process.stdout.contains("org.mpris.MediaPlayer2.Player.Seeked (int64 12") }, "\(monitor.process.stdout)")
            #expect((12.4...14).contains(try #require(position())))
            // A stale trackid is ignored, as the specification has it.
            _ = try driven.bus.run(["gdbus", "call", "--session", "--dest", driven.busName, "--object-path", "/org/mpris/MediaPlayer2",
                                    "--method", "org.mpris.MediaPlayer2.Player.SetPosition", "/org/hplayer/track/9", "2000000"])
            MonotonicClock.sleep(until: MonotonicClock.now() + 0.5)
            #expect((driven.read("time-pos")?.number ?? 0) > 12)
            #expect(driven.client.request([.string("quit")])?["error"] == .string("success"))
            #expect(driven.process.wait(timeout: 10) == 0, "\(driven.process.stderr)")
        }

        @Test("Volume, Rate and LoopStatus set over MPRIS are mpv's volume, speed and loop-file; Quit quits")
        func settings() throws {
            let driven = try start([Self.clip("a")])
            #expect(driven.playerctl("volume", "0.3") != nil)
            #expect(eventually(timeout: 5) { driven.read("volume") == .number(30) })
            #expect(driven.playerctl("volume") == "0.300000")
            #expect(driven.playerctl("loop", "Track") != nil)
            #expect(eventually(timeout: 5) { driven.read("loop-file") == .string("inf") })
            #expect(driven.playerctl("loop") == "Track")
            _ = try driven.bus.run(["gdbus", "call", "--session", "--dest", driven.busName, "--object-path", "/org/mpris/MediaPlayer2",
                                    "--method", "org.freedesktop.DBus.Properties.Set", "org.mpris.MediaPlayer2.Player", "Rate", "<1.5>"])
            #expect(eventually(timeout: 5) { driven.read("speed") == .number(1.5) })
            // Quit is answered before the player goes.
            let quit = try driven.bus.run(["gdbus", "call", "--session", "--dest", driven.busName, "--object-path", "/org/mpris/MediaPlayer2",
                                           "--method", "org.mpris.MediaPlayer2.Quit"])
            #expect(quit.status == 0 && quit.stdout == "()\n", "\(quit.stdout) \(quit.stderr)")
            #expect(driven.process.wait(timeout: 10) == 0, "\(driven.process.stderr)")
            #expect(driven.process.wait(timeout: 10) == 0, "\(driven.process.stderr)")
        }

        @Test("No session bus (none set, or one that is not there): one debug line, and the file plays as ever")
        func noSessionBus() throws {
            let clip = try Fixtures.clip("mpris-short.mp4", ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=1",
                                                            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"])
            let play = [Command.hplayer, clip, "--vo", "null", "--ao", "null", "--untimed", "--no-status"]
            for environment in [["-u", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR=/nonexistent"],
                                ["DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent/bus"]] {
                let quiet = try Command.run(environment + play, timeout: 30)
                #expect(quiet.status == 0, "\(quiet.stderr)")
                #expect(quiet.stderr == "", "\(quiet.stderr)")
                let debug = try Command.run(environment + play + ["-vv"], timeout: 30)
                #expect(debug.status == 0)
                let lines = debug.stderr.split(separator: "\n").filter { $0.contains("[hplayer.mpris]") || $0.lowercased().contains("d-bus") }
                #expect(lines.count == 1 && lines[0].hasPrefix("hplayer: debug: [hplayer.mpris] no MPRIS: "), "\(lines)")
            }
        }
    }
}
