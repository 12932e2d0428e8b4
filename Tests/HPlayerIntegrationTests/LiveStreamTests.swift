import Foundation
import HPlayerKit
import Testing

extension Clips {
    /// Live-style MPEG-TS, 320x180 at 30 fps with a 440 Hz tone: a key frame each second, no
    /// B-frames, neither the picture nor the sound held back by the muxer.
    static func liveTS(seconds: Int = 4) throws -> String {
        try Fixtures.clip("live-\(seconds)s.ts", ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=\(seconds)",
                                                 "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)",
                                        "-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency", "-g", "30", "-bf", "0",
                                        "-c:a", "aac", "-muxdelay", "0", "-muxpreload", "0", "-pes_payload_size", "0", "-f", "mpegts"])
    }

    /// 10 s of 320x180 video alone at 30 fps, a key frame every second, in MPEG-TS from pts 0.
    static func liveVideoTS() throws -> String {
        try Fixtures.clip("live-video-10s.ts", ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=10",
                                                "-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency", "-g", "30", "-bf", "0",
                                                "-muxdelay", "0", "-muxpreload", "0", "-f", "mpegts"])
    }

    /// Raw H.264 that changes size twice (320x180, 640x360, 320x180), 2 s each at 25 fps with a
    /// key frame each second and no B-frames, stamped at 25 fps (setts) in MPEG-TS; and its parts.
    static func sizeChangesTS() throws -> (stream: String, parts: [String]) {
        let parts = try [("a", "testsrc2", "320x180"), ("b", "smptehdbars", "640x360"), ("c", "testsrc", "320x180")].map { name, pattern, size in
            try Fixtures.clip("ts-size-part-\(name).h264", ["-f", "lavfi", "-i", "\(pattern)=size=\(size):rate=25:duration=2",
                                                           "-c:v", "libx264", "-preset", "fast", "-bf", "0", "-g", "25", "-f", "h264"])
        }
        let raw = try concatenation("ts-size-changes.h264", of: parts)
        let stream = try Fixtures.clip("size-changes.ts", ["-r", "25", "-f", "h264", "-i", raw, "-c", "copy", "-bsf:v", "setts=ts=N*3600",
                                                           "-muxdelay", "0", "-muxpreload", "0", "-f", "mpegts"])
        return (stream, parts)
    }
}

/// scripts/rtsp-server.py: serves a clip's video over RTSP (RTP interleaved or over UDP), ending
/// the session when the clip has been sent.
private final class RTSPServer {
    private let process: BackgroundProcess
    let url: String
    /// A line per SETUP: the transport set up.
    let log: String

    init(_ clip: String) throws {
        let folder = Fixtures.newFolder("rtsp-server")
        let portFile = folder + "/port"
        log = folder + "/setups"
        process = try BackgroundProcess(["python3", Repository.root.appendingPathComponent("scripts/rtsp-server.py").path, clip,
                                         "--port", "0", "--port-file", portFile, "--log", log])
        let deadline = MonotonicClock.now() + 10
        while !FileManager.default.fileExists(atPath: portFile), MonotonicClock.now() < deadline {
            MonotonicClock.sleep(until: MonotonicClock.now() + 0.02)
        }
        guard let port = Int((try? String(contentsOfFile: portFile, encoding: .utf8)) ?? "") else {
            process.send(signal: SIGKILL)
            throw FixtureError(description: "the RTSP server did not start: \(process.stderr)")
        }
        url = "rtsp://127.0.0.1:\(port)/live"
    }

    /// SIGTERM: the server stops its ffmpeg senders too.
    deinit { process.send(signal: SIGTERM) }
}

/// scripts/udp-relay.py: forwards datagrams to the player, losing a seeded share of them, and
/// logs the pts of the access units each lost one carried part of.
private final class LossyRelay {
    private let process: BackgroundProcess
    let port: Int
    let log: String

