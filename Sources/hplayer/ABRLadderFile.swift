import FoundationEssentials
import Glibc
import HPlayerKit

/// A ladder for `hplayer abr-sim` from a local presentation: its rungs' declared bit rates and
/// its segments' real sizes, read from the files beside it.
enum ABRLadderFile {
    /// An HLS master playlist's variants (AVERAGE-BANDWIDTH where given).
    static func hls(_ path: String) throws -> ABRLadder {
        let master: HLSMasterPlaylist
        do {
            guard case let .master(parsed) = try HLSPlaylistParser.parse(try String(contentsOfFile: path, encoding: .utf8)) else {
                throw CommandLineFailure.media(MediaError(input: path, reason: "not a master playlist"))
            }
            master = parsed
        } catch let error as CommandLineFailure {
            throw error
        } catch {
            throw CommandLineFailure.media(MediaError(input: path, reason: "\(error)"))
        }
        let folder = Self.folder(of: path)
        let variants = master.variants.sorted { ($0.averageBandwidth ?? $0.bandwidth) < ($1.averageBandwidth ?? $1.bandwidth) }
        var rungs: [[(size: Double, duration: Double)]] = []
        for variant in variants {
            let playlist = folder + "/" + variant.uri
            guard let text = try? String(contentsOfFile: playlist, encoding: .utf8), case let .media(media)? = try? HLSPlaylistParser.parse(text) else {
                throw CommandLineFailure.media(MediaError(input: playlist, reason: "not a media playlist"))
            }
            let base = Self.folder(of: playlist)
            rungs.append(try media.segments.map { segment in
                if let range = segment.byteRange { return (Double(range.length), segment.duration) }
                return (try size(of: base + "/" + segment.uri), segment.duration)
            })
        }
        return try ladder(name: MediaMetadata.fileName(of: folder), bitrates: variants.map { Double($0.averageBandwidth ?? $0.bandwidth) },
                          rungs: rungs, source: path)
    }

    /// A DASH MPD's first Period: the Representations of its first video AdaptationSet (audio
    /// where there is no video), by bandwidth. Each segment's size is its byte range's, else its
    /// file's; a SegmentBase's come from its sidx.
    static func dash(_ path: String) throws -> ABRLadder {
        let absolute = path.hasPrefix("/") ? path : (FileManager.default.currentDirectoryPath + "/" + path)
        let mpd: MPD
        do {
            mpd = try MPDParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: absolute))), url: "file://" + absolute)
        } catch let error as MPDError {
            throw CommandLineFailure.media(MediaError(input: path, reason: error.reason))
        } catch {
            throw CommandLineFailure.media(MediaError(input: path, reason: "\(error)"))
        }
        guard let period = mpd.periods.first,
              let set = period.adaptationSets.first(where: { $0.contentType == .video && !$0.representations.isEmpty })
                ?? period.adaptationSets.first(where: { $0.contentType == .audio && !$0.representations.isEmpty }) else {
            throw CommandLineFailure.media(MediaError(input: path, reason: "no video or audio Representation in the first Period"))
        }
        let representations = set.representations.sorted { $0.bandwidth < $1.bandwidth }
        var rungs: [[(size: Double, duration: Double)]] = []
        for representation in representations {
            let segments: [DASHSegment]
            do {
                if case let .base(base)? = representation.segments {
                    guard let range = base.indexRange, let file = representation.baseURLs.first.map(Self.localPath) else {
                        throw MPDError("Representation \(representation.id): a SegmentBase with no indexRange")
                    }
                    let index = try bytes(of: file, range: range)
                    let sidx = try SidxBox.parse(index)
                    segments = MPDSegmentIndex.segments(of: representation, sidx: sidx, indexEnd: range.lowerBound + Int64(sidx.boxEnd))
                } else {
                    segments = try MPDSegmentIndex.segments(of: representation, periodDuration: period.duration)
                }
            } catch let error as MPDError {
                throw CommandLineFailure.media(MediaError(input: path, reason: error.reason))
            }
            rungs.append(try segments.map { segment in
                if let range = segment.range { return (Double(range.count), segment.duration) }
                return (try size(of: Self.localPath(segment.urls.first ?? "")), segment.duration)
            })
        }
        return try ladder(name: MediaMetadata.fileName(of: Self.folder(of: absolute)), bitrates: representations.map { Double($0.bandwidth) },
                          rungs: rungs, source: path)
    }

    private static func ladder(name: String, bitrates: [Double], rungs: [[(size: Double, duration: Double)]], source: String) throws -> ABRLadder {
        let count = rungs.map(\.count).min() ?? 0
        guard rungs.count > 1, count > 0 else { throw CommandLineFailure.media(MediaError(input: source, reason: "a ladder needs two rungs with segments")) }
        let durations = rungs.flatMap { $0.map(\.duration) }
        return ABRLadder(name: name, bitrates: bitrates, segmentDuration: durations.reduce(0, +) / Double(durations.count),
                         sizes: (0..<count).map { segment in rungs.map { $0[segment].size } })
    }

    private static func size(of file: String) throws -> Double {
        guard let size = ABRSimCommand.fileSize(file) else {
            throw CommandLineFailure.media(MediaError(input: file, reason: "no such segment file"))
        }
        return Double(size)
    }

    private static func bytes(of file: String, range: ClosedRange<Int64>) throws -> [UInt8] {
        let descriptor = open(file, O_RDONLY)
        guard descriptor >= 0 else { throw CommandLineFailure.media(MediaError(input: file, reason: String(cString: strerror(errno)))) }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: range.count)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, range.count, off_t(range.lowerBound)) }
        guard count == range.count else { throw CommandLineFailure.media(MediaError(input: file, reason: "shorter than its index range")) }
        return bytes
    }

    /// A file:// URL's path.
    private static func localPath(_ url: String) -> String {
        url.hasPrefix("file://") ? String(url.dropFirst(7)) : url
    }

    /// The folder a path is in: "." for a bare name.
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
