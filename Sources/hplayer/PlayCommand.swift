import ArgumentParser
import Dispatch
import FoundationEssentials
import Glibc
import HPlayerIPC
import HPlayerKit
import HPlayerMPRIS
import HPlayerSDL
import Logging

/// `hplayer play URL` (and `hplayer URL`): plays in a window with sound, like mpv or ffplay,
/// with a status line; without a display or a sound device, it says so and plays on without.
struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play", abstract: "Play a file or URL (the default command).",
        discussion: """
            Keys (in the window, or in the terminal): space or p pause, left/right seek 5 s, up/down seek 60 s, \
            L loop on/off, l set A, set B, clear the A-B loop, . and , step a frame forward and back, \
            [ ] speed down/up by 1.1, { } halve/double it, Backspace speed 1, s screenshot (S without subtitles), \
            # next soundtrack, j/J next/previous subtitles, v subtitles on/off, z/Z subtitles 0.1 s earlier/later, \
            m mute, 9/0 volume down/up, f fullscreen, > or Enter the next file, < the one before, \
            PgUp/PgDn the previous/next chapter, \
            q or Esc quit, Q quit and remember the position (--resume starts there). \
            A click or drag on the progress bar seeks.
            Inputs may be files, URLs, folders (their media files, in natural order) and playlist files \
            (.m3u, a .m3u8 that is not HLS, .pls), played in order. With several files, the exit status \
            is mpv's: 2 when none could be played, 3 when some could not.
            """)

    @Argument(help: "Files, URLs, folders or playlist files.") var inputs: [String] = []
    @Option(name: .customLong("playlist"), help: "Play the files this playlist file names (any format, a path or URL a line at least).")
    var playlistFile: String?
    @Flag(inversion: .prefixedNo, help: "Play the playlist in random order.") var shuffle = false
    @Option(name: .customLong("loop-playlist"), help: "Play the playlist N times, or forever with inf (alone: inf); no: once.")
    var loopPlaylist: PlaylistPasses?
    @Option(name: .customLong("playlist-start"), help: "Start with this entry of the playlist, numbered from 0.")
    var playlistStart: Int?
    // Read by PlayConfig before the command line is parsed; declared here so that they are
    // taken, and listed in the help.
    @Flag(name: .customLong("no-config"), help: "Do not read $XDG_CONFIG_HOME/hplayer/hplayer.conf.") var noConfig = false
    @Option(help: "Apply this profile (a [section] of the config files), or several, comma separated.") var profile: [String] = []
    @Option(help: "Read this config file too, after hplayer.conf.") var include: [String] = []
    @Option(name: .customLong("input-conf"), help: "Key bindings in mpv's input.conf syntax (default: $XDG_CONFIG_HOME/hplayer/input.conf).")
    var inputConf: String?

    @Option(name: .customLong("vo"), help: "Video output: sdl (a window, the default), null, or record:DIR to log each presented frame to DIR/video.tsv.")
    var videoOutput: OutputChoice?

    @Option(name: .customLong("ao"), help: "Audio output: sdl (the sound device, the default), null, or record:DIR to write DIR/audio.wav and DIR/audio.tsv.")
    var audioOutput: OutputChoice?

    @Option(help: "Start here: seconds, [[hh:]mm:]ss or a percentage (25%).") var start: StartPosition?
    @Flag(inversion: .prefixedNo, help: "Start where Q (or q with --save-position-on-quit) left this file.") var resume = false
    @Flag(name: .customLong("save-position-on-quit"), inversion: .prefixedNo, help: "q remembers the position too, as Q does.") var savePositionOnQuit = false
    @Flag(name: .customLong("no-video"), help: "Play the sound only; the picture is not even decoded.") var noVideo = false
    @Flag(name: .customLong("no-audio"), help: "Play the picture only; the sound is not even decoded.") var noAudio = false
    @Option(help: "The video track to play, numbered from 1 (as mpv's --vid).") var vid: Int?
    @Option(help: "The audio track to play, numbered from 1 (as mpv's --aid).") var aid: Int?
    @Option(name: .customLong("container-fps-override"),
            help: "Pace a video stream without timestamps (raw .h264, .hevc) at this frame rate, over the one its parameter sets give (default: theirs, else 25).")
    var containerFPSOverride: Double?
    @Flag(inversion: .prefixedNo, help: "Live mode (default: on for udp, tcp, rtmp, rtsp and srt inputs): no start-up buffering, small queues, and a latency caught up to.")
    var live: Bool?
    @Option(name: .customLong("live-latency"), help: "Live mode: seconds held beyond what decoding needs before playback catches up, up to 1.1x (default 0.1).")
    var liveLatency: Double?
    @Option(name: .customLong("rtsp-transport"), help: "RTSP over tcp or udp (default: libavformat's, udp then tcp), as mpv's.")
    var rtspTransport: RTSPTransport?
    @Option(help: "Hardware decoding, as mpv's --hwdec: no (the default), auto, vaapi, vdpau, nvdec, cuda or vulkan; software decoding takes over when it cannot start or fails.")
    var hwdec: HardwareDecodingArgument = HardwareDecodingArgument(.no)

    @Option(help: "The video decoder's threads, as mpv's --vd-lavc-threads: 0 (the default) is the fewest that keep up in software (more from the next key frame when decoding falls behind), one per core with --untimed, and one with --hwdec.")
    var vdLavcThreads = 0
    @Option(help: "The subtitle track to show, numbered from 1 (the file's, then the --sub-file ones), or no (as mpv's --sid).")
    var sid: SubtitleChoice = .auto
    @Option(name: .customLong("secondary-sid"), help: "A second subtitle track to show at the top, as plain text, numbered as --sid counts (as mpv's --secondary-sid; default no).")
    var secondarySid: SubtitleChoice = .off
    @Option(help: "The subtitle languages in order of preference, comma-separated (as mpv's --slang): the first track in one, when --sid is auto and no --sub-file is given.")
    var slang: String?
    @Flag(name: .customLong("sub-visibility"), inversion: .prefixedNo, help: "Draw the subtitle track shown (v toggles it), as mpv's --sub-visibility.")
    var subtitlesVisible = true
    @Option(name: .customLong("sub-file"), help: "Show the subtitles of this file (.srt, .vtt, .ass); may be given more than once, the last is shown.")
    var subtitleFiles: [String] = []
    @Option(name: .customLong("sub-delay"), help: "Show the subtitles this many seconds later (earlier when negative), as mpv's --sub-delay; z and Z change it by 0.1 s.")
    var subtitleDelay = 0.0
    @Option(name: .customLong("sub-scale"), help: "Subtitle font sizes times this, for text and ASS subtitles (0 to 100, default 1), as mpv's --sub-scale.")
    var subtitleScale = 1.0
    @Option(name: .customLong("sub-pos"), help: "Where subtitles sit, in percent of the height: 100 (the default) at the bottom margin, 0 at the top, up to 150, as mpv's --sub-pos.")
    var subtitlePosition = 100.0
    @Option(name: .customLong("sub-font"), help: "The font of text subtitles (SubRip, WebVTT, ...; default sans-serif), as mpv's --sub-font.")
    var subtitleFont = "sans-serif"
    @Option(name: .customLong("sub-font-size"), help: "The size of text subtitles, in pixels of a picture 720 lines high (default 55), as mpv's --sub-font-size.")
    var subtitleFontSize = 55.0
    @Option(name: .customLong("sub-ass-override"), help: "How much of --sub-scale, --sub-pos, --sub-font and --sub-font-size an ASS script takes, as mpv's --sub-ass-override: no, yes (the default), scale, force or strip.")
    var subtitleASSOverride = ASSOverride.yes
    @Option(name: .customLong("sub-codepage"), help: "The character encoding of --sub-file text files when not UTF-8 (cp1252, latin1, cp1251, shift_jis, ...: iconv's names), as mpv's --sub-codepage.")
    var subtitleCodepage: String?
    @Flag(inversion: .prefixedNo, help: "Loop the file: at the end, go on from the start with no gap.") var loop = false
    @Option(name: .customLong("ab-loop-a"), help: "Repeat from here (seconds or [[hh:]mm:]ss) to --ab-loop-b.") var abLoopA: StartPosition?
    @Option(name: .customLong("ab-loop-b"), help: "Where the A-B loop goes back to --ab-loop-a.") var abLoopB: StartPosition?
    @Flag(name: .customLong("exact-seek"), inversion: .prefixedNo, help: "Seek to the exact time, not the key frame before it.") var exactSeek = false
    @Flag(inversion: .prefixedNo, help: "Present every frame as soon as it is decoded, with no clock.") var untimed = false
    @Option(help: "Play at this speed, 0.25 to 4; the sound keeps its pitch.") var speed = 1.0
    @Option(help: "The volume to start at, 0 to 100 (the default).") var volume: Int?
    @Option(name: .customLong("audio-device"), help: "The sound device to play on, by the name --audio-device=help lists, or auto (the default device), as mpv's --audio-device; one that goes away while playing is replaced by the default one.")
    var audioDevice = "auto"
    @Option(help: "Apply the file's ReplayGain tags: no (the default), track or album (the track's when there is no album gain), as mpv's --replaygain.")
    var replaygain = ReplayGain.Mode.no
    @Option(name: .customLong("replaygain-preamp"), help: "Decibels added to the ReplayGain tags' gain (-150 to 150, default 0).")
    var replaygainPreamp = 0.0
    @Flag(name: .customLong("replaygain-clip"), inversion: .prefixedNo, help: "Let ReplayGain take the tagged peak past full scale; by default the gain is lowered to keep it there, as mpv's --replaygain-clip=no.")
    var replaygainClip = false
    @Option(name: .customLong("replaygain-fallback"), help: "Decibels of gain for files without ReplayGain tags, and for every file with --replaygain no, as mpv's (default 0; a negative value with =).")
    var replaygainFallback = 0.0
    @Flag(inversion: .prefixedNo, help: "Start muted.") var mute = false
    @Option(name: .customLong("screenshot-dir"), help: "Where s writes its PNGs (the current folder when not given).") var screenshotDirectory = ""
    @Flag(name: .customLong("no-status"), help: "No status line.") var noStatus = false
    @Option(help: "Window size and place, as mpv: WxH, +X+Y or WxH+X+Y.") var geometry: String?
    @Flag(name: .customLong("no-border"), help: "A window without decorations.") var noBorder = false
    @Flag(inversion: .prefixedNo, help: "Start in fullscreen.") var fullscreen = false
    @Flag(name: .customLong("force-window"), inversion: .prefixedNo, help: "Open the window before the first file, and keep it for files without a picture (black, with the progress bar).")
    var forceWindow = false
    @Flag(inversion: .prefixedNo, help: "With no file to play, and at the end of the playlist, wait for the IPC's loadfile rather than exit (as mpv's --idle).")
    var idle = false
    @Option(help: "The window title (the file name when not given).") var title: String?
    @Option(name: .customLong("record-file"), help: "Record the first file as it plays, from where playback starts until quit, its packets copied as they are (no re-encoding), to this .mp4, .mov, .mkv or .ts file (as mpv's --stream-record).")
    var recordFile: String?
    @Option(name: .customLong("input-ipc-server"), help: "Listen at this Unix socket for mpv's JSON IPC (loadfile, seek, get_property, set_property, observe_property, quit).")
    var ipcServer: String?
    @Option(name: .customLong("stats-dir"), help: "Write DIR/events.tsv (first frame, buffering, variant, seek, retry, error, end) and DIR/network.tsv (a line per HTTP request).")
    var statsDirectory: String?
    @OptionGroup(title: "Network") var network: NetworkArguments
    @OptionGroup(title: "Read-ahead") var readAhead: ReadAheadArguments
    @OptionGroup var common: CommonOptions

    /// Checked as play starts rather than in ArgumentParser's validate(), which wraps what it
    /// throws in a message of its own: a usage error names the option, as every error names its input.
    private func checkUsage() throws(CommandLineFailure) {
        for (name, point) in [("--ab-loop-a", abLoopA), ("--ab-loop-b", abLoopB)] {
            switch point {
            case .fraction?, .beforeEnd?: throw CommandLineFailure.usage(input: name, reason: "expected seconds or [[hh:]mm:]ss")
            case .seconds?, nil: continue
            }
        }
        if let volume, !(0...100).contains(volume) {
            throw CommandLineFailure.usage(input: "--volume", reason: "expected 0 to 100, got \(volume)")
        }
        if let geometry, WindowGeometry(geometry) == nil {
            throw CommandLineFailure.usage(input: "--geometry", reason: "expected WxH, +X+Y or WxH+X+Y, got '\(geometry)'")
        }
        if let liveLatency, !(liveLatency >= 0 && liveLatency <= 10) {
            throw CommandLineFailure.usage(input: "--live-latency", reason: "expected seconds from 0 to 10, got \(liveLatency)")
        }
        if let containerFPSOverride, !(containerFPSOverride >= 0.5 && containerFPSOverride <= 1000) {
            throw CommandLineFailure.usage(input: "--container-fps-override", reason: "expected frames per second from 0.5 to 1000, got \(containerFPSOverride)")
        }
        try checkDecoderThreads(vdLavcThreads)
        if inputs.isEmpty, playlistFile == nil, !idle { throw CommandLineFailure.usage(input: "play", reason: "no file to play") }
        if let playlistStart, playlistStart < 0 {
            throw CommandLineFailure.usage(input: "--playlist-start", reason: "expected an entry from 0, got \(playlistStart)")
        }
    }

    /// The key bindings of `--input-conf`, else of input.conf beside hplayer.conf (unless
    /// `--no-config`); a line that cannot be taken is one warning, and the rest applies.
    private func loadInputConf() -> InputConf {
        let path = inputConf ?? (noConfig ? nil : PlayConfig.folder(environment: ProcessInfo.processInfo.environment).map { $0 + "/input.conf" })
        guard let path, inputConf != nil || access(path, F_OK) == 0 else { return InputConf() }
        let conf: InputConf
        do {
            conf = InputConf(parsing: String(decoding: try WholeFile.read(path, limit: 1 << 20), as: UTF8.self), file: path)
        } catch {
            StatusLine.notice("warning: \(error.input): \(error.reason)")
            return InputConf()
        }
        for warning in conf.warnings { StatusLine.notice("warning: \(warning)") }
        return conf
    }

    /// The playlist the inputs make: expanded, shuffled, looped and started as the options say;
    /// an input that cannot be read is told, and the rest play. With nothing to play, the one
    /// problem is the error (or mpv's 2 after a line for each of several).
    private func makePlaylistQueue(network: NetworkOptions) throws -> PlaylistQueue {
        var (urls, problems) = PlaylistExpansion.expand(inputs, network: network)
        if let playlistFile {
            do { urls += try PlaylistExpansion.entries(ofPlaylist: playlistFile, network: network) } catch { problems.append(error) }
        }
        if urls.isEmpty, problems.count <= 1, !idle {
            throw CommandLineFailure.media(problems.first ?? MediaError(input: playlistFile ?? inputs.joined(separator: " "), reason: "no file to play"))
        }
        for problem in problems { StatusLine.notice("error: \(problem.input): \(problem.reason)") }
        guard !urls.isEmpty || idle else { throw ExitCode(2) }
        var queue = PlaylistQueue(urls, passes: loopPlaylist?.passes ?? .count(1), start: playlistStart ?? 0)
        if shuffle {
            var generator = SystemRandomNumberGenerator()
            queue.shuffle(using: &generator)
        }
        return queue
    }

    func run() async throws { try await play() }

    func play() async throws {
        if audioDevice == "help" {
            listAudioDevices()
            return
        }
        try checkUsage()
        common.bootstrapLogging()
        var options = PlayerOptions()
        options.source.isLooping = loop
        try network.apply(to: &options.source.network)
        try readAhead.apply(to: &options.source)
        var stats: StatsDirectory?
        if let statsDirectory { stats = try StatsDirectory(path: statsDirectory) }
        options.source.network.monitor = NetworkMonitor(onEvent: stats.map { stats in { @Sendable event in stats.note(event) } })
        options.seekMode = exactSeek ? .exact : .keyframe
        options.isUntimed = untimed
        options.abLoop = ABLoop(a: abLoopA?.seconds(duration: nil), b: abLoopB?.seconds(duration: nil))
        if noVideo { options.source.mediaKinds.remove(.video) }
        if noAudio { options.source.mediaKinds.remove(.audio) }
        options.source.videoTrack = vid
        options.source.audioTrack = aid
        options.source.frameRateOverride = containerFPSOverride
        options.source.hardwareDecoding = hwdec.value
        options.source.videoDecoderThreads = vdLavcThreads
        if let live { options.source.live.mode = live ? .always : .never }
        if let liveLatency { options.source.live.latencyTarget = liveLatency }
        options.source.network.rtspTransport = rtspTransport?.rawValue
        options.replayGain = ReplayGain(mode: replaygain, preamp: replaygainPreamp, allowsClipping: replaygainClip, fallback: replaygainFallback)
        options.subtitleTrack = sid
        options.secondarySubtitleTrack = secondarySid
        options.subtitleLanguages = slang.map(TrackLanguage.list) ?? []
        options.subtitlesVisible = subtitlesVisible
        options.subtitleDelay = subtitleDelay.isFinite ? min(max(subtitleDelay, -86_400), 86_400) : 0
        options.subtitleCodepage = subtitleCodepage.flatMap { $0.isEmpty || $0.lowercased() == "utf-8" || $0.lowercased() == "utf8" ? nil : $0 }
        options.subtitleStyle = SubtitleStyle(scale: subtitleScale, position: subtitlePosition, font: subtitleFont,
                                              fontSize: subtitleFontSize, assOverride: subtitleASSOverride)
        if let refusal = PlaybackSpeed.refusal(of: speed) {
            StatusLine.notice("warning: --speed \(speed): \(refusal): playing at 1x")
        } else {
            options.speed = speed
        }
        let session = PlaybackSession(watchLater: WatchLater(), savesPositionOnQuit: savePositionOnQuit,
                                      screenshots: ScreenshotTaker(folder: screenshotDirectory, videoTrack: vid,
                                                                   network: options.source.network))
        let playlist = Playlist(try makePlaylistQueue(network: options.source.network), network: options.source.network,
                                stop: session.stop(turn:))
        session.use(playlist)
        let runner = CommandRunner(frontEnd: session)
        session.use(runner)
        let keys = KeyDispatch(bindings: loadInputConf().bindings, runner: runner, session: session)
        let commandLineEntries = playlist.count

        var audio = audioOutput ?? .sdl
        if !noAudio, audio == .sdl, let reason = SDLAudioOutput.unavailableReason() {
            StatusLine.notice("no sound device (\(reason)): playing without sound")
            options.source.mediaKinds.remove(.audio)
            audio = .null
        }
        var window: SDLWindow?
        if !noVideo, (videoOutput ?? .sdl) == .sdl {
            let windowOptions = WindowOptions(title: title ?? "",
                                              geometry: geometry.flatMap(WindowGeometry.init), isBorderless: noBorder,
                                              isFullscreen: fullscreen, isForced: forceWindow)
            do {
                window = try SDLWindow(options: windowOptions, onKey: keys.press, onCommand: session.handle, status: session.status)
            } catch {
                StatusLine.notice("no display (\(error.reason)): playing without picture")
            }
        }
        defer { window?.close() }
        var remote: IPCRemote?
        if let ipcServer {
            do {
                remote = try IPCRemote(path: ipcServer, runner: runner)
            } catch {
                throw CommandLineFailure.usage(input: "--input-ipc-server", reason: "\(error.path): \(error.reason)")
            }
        }
        defer { remote?.close() }
        let mpris = MPRISServer.start(runner: runner)
        defer { mpris?.close() }

        // Ctrl-C exits 130; SIGTERM, SIGHUP and SIGQUIT exit 4, as mpv's. Each is a quit, so the
        // terminal is restored on the way out. (Ignored as signals, they no longer kill the process
        // or reach Swift's crash handler, which takes SIGQUIT for a crash.)
        let signals = [(SIGINT, Int32(130)), (SIGTERM, 4), (SIGHUP, 4), (SIGQUIT, 4)].map { number, code in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            signal(number, SIG_IGN)
            source.setEventHandler { session.interrupt(exitCode: code) }
            source.resume()
            return source
        }
        defer { signals.forEach { $0.cancel() } }
        // A recording's named pipe whose reader has gone is a write error that stops the
        // recording, not a signal that ends the player.
        signal(SIGPIPE, SIG_IGN)
        // Media read from standard input leaves it to the media, as mpv does.
        let terminalKeys = inputs.contains(StandardInput.url) ? nil : TerminalKeys(onKey: keys.press)
        defer { terminalKeys?.stop() }

        // A recording output's files hold this run's files only, one after the other.
        audio.clearRecording()
        (videoOutput ?? .null).clearRecording()
        var failure: MediaError?
        var results = PlaylistResults()
        // What the person set goes on from file to file, as mpv's: the volume, muting, the speed.
        var carried = (volume: volume ?? 100, isMuted: mute, speed: options.speed)
        while !session.isQuitting, let (entry, turn) = await next(in: playlist, session: session, window: window) {
            if let failure { StatusLine.notice("error: \(failure.input): \(failure.reason)") }
            window?.setTitle(title ?? MediaMetadata.fileName(of: entry.url))
            window?.setChapterMarks([])
            let player = Player(url: entry.url, options: options,
                                audioOutput: audio.makeAudioOutput(paced: !untimed, device: audioDevice == "auto" ? nil : audioDevice),
                                videoOutput: window.map(SDLVideoOutput.init) ?? (videoOutput ?? .null).makeVideoOutput(paced: !untimed))
            player.volume = carried.volume
            player.isMuted = carried.isMuted
            player.speed = carried.speed
            // A subtitle file that cannot be read is told, and playback goes on without it.
            for path in subtitleFiles {
                do { try player.addSubtitleFile(path) } catch { StatusLine.notice("error: \(error.input): \(error.reason)") }
            }
            let controller = PlayerController(player: player)
            session.attach(controller: controller, turn: turn, url: entry.url, window: window)
            runner.attach(controller)
            remote?.begin(controller: controller, entryID: entry.id)
            // A path that cannot be recorded to is told, and playback goes on.
            if turn == 1, let recordFile {
                do { try player.startRecording(to: recordFile) } catch { Log.command.warning("\(error)") }
            }
            var startAt = entry.id <= commandLineEntries ? start : nil
            if resume, startAt == nil, let saved = session.watchLater.takePosition(for: entry.url) { startAt = .seconds(saved) }
            failure = await play(controller, startingAt: startAt, stats: stats, window: window)
            carried = (player.volume, player.isMuted, player.speed)
            results.note(entry.id, failed: failure != nil)
            let reason = session.isQuitting ? "quit" : session.wasFileStopped ? "stop" : failure != nil ? "error" : "eof"
            stats?.noteEnd(reason: reason)
            runner.attach(nil)
            await remote?.end(entryID: entry.id, reason: reason, error: failure?.reason)
        }
        if let code = session.interruptedExitCode { throw ExitCode(code) }
        if let code = session.quitCode, code != 0 { throw ExitCode(code) }
        if let failure, !session.isQuitting {
            guard results.isMany else { throw CommandLineFailure.media(failure) }
            StatusLine.notice("error: \(failure.input): \(failure.reason)")
        }
        if !session.isQuitting, let code = results.exitCode { throw ExitCode(code) }
        if let failure = session.positionNotSaved { throw CommandLineFailure.media(failure) }
    }

    /// The next entry and its turn; nil when playback is over. With --idle, playback is over only
    /// at a quit: at the end of the list, it waits for a command to say what to play.
    private func next(in playlist: Playlist, session: PlaybackSession, window: SDLWindow?) async -> (PlaylistQueue.Entry, Int)? {
        if let next = playlist.advance() { return next }
        guard idle, !session.isQuitting else { return nil }
        // As mpv's idle window: no picture, no progress, no chapters of the file before.
        session.detachController()
        window?.showNoVideo(cover: nil)
        window?.setChapterMarks([])
        window?.setTitle(title ?? "No file")
        return await playlist.nextWhenOver { session.isQuitting }
    }

    /// The picture an audio file carries, for the window; nil without one (or not a regular
    /// local file), or when it cannot be read (said at debug level: the sound plays on).
    private func cover(of url: String) -> Frame? {
        do {
            return try CoverArt.picture(of: url)
        } catch {
            Log.command.debug("\(error.input): \(error.reason)")
            return nil
        }
    }

    /// Plays one file to its end, its error, or until it is stopped; returns the error, if any.
    private func play(_ controller: PlayerController, startingAt start: StartPosition?, stats: StatsDirectory?,
                      window: SDLWindow?) async -> MediaError? {
        let player = controller.player
        let events = player.events()
        if let start { controller.seek(to: start, mode: .exact) }  // an absolute position: exact, as mpv
        let statusLine = noStatus ? nil : StatusLine()
        var statusTask: Task<Void, Never>?
        controller.load()
        var failure: MediaError?
        for await event in events {
            stats?.note(event)
            switch event {
            case .prepared(let info):
                FFmpegLineGate.open()
                if !common.quiet {
                    let files = player.subtitleTracks.compactMap { $0.description.path == nil ? nil : $0.description }
                    let renditions = player.subtitleTracks.map(\.description).filter { $0.path == nil && $0.streamIndex == nil }
                    let lines = TrackList.lines(for: info, playing: player.playingStreams, renditionSubtitles: renditions, externalSubtitles: files,
                                                shownSubtitle: player.subtitleTrack)
                        + MediaMetadata.lines(for: info.tags) + MediaMetadata.lines(for: info.chapters)
                    print(lines.joined(separator: "\n"))
                }
                // mpv's title rule: the file's title tag, else its name.
                if title == nil { window?.setTitle(MediaMetadata.mediaTitle(tags: info.tags, url: info.url)) }
                window?.setChapterMarks(info.chapters.map(\.start))
                if let window, !info.streams.contains(where: { $0.type == .video && player.playingStreams.contains($0.index) }) {
                    window.showNoVideo(cover: cover(of: info.url))
                }
                statusTask = Task {
                    while !Task.isCancelled {
                        statusLine?.update(player.status)
                        try? await Task.sleep(nanoseconds: 250_000_000)
                    }
                }
            case .started:
                Log.command.info("playback restart complete")
            case .finished(let error):
                failure = error
            default:
                continue
            }
            if case .finished = event { break }
        }
        statusTask?.cancel()
        if failure == nil { statusLine?.update(player.status, final: true) }
        controller.close()
        // Without this, resident memory creeps up over many files (scripts/soak.py: +32 MiB over
        // 1,000 loadfile replacements, with the heap itself flat).
        FreeMemory.release()
        return failure
    }
}