    init(to playerPort: Int, loss: Double, seed: Int) throws {
        let folder = Fixtures.newFolder("udp-relay")
        log = folder + "/lost.tsv"
        process = try BackgroundProcess(["python3", Repository.root.appendingPathComponent("scripts/udp-relay.py").path, "--listen", "0",
                                         "--port-file", folder + "/port", "--to", "127.0.0.1:\(playerPort)", "--loss", "\(loss)",
                                         "--seed", "\(seed)", "--log", log])
        let deadline = MonotonicClock.now() + 10
        while !FileManager.default.fileExists(atPath: folder + "/port"), MonotonicClock.now() < deadline {
            MonotonicClock.sleep(until: MonotonicClock.now() + 0.02)
        }
        guard let port = Int((try? String(contentsOfFile: folder + "/port", encoding: .utf8)) ?? "") else {
            process.send(signal: SIGKILL)
            throw FixtureError(description: "the UDP relay did not start")
        }
        self.port = port
    }

    deinit { process.send(signal: SIGKILL) }

    /// The pts of the video access units the lost datagrams carried part of.
    func lostPts() throws -> [Double] {
        try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").flatMap { $0.split(separator: "\t").dropFirst().compactMap { Double($0) } }
    }
}

/// scripts/live-sender.py: a clip sent in real time over TCP (it listens; the player connects)
/// or UDP (to a port the player listens on).
private final class LiveSender {
    private let process: BackgroundProcess
    let url: String

    static func tcp(_ clip: String, _ options: [String] = []) throws -> LiveSender {
        let portFile = Fixtures.newFolder("live-sender") + "/port"
        let process = try BackgroundProcess(["python3", Repository.root.appendingPathComponent("scripts/live-sender.py").path, clip,
                                             "--tcp-listen", "0", "--port-file", portFile] + options)
        let deadline = MonotonicClock.now() + 10
        while !FileManager.default.fileExists(atPath: portFile), MonotonicClock.now() < deadline {
            MonotonicClock.sleep(until: MonotonicClock.now() + 0.02)
        }
        let port = try String(contentsOfFile: portFile, encoding: .utf8)
        return LiveSender(process: process, url: "tcp://127.0.0.1:\(port)")
    }

    static func udp(_ clip: String, port: Int, _ options: [String] = []) throws -> LiveSender {
        let process = try BackgroundProcess(["python3", Repository.root.appendingPathComponent("scripts/live-sender.py").path, clip,
                                             "--udp", "127.0.0.1:\(port)"] + options)
        return LiveSender(process: process, url: "udp://127.0.0.1:\(port)")
    }

    private init(process: BackgroundProcess, url: String) {
        self.process = process
        self.url = url
    }

    var isRunning: Bool { process.isRunning }
    func wait(timeout: Double) -> Int32? { process.wait(timeout: timeout) }
}

