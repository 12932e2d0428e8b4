import ArgumentParser
import Glibc
import HPlayerKit

extension CacheCommand {
    /// `hplayer cache prefetch`: a whole file, or an HLS variant (and its audio rendition, and
    /// its subtitle renditions or a DASH presentation's text sets), read through the disk cache
    /// and nowhere else, for playing offline later.
    struct Prefetch: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "prefetch",
            abstract: "Download a whole file, or the HLS variant --hls-bitrate picks (by default the highest), into the disk cache for playing offline.")
        @Argument(help: "The URL.") var url: String
        @Flag(name: .customLong("keep-keys"), help: "Keep the AES-128 keys of an encrypted HLS stream in the cache folder (its file 'keys', mode 0600), so that it plays offline. Without it keys are never written to disk, and an encrypted stream needs its key server to play.")
        var keepsKeys = false
        @OptionGroup(title: "Network") var network: NetworkArguments
        @OptionGroup var common: CommonOptions

        func run() throws {
            common.bootstrapLogging()
            guard NetworkOptions.isHTTP(url) else {
                throw CommandLineFailure.media(MediaError(input: url, reason: "not a network URL: local files are never cached"))
            }
            var options = NetworkOptions()
            try network.apply(to: &options)
            options.keepsKeys = keepsKeys
            guard options.cache != nil else { throw CommandLineFailure.usage(input: "--cache", reason: "no: nothing to prefetch into") }
            var progress = PrefetchProgress()
            do throws(MediaError) {
                let source = try open(url, options: options)
                try read(source, progress: &progress)
                let stream = source as? SegmentStream
                for rendition in (stream?.audioRenditionURL.map { [$0] } ?? []) + (stream?.textRenditions.map(\.url) ?? []) {
                    try read(try open(rendition, options: options), progress: &progress)
                }
            } catch {
                progress.finish()
                throw CommandLineFailure.media(error)
            }
            progress.finish()
            print("prefetched \(CacheText.size(progress.bytes)) of \(url)")
        }

        /// The source that reads `target` through the cache: an HLS stream (VOD only), or the file.
        private func open(_ target: String, options: NetworkOptions) throws(MediaError) -> ByteSource {
            // One whole variant, for playing offline: by default the highest, not a mix of what
            // the bitrate policy would pick as the download went.
            var options = options
            if options.hlsBitrate == .auto { options.hlsBitrate = .max }
            let source: ByteSource = NetworkOptions.isSegmented(target) ? SegmentStream(url: target, options: options)
                : options.httpResource(for: target)
            try source.open(at: 0)
            if let stream = source as? SegmentStream {
                if let feature = stream.unsupportedFeature { throw MediaError(input: target, reason: "\(feature): not read by this client") }
                guard stream.duration != nil else { throw MediaError(input: target, reason: "a live stream: nothing to prefetch") }
            }
            return source
        }

        /// Reads `source` to its end, every section of it, then lets it finish its commits.
        private func read(_ source: ByteSource, progress: inout PrefetchProgress) throws(MediaError) {
            defer { source.close() }
            progress.expect(Self.expectedBytes(of: source))
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
            defer { chunk.deallocate() }
            while true {
                let count = try source.read(into: chunk)
                if count > 0 {
                    progress.add(count)
                    continue
                }
                guard let sectioned = source as? TimeSeekableByteSource, sectioned.isAtSectionEnd else { return }
                sectioned.beginSection()
            }
        }

        /// The file's length; for an HLS variant, its declared bandwidth over its duration.
        private static func expectedBytes(of source: ByteSource) -> Int64? {
            if let stream = source as? SegmentStream {
                guard let duration = stream.duration, let bandwidth = stream.variants?.first(where: \.isPlaying)?.bandwidth else { return nil }
                return Int64(duration * Double(bandwidth) / 8)
            }
            return source.info.contentLength
        }
    }
}

/// The terminal's progress line while prefetching: bytes, rate and time left.
struct PrefetchProgress {
    private(set) var bytes: Int64 = 0
    private var expected: Int64 = 0
    private let start = MonotonicClock.now()
    private var shownAt = 0.0
    private let isTerminal = isatty(STDERR_FILENO) != 0

    mutating func expect(_ more: Int64?) { expected += more ?? 0 }

    mutating func add(_ count: Int) {
        bytes += Int64(count)
        let now = MonotonicClock.now()
        guard isTerminal, now - shownAt >= 0.2 else { return }
        shownAt = now
        let rate = Double(bytes) / max(now - start, 0.001)
        var line = "\(CacheText.size(bytes))"
        if expected > bytes {
            line += " of ~\(CacheText.size(expected))  \(CacheText.size(Int64(rate)))/s  ETA \(TimeText.clock(Double(expected - bytes) / max(rate, 1)))"
        } else {
            line += "  \(CacheText.size(Int64(rate)))/s"
        }
        writeStandardError("\(clearStatusLine)\(line)")
    }

    func finish() {
        if isTerminal { writeStandardError(clearStatusLine) }
    }
}
