import CHPlayerShim
import Logging
import Synchronization

/// The engine's loggers, one label per layer, so a log line says where it came from.
enum Log {
    static let source = Logger(label: "hplayer.source")
    static let track = Logger(label: "hplayer.track")
    static let player = Logger(label: "hplayer.player")
    static let output = Logger(label: "hplayer.output")
    static let ffmpeg = Logger(label: "hplayer.ffmpeg")
    static let snapshot = Logger(label: "hplayer.snapshot")
    static let network = Logger(label: "hplayer.network")
    static let cache = Logger(label: "hplayer.cache")
    static let encode = Logger(label: "hplayer.encode")
    static let subtitle = Logger(label: "hplayer.subtitle")
}

/// Sends libav*'s own log lines to swift-log under the label `hplayer.ffmpeg`.
///
/// Its errors (corrupt data it skipped or concealed) become warnings, rate-limited: a broken file
/// says so without flooding the terminal.
public enum FFmpegLogBridge {
    private static let errorLines = Atomic<Int>(0)

    /// - Parameter level: the most verbose swift-log level to pass on; errors always pass.
    public static func install(level: Logger.Level) {
        hp_set_log_sink({ avLevel, line in
            if let line { FFmpegLogBridge.forward(avLevel: avLevel, line: line) }
        }, max(avLevel(for: level), avLevel(for: .error)))
    }

    private static func forward(avLevel: Int32, line: UnsafePointer<CChar>) {
        var lineLevel = level(forAVLevel: avLevel)
        if lineLevel == .error {
            lineLevel = .warning
            let count = errorLines.add(1, ordering: .relaxed).newValue
            if count == 6 {
                Log.ffmpeg.warning("more decoding problems follow; showing one in a hundred")
            }
            guard count <= 5 || count.isMultiple(of: 100) else { return }
        }
        Log.ffmpeg.log(level: lineLevel, "\(String(cString: line))")
    }

    static func level(forAVLevel avLevel: Int32) -> Logger.Level {
        switch avLevel {
        case ...8: return .critical      // AV_LOG_FATAL and AV_LOG_PANIC
        case ...16: return .error        // AV_LOG_ERROR
        case ...24: return .warning      // AV_LOG_WARNING
        case ...32: return .info         // AV_LOG_INFO
        case ...48: return .debug        // AV_LOG_VERBOSE, AV_LOG_DEBUG
        default: return .trace
        }
    }

    static func avLevel(for level: Logger.Level) -> Int32 {
        switch level {
        case .trace: return 56
        case .debug: return 48
        case .info, .notice: return 32
        case .warning: return 24
        case .error: return 16
        case .critical: return 8
        }
    }
}