extension Playback {
    /// Live inputs played in live mode: the picture from the live edge, a stall that ends with an
    /// error, datagrams waited for through a silence, a backlog caught up on.
    @Suite(.serialized) struct LiveStreams {
        private func presented(_ folder: String) -> [(pts: Double, md5: String)] {
            let text = (try? String(contentsOfFile: folder + "/video.tsv", encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { line in
                let fields = line.split(separator: "\t")
                guard fields.count == 3, let pts = Double(fields[0]) else { return nil }
                return (pts, String(fields[2]))
            }
        }

        /// The status lines a run wrote to stderr (a pipe: one every two seconds, and the last).
        private func statusLines(_ stderr: String) -> [Substring] {
            stderr.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).filter { $0.contains("AV: ") }
        }

        @Test("A live MPEG-TS over TCP: live mode by default, every picture from where it joined to the end is the stream's, none twice, the status line shows the latency, and the end of the connection is the end",
              .timeLimit(.minutes(1)))
        func tcp() throws {
            let clip = try Clips.liveTS()
            let sender = try LiveSender.tcp(clip)
            let folder = Fixtures.newFolder("live-tcp")
            let result = try Command.run([Command.hplayer, sender.url, "--vo", "record:\(folder)", "--ao", "null"], timeout: 30)
            #expect(result.status == 0, "\(result.stderr)")
            let shown = presented(folder).map(\.md5)
            let stream = try Fixtures.frameMD5s(clip)
            // What the stream analysis read is dropped (nobuffer): the rest, each picture once.
            #expect(shown.count >= stream.count / 2 && Array(stream.suffix(shown.count)) == shown, "\(shown.count) of \(stream.count)")
            #expect(statusLines(result.stderr).last?.contains("Latency: ") == true, "\(result.stderr)")
            #expect(sender.wait(timeout: 10) == 0)
        }

        @Test("Live MPEG-TS with sound over TCP: the sound heard first is the first picture's, not the sound read before its key frame; picture and sound stay within 40 ms; a steady sender never makes playback wait (no buffering-start)",
              .realTime, .timeLimit(.minutes(1)))
        func soundStartsWithFirstPicture() throws {
            let clip = try Clips.liveTS()
            let sender = try LiveSender.tcp(clip)
            let folder = Fixtures.newFolder("live-sound")
            let result = try Command.run([Command.hplayer, sender.url, "--vo", "record:\(folder)", "--ao", "record:\(folder)", "--no-status",
                                          "--stats-dir", folder], timeout: 30)
            #expect(result.status == 0, "\(result.stderr)")
            let session = RecordedRun(folder: folder)
            let pictures = session.presentedFrames
            let audio = try session.recordedAudio()
            let rate = audio.rate
            // The pts of the first sample heard (not silence): through the callback that played it.
            let audible = audio.samples.firstIndex { abs($0) > 0.05 }.map { $0 / audio.channels }
            var played = 0
            var heard: Double?
            for callback in session.audioCallbacks {
                if let audible, audible < played + callback.samples {
                    heard = callback.firstPts.map { $0 + Double(audible - played) / Double(rate) }
                    break
                }
                played += callback.samples
            }
            let callbacks = session.audioCallbacks.filter { $0.firstPts != nil }
            guard let first = pictures.first, let heard else {
                Issue.record("nothing played: \(result.stderr)")
                return
            }
            // The analysis drops the first half second, so the stream is joined mid-GOP: sound
            // from before the first key frame is read, and is not what starts playback.
            #expect(heard >= first.pts - 0.001 && heard < first.pts + 0.25, "first sound \(heard), first picture \(first.pts)")
            var worst = 0.0
            for picture in pictures.dropFirst(15) {
                guard let callback = callbacks.last(where: { $0.playedAt <= picture.presentedAt }),
                      picture.presentedAt < callback.playedAt + Double(callback.samples) / Double(rate) else { continue }
                worst = max(worst, abs(callback.firstPts! + (picture.presentedAt - callback.playedAt) - picture.pts))
            }
            #expect(worst < 0.04, "picture and sound \(Int(worst * 1000)) ms apart")
            let events = (try? String(contentsOfFile: folder + "/events.tsv", encoding: .utf8)) ?? ""
            #expect(!events.contains("buffering-start"), "\(events)")
            #expect(sender.wait(timeout: 10) == 0)
        }

        @Test("A TCP sender that stalls: the pictures before the stall are shown, then after --network-timeout one error line and exit 1",
              .timeLimit(.minutes(1)))
        func tcpStall() throws {
            let clip = try Clips.liveTS()
            let sender = try LiveSender.tcp(clip, ["--stall-at", "2"])
            let folder = Fixtures.newFolder("live-stall")
            let result = try Command.run([Command.hplayer, sender.url, "--vo", "record:\(folder)", "--ao", "null", "--no-status",
                                          "--network-timeout", "1"], timeout: 30)
            #expect(result.status == 1)
            let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("hplayer: error: ") }
            #expect(errors == ["hplayer: error: \(sender.url): nothing received for 1 s (--network-timeout)"], "\(result.stderr)")
            let shown = presented(folder)
            #expect(!shown.isEmpty && shown.last!.pts < shown.first!.pts + 2.1, "\(shown.map(\.pts))")
        }

        // Real-time: the sender sends at its pace, and a player slower than it (ThreadSanitizer's,
        // on a busy machine) misses or drops the pictures before the silence.
        @Test("UDP with a sender that goes quiet for 1.5 s: the status line says it waits for data, and the pictures after the silence are shown",
              .realTime, .timeLimit(.minutes(1)))
        func udpSilence() throws {
            let clip = try Clips.liveTS()
            let port = try freeUDPPort()
            let folder = Fixtures.newFolder("live-udp")
            let player = try BackgroundProcess([Command.hplayer, "udp://127.0.0.1:\(port)", "--vo", "record:\(folder)", "--ao", "null"])
            MonotonicClock.sleep(until: MonotonicClock.now() + 0.7)  // listening before the first datagram
            let sender = try LiveSender.udp(clip, port: port, ["--pause-at", "1.5", "--pause-for", "1.5"])
            #expect(sender.wait(timeout: 20) == 0)
            MonotonicClock.sleep(until: MonotonicClock.now() + 2)
            // Datagrams may come back at any time: nothing ends but the user.
            #expect(player.isRunning)
            player.sendWhenHandled(signal: SIGINT)
            #expect(player.wait(timeout: 5) != nil, "still running 5 s after Ctrl-C")
            // Waiting after playing: not the wait for the first datagram.
            let lines = statusLines(player.stderr)
            let played = lines.firstIndex { !$0.hasPrefix("(Waiting for data)") }
            #expect(played.map { lines[$0...].contains { $0.hasPrefix("(Waiting for data)") } } == true, "\(player.stderr)")
            let shown = presented(folder)
            let pts = shown.map(\.pts)
            #expect(pts == pts.sorted() && Set(pts).count == pts.count, "\(pts)")
            // The silence came 1.5 s in: pictures from 2 s on came after it.
            #expect((pts.last ?? 0) > (pts.first ?? 0) + 2, "\(pts)")
        }

