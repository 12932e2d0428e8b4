import CALSAQuiet
import CPulseLatency
import CSDL2
import HPlayerKit

/// Sound through SDL2 (PulseAudio or ALSA, whichever SDL finds): the device's callback pulls from
/// the renderer, at the device's native rate and channel count. The renderer is called on SDL's
/// audio thread.
public final class SDLAudioOutput: AudioOutput, @unchecked Sendable {
    private let samplesPerCallback: Int
    private var device: SDL_AudioDeviceID = 0
    private var renderer: AudioRendering?
    private var bytesPerFrame = 8
    /// Seconds one callback's buffer lasts.
    private var bufferDuration = 0.0
    /// The sound server's own latency is asked of it (PulseAudio, PipeWire's pulse server).
    private var asksServer = false

    /// - Parameter samplesPerCallback: the device buffer; 1024 is 21 ms at 48 kHz.
    public init(samplesPerCallback: Int = 1024) {
        self.samplesPerCallback = samplesPerCallback
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
        device = SDL_OpenAudioDevice(nil, 0, &wanted, &obtained, changes)
        guard device != 0 else {
            SDL_QuitSubSystem(SDL_INIT_AUDIO)
            throw MediaError(input: "sound device", reason: SDLError.current)
        }
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
        if device != 0 { SDL_PauseAudioDevice(device, 0) }
    }

    /// Returns once no callback is running (SDL locks the device to pause it).
    public func pause() {
        if device != 0 { SDL_PauseAudioDevice(device, 1) }
    }

    /// Closes the device: no callback runs after it returns.
    public func close() {
        guard device != 0 else { return }
        SDL_CloseAudioDevice(device)
        device = 0
        if asksServer { hp_pulse_latency_stop() }
        SDL_QuitSubSystem(SDL_INIT_AUDIO)
    }
}

enum SDLError {
    static var current: String { String(cString: SDL_GetError()) }
}
