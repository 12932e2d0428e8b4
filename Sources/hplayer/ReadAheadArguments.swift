import ArgumentParser
import HPlayerKit

/// How far network media is read ahead, and how much is buffered before playing again, in
/// mpv's option names.
struct ReadAheadArguments: ParsableArguments {
    @Option(name: .customLong("cache-secs"), help: "Read network media this many seconds ahead at most (default 120).")
    var cacheSeconds: Double?
    @Option(name: .customLong("demuxer-max-bytes"), help: "Read network media ahead up to this many bytes of packets: 64MiB (the default), 500KiB, 1GiB or bytes.")
    var demuxerMaxBytes: String?
    @Option(name: .customLong("cache-pause-wait"), help: "Seconds to buffer before playing again after running dry (default 3).")
    var cachePauseWait: Double?

    func apply(to source: inout SourceOptions) throws(CommandLineFailure) {
        if let cacheSeconds {
            guard cacheSeconds > 0, cacheSeconds.isFinite else { throw .usage(input: "--cache-secs", reason: "expected seconds above 0, got \(cacheSeconds)") }
            source.readAhead.seconds = cacheSeconds
        }
        if let demuxerMaxBytes {
            guard let bytes = ByteSize.parse(demuxerMaxBytes), bytes > 0 else {
                throw .usage(input: "--demuxer-max-bytes", reason: "expected a size such as 64MiB, got '\(demuxerMaxBytes)'")
            }
            source.readAhead.bytes = bytes
        }
        if let cachePauseWait {
            guard cachePauseWait >= 0, cachePauseWait.isFinite else {
                throw .usage(input: "--cache-pause-wait", reason: "expected seconds, got \(cachePauseWait)")
            }
            source.buffering.minimumBufferedDuration = cachePauseWait
        }
    }
}

/// Sizes as mpv writes them: bytes, or a number with KiB, MiB, GiB (and K, M, G, the same).
enum ByteSize {
    static func parse(_ text: String) -> Int? {
        let units: [(String, Double)] = [("kib", 0x400), ("mib", 0x10_0000), ("gib", 0x4000_0000),
                                      ("k", 0x400), ("m", 0x10_0000), ("g", 0x4000_0000), ("b", 1)]
        let lowered = text.lowercased()
        var factor = 1.0
        var number = Substring(lowered)
        if let (suffix, unit) = units.first(where: { lowered.hasSuffix($0.0) }) {
            factor = unit
            number = lowered.dropLast(suffix.count)
        }
        guard let value = Double(number), value >= 0, (value * factor).isFinite, value * factor < Double(Int.max) else { return nil }
        return Int(value * factor)
    }
}