        @Test("A backlog of 2 s sent at once: playback speeds up past 1x (live-speed in events.tsv), and the latency of the last pictures is lower than the first's",
              .realTime, .timeLimit(.minutes(1)))
        func catchUp() throws {
            let clip = try Clips.liveTS(seconds: 8)
            let sent = Fixtures.newFolder("live-catch-up-sent") + "/sent.tsv"
            let sender = try LiveSender.tcp(clip, ["--burst", "2", "--log", sent])
            let stats = Fixtures.newFolder("live-catch-up")
            let result = try Command.run([Command.hplayer, sender.url, "--vo", "record:\(stats)", "--ao", "null", "--no-status",
                                          "--stats-dir", stats], timeout: 30)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(sender.wait(timeout: 10) == 0)
            // Latency per picture: presented (video.tsv) minus sent (the sender's log), by pts.
            var sentAt: [Int: Double] = [:]
            for line in try String(contentsOfFile: sent, encoding: .utf8).split(separator: "\n") {
                let fields = line.split(separator: "\t")
                if fields.count == 2, let pts = Double(fields[0]), let at = Double(fields[1]) { sentAt[Int((pts * 1000).rounded())] = at }
            }
            // The pictures sent in real time after the burst: each waits behind what is left of it.
            let burstSent = sentAt.values.min() ?? 0
            var latencies: [Double] = []
            for line in try String(contentsOfFile: stats + "/video.tsv", encoding: .utf8).split(separator: "\n") {
                let fields = line.split(separator: "\t")
                guard fields.count == 3, let pts = Double(fields[0]), let at = Double(fields[1]),
                      let sentAt = sentAt[Int((pts * 1000).rounded())], sentAt > burstSent + 0.5 else { continue }
                latencies.append(at - sentAt)
            }
            try #require(latencies.count > 40)
            let first = latencies.prefix(15).reduce(0, +) / 15, last = latencies.suffix(15).reduce(0, +) / 15
            // The six seconds after the burst, at 1.1x then 1.05x, take back about 0.4 s.
            #expect(last < first - 0.2, "latency \(first) s at first, \(last) s at the end")
            var speeds: [Double] = []
            for line in try String(contentsOfFile: stats + "/events.tsv", encoding: .utf8).split(separator: "\n") {
                let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
                if fields.count == 3, fields[1] == "live-speed", let speed = Double(fields[2]) { speeds.append(speed) }
            }
            #expect(speeds.first.map { $0 > 1 } == true, "\(speeds)")
        }