extension SubtitleChoice: ExpressibleByArgument {
    public var defaultValueDescription: String {
        switch self {
        case .auto: "auto"
        case .off: "no"
        case .number(let number): String(number)
        }
    }

    public init?(argument: String) {
        switch argument {
        case "auto": self = .auto
        case "no": self = .off
        default:
            guard let number = Int(argument), number > 0 else { return nil }
            self = .number(number)
        }
    }
}

extension PlayCommand {
    /// `--audio-device=help`, as mpv lists them: the names to give, and what each is.
    func listAudioDevices() {
        guard let names = SDLAudioOutput.deviceNames() else {
            StatusLine.notice("no sound device (\(SDLAudioOutput.unavailableReason() ?? "SDL's audio did not start"))")
            return
        }
        print("List of detected audio devices:")
        print("  'auto' (the default device)")
        for name in names { print("  '\(name)'") }
    }
}

extension ASSOverride: ExpressibleByArgument {}

extension ReplayGain.Mode: ExpressibleByArgument {}

extension StartPosition: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}

/// `sdl`, `null` or `record:DIR`.
enum OutputChoice: ExpressibleByArgument, Equatable {
    case sdl
    case null
    case record(directory: String)

    init?(argument: String) {
        if argument == "sdl" {
            self = .sdl
        } else if argument == "null" {
            self = .null
        } else if argument.hasPrefix("record:"), argument.count > "record:".count {
            self = .record(directory: String(argument.dropFirst("record:".count)))
        } else {
            return nil
        }
    }

