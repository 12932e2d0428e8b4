import Foundation
import HPlayerIPC
import HPlayerKit
import HPlayerTestSupport
import Testing

extension Playback {
    /// mpv's --audio-device against the test's PulseAudio: a null sink of its own, named, used,
    /// and removed while playing.
    @Suite(.desktop, .enabled(if: Desktop.unavailableReason == nil, Comment(rawValue: Desktop.unavailableReason ?? "")), .timeLimit(.minutes(1)))
    struct AudioDevices {
        /// The sink our stream plays on, by its index; nil while it has none.
        static func sinkOfOurStream() throws -> String? {
            let listing = try Command.run(["pactl", "list", "sink-inputs"], timeout: 10).stdout
            let inputs = listing.components(separatedBy: "Sink Input #").dropFirst()
            return inputs.first { $0.contains("application.name = \"hplayer\"") }.flatMap { input in
                input.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("Sink:") }
                    .map { String($0.split(separator: ":")[1]).trimmingCharacters(in: .whitespaces) }
            }
        }

        static func sinkIndex(named name: String) throws -> String? {
            try Command.run(["pactl", "list", "short", "sinks"], timeout: 10).stdout.split(separator: "\n")
                .first { $0.split(separator: "\t").dropFirst().first == Substring(name) }.map { String($0.split(separator: "\t")[0]) }
        }

        @Test("--audio-device=help lists the sinks; the device named is played on; removed while playing, the default takes over with one line and playback goes on to the end")
        func namedDeviceAndItsLoss() throws {
            let module = try Command.run(["pactl", "load-module", "module-null-sink", "sink_name=hplayer_device_test",
                                          "sink_properties=device.description=HPlayer-Second", "rate=48000"], timeout: 10)
            try #require(module.status == 0, "pactl: \(module.stderr)")
            var loaded: String? = module.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            defer { if let loaded { _ = try? Command.run(["pactl", "unload-module", loaded], timeout: 10) } }
            let list = try Command.run([Command.hplayer, "--audio-device=help"], timeout: 20)
            #expect(list.status == 0)
            #expect(list.stdout.contains("'auto'") && list.stdout.contains("'HPlayer-Second'"), "\(list.stdout)")

            let clip = try Clips.audioVideo(seconds: 4)
            let socket = Fixtures.newFolder("ipc") + "/hplayer.sock"
            let process = try BackgroundProcess([Command.hplayer, clip, "--vo", "null", "--no-status", "--audio-device", "HPlayer-Second",
                                                 "--input-ipc-server", socket])
            let client = try IPCClient(path: socket)
            #expect(client.waitUntilPlaying())
            let second = try #require(try Self.sinkIndex(named: "hplayer_device_test"))
            #expect(try Self.sinkOfOurStream() == second, "our stream plays on the sink named")
            _ = try Command.run(["pactl", "unload-module", try #require(loaded)], timeout: 10)
            loaded = nil
            // On the default sink from now on, and the clock goes on with it.
            let deadline = MonotonicClock.now() + 10
            while try Self.sinkOfOurStream().map({ $0 == second }) ?? true, MonotonicClock.now() < deadline {
                MonotonicClock.sleep(until: MonotonicClock.now() + 0.05)
            }
            #expect(try Self.sinkOfOurStream() == Self.sinkIndex(named: "hplayer_test"))
            func position() -> Double? { client.request([.string("get_property"), .string("time-pos")])?["data"]?.number }
            let switched = try #require(position())
            #expect(switched < 3.5, "the device went away before the end")
            let moving = MonotonicClock.now() + 10
            while (position() ?? .infinity) < switched + 0.3, MonotonicClock.now() < moving {
                MonotonicClock.sleep(until: MonotonicClock.now() + 0.05)
            }
            #expect((position() ?? .infinity) >= switched + 0.3, "the clock goes on with the new device")
            #expect(process.wait(timeout: 20) == 0, "played to the end")
            let warnings = process.stderr.split(separator: "\n").filter { $0.contains("warning") }
            #expect(warnings == ["hplayer: warning: sound device 'HPlayer-Second' went away: playing on the default one"], "\(process.stderr)")
        }

        @Test("An --audio-device that is not there is one warning; the default device plays")
        func unknownDevice() throws {
            let result = try Command.run([Command.hplayer, try Clips.audioVideo(seconds: 1), "--vo", "null", "--no-status",
                                          "--audio-device", "No Such Device"], timeout: 20)
            #expect(result.status == 0)
            #expect(result.stderr == "hplayer: warning: --audio-device 'No Such Device': there is no such device (--audio-device=help lists them): playing on the default one\n")
        }
    }
}
