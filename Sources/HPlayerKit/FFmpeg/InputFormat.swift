import CFFmpeg
import Glibc

/// A libavformat input format named rather than guessed from the bytes, with its options: a
/// capture device (v4l2, pulse, alsa, x11grab) or a lavfi filter graph, which libavdevice
/// provides.
public struct InputFormat: Sendable, Equatable {
    /// libavformat's name of the format ("v4l2", "pulse", "lavfi").
    public var name: String
    /// The format's private options, as `-f NAME -OPTION VALUE` would give them
    /// ("video_size": "1280x720").
    public var options: [String: String]

    /// A format, as the fields say: set it as `SourceOptions.inputFormat`.
    public init(name: String, options: [String: String] = [:]) {
        self.name = name
        self.options = options
    }

    /// The demuxer, with libavdevice's devices registered first. libavdevice is loaded only
    /// here (it brings a few dozen libraries of its own that playback never needs).
    func demuxer(for input: String) throws(MediaError) -> UnsafePointer<AVInputFormat> {
        try DeviceLibrary.registerOnce(for: input)
        guard let format = av_find_input_format(name) else {
            throw MediaError(input: input, reason: "no '\(name)' input in this FFmpeg")
        }
        return format
    }
}

/// libavdevice, opened on first use.
private enum DeviceLibrary {
    private static let loaded: String? = {
        guard let library = dlopen("libavdevice.so.59", RTLD_NOW | RTLD_GLOBAL),
              let symbol = dlsym(library, "avdevice_register_all") else {
            return "capture devices and lavfi need libavdevice59: \(String(cString: dlerror()))"
        }
        typealias RegisterAll = @convention(c) () -> Void
        unsafeBitCast(symbol, to: RegisterAll.self)()
        return nil
    }()

    static func registerOnce(for input: String) throws(MediaError) {
        if let failure = loaded { throw MediaError(input: input, reason: failure) }
    }
}