        @Test("A backlog of 7 s sent at once (more sound than its queue holds): playback jumps to a newer key frame (live-jump in events.tsv); each run of pictures shown starts at a key frame and is the stream's, exact and in order, to its last picture",
              .timeLimit(.minutes(1)))
        func jumpToKeyFrame() throws {
            let clip = try Clips.liveTS(seconds: 10)
            let sender = try LiveSender.tcp(clip, ["--burst", "7"])
            let stats = Fixtures.newFolder("live-jump")
            let result = try Command.run([Command.hplayer, sender.url, "--vo", "record:\(stats)", "--ao", "null", "--no-status",
                                          "--stats-dir", stats], timeout: 30)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(sender.wait(timeout: 10) == 0)
            let events = try String(contentsOfFile: stats + "/events.tsv", encoding: .utf8)
            #expect(events.contains("\tlive-jump\t"), "\(events)")
            // Where in the stream (a key frame every 30 pictures) each picture shown lies.
            let stream = try Fixtures.frameMD5s(clip)
            let shown = try presented(stats).map { try #require(stream.firstIndex(of: $0.md5)) }
            var runs: [[Int]] = []
            for index in shown {
                if let last = runs.last?.last, index == last + 1 { runs[runs.count - 1].append(index) } else { runs.append([index]) }
            }
            #expect(runs.allSatisfy { $0[0] % 30 == 0 }, "runs start at \(runs.map { $0[0] })")
            #expect(runs.count >= 1 && runs.last?.last == stream.count - 1, "\(runs.map { ($0.first ?? 0, $0.last ?? 0) })")
            // Jumped over at least a second of the backlog; the catch-up alone would show it all.
            #expect(shown.count <= stream.count - 30 - 30, "\(shown.count) of \(stream.count)")
        }

        @Test("UDP through a relay that loses 1 % of the datagrams: no crash, playing until stopped, and every second (a GOP) that lost nothing is shown whole and exact",
              .timeLimit(.minutes(1)))
        func udpLoss() throws {
            let clip = try Clips.liveVideoTS()
            let port = try freeUDPPort()
            let folder = Fixtures.newFolder("live-udp-loss")
            let player = try BackgroundProcess([Command.hplayer, "udp://127.0.0.1:\(port)", "--vo", "record:\(folder)", "--ao", "null"])
            // Seed 2 loses 6 of the 621 datagrams, in the GOPs of seconds 2, 5 and 8.
            let relay = try LossyRelay(to: port, loss: 0.01, seed: 2)
            MonotonicClock.sleep(until: MonotonicClock.now() + 0.7)  // listening before the first datagram
            let sender = try LiveSender.udp(clip, port: relay.port)
            #expect(sender.wait(timeout: 20) == 0)
            MonotonicClock.sleep(until: MonotonicClock.now() + 1.5)
            #expect(player.isRunning)
            player.sendWhenHandled(signal: SIGINT)
            // Under ThreadSanitizer, libavformat's UDP reader thread, cancelled as the input closes
            // (pthread_cancel in udp_close), ends inside an interceptor, and TSan exits 66 ("finished
            // with ignores enabled"): not a race, which scripts/sanitizers.sh counts from its reports.
            let endings: [Int32] = ProcessInfo.processInfo.environment["TSAN_OPTIONS"] == nil ? [0, 130] : [0, 130, 66]
            #expect(endings.contains(player.wait(timeout: 5) ?? -1), "ended by Ctrl-C, not a crash: \(player.stderr)")
            // A key frame every 30 pictures, from pts 0: the GOP of each lost datagram.
            let damaged = Set(try relay.lostPts().map { Int(($0 * 30).rounded()) / 30 })
            let stream = try Fixtures.frameMD5s(clip)
            let shown = Set(presented(folder).compactMap { stream.firstIndex(of: $0.md5) })
            let gops = stream.count / 30
            let joined = try #require(shown.min()) / 30
            // Not the last GOP: its last picture stays in the demuxer, as no PES comes after it.
            let clean = (joined..<gops - 1).filter { !damaged.contains($0) }
            #expect(damaged.count >= 2 && damaged.contains { $0 >= joined }, "losses in GOPs \(damaged.sorted()), joined at \(joined)")
            #expect(clean.count >= 3, "clean GOPs \(clean)")
            for gop in clean {
                #expect((gop * 30..<gop * 30 + 30).allSatisfy(shown.contains), "GOP \(gop) (losses in \(damaged.sorted()))")
            }
        }

        @Test("H.264 that changes size twice (320x180, 640x360, 320x180) in MPEG-TS over TCP in live mode: every picture from where it joined is its part's, exact, in order",
              .timeLimit(.minutes(1)))
        func sizeChangesOverTCP() throws {
            let (clip, partFiles) = try Clips.sizeChangesTS()
            let parts = try partFiles.map(Fixtures.frameMD5s)
            let sender = try LiveSender.tcp(clip)
            let folder = Fixtures.newFolder("live-size-changes")
            let result = try Command.run([Command.hplayer, sender.url, "--vo", "record:\(folder)", "--ao", "null", "--no-status"], timeout: 30)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(sender.wait(timeout: 10) == 0)
            let shown = presented(folder).map(\.md5)
            let all = parts.flatMap { $0 }
            // Joined at a key frame of the first part, after the analysis: the rest of it, then the others whole.
            #expect(shown.count > parts[1].count + parts[2].count && shown == Array(all.suffix(shown.count)),
                    "\(shown.count) pictures of \(all.count)")
        }

