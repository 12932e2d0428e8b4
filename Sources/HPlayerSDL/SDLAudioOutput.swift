import CALSAQuiet
import CPulseLatency
import CSDL2
import HPlayerKit

/// Sound through SDL2 (PulseAudio or ALSA, whichever SDL finds): the device's callback pulls from
/// the renderer, at the device's native rate and channel count. The renderer is called on SDL's
/// audio thread.
///
/// A device that goes away (a headset unplugged, a sink removed) is replaced by the default one,
/// in the same format, with one line: a watcher thread looks at the device's status ten times a
/// second. SDL is called under `control`, which SDL's audio thread never takes, so pausing (SDL
/// waits out a callback) cannot wait on it.
public final class SDLAudioOutput: AudioOutput, @unchecked Sendable {
    private let samplesPerCallback: Int
    /// `--audio-device`: nil for the default.
    private let deviceName: String?
    /// The device, and the spec it was opened with; under `control` once the watcher runs.
    private var device: SDL_AudioDeviceID = 0
    private var spec = SDL_AudioSpec()
    private var isPlaying = false
    private var isClosing = false
    private let control = ConditionLock()
    private var watcher: JoinableThread?
    private var renderer: AudioRendering?
    private var bytesPerFrame = 8
    /// Seconds one callback's buffer lasts.
    private var bufferDuration = 0.0
    /// The sound server's own latency is asked of it (PulseAudio, PipeWire's pulse server).
    private var asksServer = false

    /// - Parameter samplesPerCallback: the device buffer; 1024 is 21 ms at 48 kHz.
    /// - Parameter deviceName: the device to play on, as `deviceNames()` lists it; nil, or one
    ///   not there (with one warning), for the default.
    public init(samplesPerCallback: Int = 1024, deviceName: String? = nil) {
        self.samplesPerCallback = samplesPerCallback
        self.deviceName = deviceName
    }

    /// The playback devices SDL finds (the sound server's sinks by their descriptions); nil when
    /// SDL's audio cannot start.
    public static func deviceNames() -> [String]? {
        hp_alsa_quiet()
        guard SDL_InitSubSystem(SDL_INIT_AUDIO) == 0 else { return nil }
        defer { SDL_QuitSubSystem(SDL_INIT_AUDIO) }
        return (0..<max(0, SDL_GetNumAudioDevices(0))).compactMap { SDL_GetAudioDeviceName($0, 0).map { String(cString: $0) } }
    }

    /// Whether a sound device can be opened: nil when one can, else why not.
    public static func unavailableReason() -> String? {
        hp_alsa_quiet()
        guard SDL_InitSubSystem(SDL_INIT_AUDIO) == 0 else { return SDLError.current }
        defer { SDL_QuitSubSystem(SDL_INIT_AUDIO) }
        var wanted = SDL_AudioSpec()
        wanted.freq = 48000
        wanted.format = hp_sdl_audio_f32()
        wanted.channels = 2
        wanted.samples = 1024
        let device = SDL_OpenAudioDevice(nil, 0, &wanted, nil, Int32(SDL_AUDIO_ALLOW_FREQUENCY_CHANGE | SDL_AUDIO_ALLOW_CHANNELS_CHANGE))
        guard device != 0 else { return SDLError.current }
        SDL_CloseAudioDevice(device)
        return nil
    }