    /// The output for a choice that needs no window (sdl's window is made by the command). A
    /// recording goes on after the playlist's files before (`clearRecording` starts it empty).
    func makeVideoOutput(paced: Bool) -> VideoOutput {
        switch self {
        case .sdl, .null: return NullVideoOutput(paced: paced)
        case .record(let directory): return RecordingVideoOutput(directory: directory, paced: paced, appends: true)
        }
    }

    /// `device`: `--audio-device`, for the sound device (nil for the default).
    func makeAudioOutput(paced: Bool, device: String? = nil) -> AudioOutput {
        switch self {
        case .sdl: return SDLAudioOutput(deviceName: device)
        case .null: return NullAudioOutput(paced: paced)
        case .record(let directory): return RecordingAudioOutput(directory: directory, paced: paced, appends: true)
        }
    }

    /// Removes what a recording output left in its folder from an earlier run.
    func clearRecording() {
        guard case .record(let directory) = self else { return }
        for name in ["video.tsv", "subs.tsv", "audio.wav", "audio.tsv"] { unlink(directory + "/" + name) }
    }
}

/// `--hwdec`'s value, refused with the names it takes.
struct HardwareDecodingArgument: ExpressibleByArgument {
    let value: HardwareDecoding

    init(_ value: HardwareDecoding) { self.value = value }

    init?(argument: String) {
        guard let value = HardwareDecoding(argument) else { return nil }
        self.value = value
    }

    var defaultValueDescription: String { value.description }
    static var allValueStrings: [String] { HardwareDecoding.names }
}

/// `--vd-lavc-threads`'s range, for play and bench.
func checkDecoderThreads(_ threads: Int) throws(CommandLineFailure) {
    guard (0...64).contains(threads) else {
        throw CommandLineFailure.usage(input: "--vd-lavc-threads", reason: "expected 0 (automatic: the fewest threads that keep up while playing) to 64, got \(threads)")
    }
}

/// `--rtsp-transport`.
enum RTSPTransport: String, ExpressibleByArgument, CaseIterable {
    case tcp, udp
}