        @Test("RTSP from a server of our own, over TCP and over UDP (--rtsp-transport): every picture from where it joined to the end is the stream's, exact, and the session's end is the end",
              .timeLimit(.minutes(1)), arguments: ["tcp", "udp"])
        func rtsp(transport: String) throws {
            let clip = try Clips.liveTS()
            let server = try RTSPServer(clip)
            let folder = Fixtures.newFolder("live-rtsp-\(transport)")
            let result = try Command.run([Command.hplayer, server.url, "--rtsp-transport", transport, "--vo", "record:\(folder)", "--ao", "null",
                                          "-v"], timeout: 30)
            #expect(result.status == 0 && result.stderr.contains("live mode"), "\(result.stderr)")
            #expect(try String(contentsOfFile: server.log, encoding: .utf8) == transport + "\n", "the transport set up")
            let shown = presented(folder).map(\.md5)
            let stream = try Fixtures.frameMD5s(clip)
            #expect(shown.count >= stream.count / 2 && Array(stream.suffix(shown.count)) == shown, "\(shown.count) of \(stream.count)")
        }

        // Real time: the pictures are one run only while the player keeps up with the sender; one
        // far behind (a sanitizer's build on a loaded machine, as in one run of the test command)
        // jumps to a newer key frame, as live mode should.
        @Test("SRT, hplayer listening and an ffmpeg caller sending the clip in real time: live mode, and the pictures shown are a run of the stream's, exact and in order, from where it joined to within half a second of its end",
              .realTime, .timeLimit(.minutes(1)))
        func srt() throws {
            let clip = try Clips.liveTS()
            let port = try freeUDPPort()
            let folder = Fixtures.newFolder("live-srt")
            let player = try BackgroundProcess([Command.hplayer, "srt://127.0.0.1:\(port)?mode=listener", "--vo", "record:\(folder)",
                                                "--ao", "null", "--no-status", "-v"])
            MonotonicClock.sleep(until: MonotonicClock.now() + 0.7)  // listening before the caller comes
            let sender = try Command.run(["ffmpeg", "-nostdin", "-v", "error", "-re", "-i", clip, "-c", "copy", "-f", "mpegts",
                                          "srt://127.0.0.1:\(port)?mode=caller"], timeout: 30)
            #expect(sender.status == 0, "\(sender.stderr)")
            // The caller gone, the connection is over.
            #expect(player.wait(timeout: 10) != nil, "still running 10 s after the sender ended")
            #expect(player.stderr.contains("live mode"), "\(player.stderr)")
            let shown = presented(folder).map(\.md5)
            let stream = try Fixtures.frameMD5s(clip)
            // SRT holds what it receives for its latency window (120 ms) before giving it on: what
            // it held when the caller left is lost with the connection.
            let start = shown.first.flatMap { stream.firstIndex(of: $0) } ?? stream.count
            let liveLines = player.stderr.split(separator: "\n").filter { $0.contains("live:") || $0.contains("drop") }
            #expect(shown.count >= stream.count / 2 && Array(stream.dropFirst(start).prefix(shown.count)) == shown
                        && start + shown.count >= stream.count - 15, "\(shown.count) of \(stream.count) from \(start); \(liveLines)")
        }

        @Test("--profile=low-latency turns live mode on for a file, and --no-live off for a live input", .timeLimit(.minutes(1)))
        func switches() throws {
            let clip = try Clips.liveTS()
            let file = try Command.run([Command.hplayer, clip, "--vo", "null", "--ao", "null", "--untimed", "--profile=low-latency", "-v"],
                                       timeout: 30)
            #expect(file.status == 0 && file.stderr.contains("live mode"), "\(file.stderr)")
            let sender = try LiveSender.tcp(clip, ["--burst", "4"])
            let played = try Command.run([Command.hplayer, sender.url, "--vo", "null", "--ao", "null", "--untimed", "--no-live", "-v"],
                                         timeout: 30)
            #expect(played.status == 0 && !played.stderr.contains("live mode"), "\(played.stderr)")
        }

        private func freeUDPPort() throws -> Int {
            let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            defer { close(descriptor) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
            return Int(UInt16(bigEndian: address.sin_port))
        }
    }
}