    /// Opens the default device, asking for `source`'s rate and channels (8 at most); the device
    /// may give others, which the returned format says: float32 samples, always.
    public func open(source: AudioFormat, renderer: AudioRendering) throws(MediaError) -> AudioFormat {
        guard SDL_InitSubSystem(SDL_INIT_AUDIO) == 0 else {
            throw MediaError(input: "sound device", reason: SDLError.current)
        }
        self.renderer = renderer
        var wanted = SDL_AudioSpec()
        wanted.freq = Int32(source.sampleRate)
        wanted.format = hp_sdl_audio_f32()
        wanted.channels = UInt8(min(source.channelCount, 8))
        wanted.samples = UInt16(samplesPerCallback)
        wanted.callback = { userdata, stream, length in
            guard let userdata, let stream else { return }
            Unmanaged<SDLAudioOutput>.fromOpaque(userdata).takeUnretainedValue().fill(stream, byteCount: Int(length))
        }
        wanted.userdata = Unmanaged.passUnretained(self).toOpaque()
        var obtained = SDL_AudioSpec()
        let changes = Int32(SDL_AUDIO_ALLOW_FREQUENCY_CHANGE | SDL_AUDIO_ALLOW_CHANNELS_CHANGE)
        var name = deviceName
        if let wanted = name, !(0..<max(0, SDL_GetNumAudioDevices(0))).contains(where: { index in
            SDL_GetAudioDeviceName(index, 0).map { String(cString: $0) == wanted } ?? false
        }) {
            Log.audio.warning("--audio-device '\(wanted)': there is no such device (--audio-device=help lists them): playing on the default one")
            name = nil
        }
        let opened = SDL_OpenAudioDevice(name, 0, &wanted, &obtained, changes)
        guard opened != 0 else {
            SDL_QuitSubSystem(SDL_INIT_AUDIO)
            throw MediaError(input: name.map { "sound device '\($0)'" } ?? "sound device", reason: SDLError.current)
        }
        control.withLock { (device, spec) = (opened, obtained) }
        let shown = name.map { "'\($0)'" } ?? "(the default)"
        watcher = JoinableThread(name: "hp-ao-watch") { [self] in watch(name: shown) }
        let format = AudioFormat(sampleFormat: .float32, sampleRate: Int(obtained.freq), channelCount: Int(obtained.channels))
        bytesPerFrame = format.bytesPerFrame
        bufferDuration = Double(obtained.samples) / Double(obtained.freq)
        let driver = SDL_GetCurrentAudioDriver().map { String(cString: $0) } ?? ""
        asksServer = (driver == "pulseaudio" || driver == "pipewire") && hp_pulse_latency_start() != 0
        return format
    }

    /// SDL's audio thread.
    private func fill(_ stream: UnsafeMutablePointer<UInt8>, byteCount: Int) {
        guard let renderer else {
            stream.initialize(repeating: 0, count: byteCount)
            return
        }
        _ = renderer.render(into: stream, sampleCount: byteCount / bytesPerFrame, at: MonotonicClock.now(), latency: latency)
    }

    /// From a callback to when the last sample of its buffer is heard: the buffer itself, then
    /// what the server holds ahead of it; without the server's word, one more buffer (the one
    /// the device is playing, as ffplay counts it: right for ALSA).
    private var latency: Double {
        let server = asksServer ? hp_pulse_latency_usec() : -1
        return bufferDuration + (server >= 0 ? Double(server) / 1_000_000 : bufferDuration)
    }

    /// The device plays.
    public func start() {
        control.withLock {
            isPlaying = true
            if device != 0 { SDL_PauseAudioDevice(device, 0) }
        }
    }

    /// Returns once no callback is running (SDL locks the device to pause it).
    public func pause() {
        control.withLock {
            isPlaying = false
            if device != 0 { SDL_PauseAudioDevice(device, 1) }
        }
    }

    /// Closes the device: no callback runs after it returns.
    public func close() {
        let watcher = control.withLock { () -> JoinableThread? in
            isClosing = true
            control.broadcast()
            defer { self.watcher = nil }
            return self.watcher
        }
        watcher?.join()
        let closed = control.withLock { () -> SDL_AudioDeviceID in
            defer { device = 0 }
            return device
        }
        guard closed != 0 else { return }
        SDL_CloseAudioDevice(closed)
        if asksServer { hp_pulse_latency_stop() }
        SDL_QuitSubSystem(SDL_INIT_AUDIO)
    }

    /// The watcher's thread: a device SDL says has stopped (it does so only for one lost) is
    /// replaced by the default device, opened in the same format, so the renderer and the clock go
    /// on as they were, paused or playing as it was.
    private func watch(name: String) {
        var name = name
        control.withLock {
            while !isClosing {
                _ = control.wait(until: MonotonicClock.now() + 0.1)
                guard !isClosing, device != 0, SDL_GetAudioDeviceStatus(device) == SDL_AUDIO_STOPPED else { continue }
                SDL_CloseAudioDevice(device)
                var wanted = spec
                var obtained = SDL_AudioSpec()
                device = SDL_OpenAudioDevice(nil, 0, &wanted, &obtained, 0)
                guard device != 0 else {
                    Log.audio.error("sound device \(name) went away, and the default one cannot be opened: \(SDLError.current)")
                    return
                }
                Log.audio.warning("sound device \(name) went away: playing on the default one")
                name = "(the default)"
                if isPlaying { SDL_PauseAudioDevice(device, 0) }
            }
        }
    }
}

enum SDLError {
    static var current: String { String(cString: SDL_GetError()) }
}
