import CFFmpeg
import Glibc

/// Where encoded packets go: a muxed file, a raw H.264 stream, an ADTS stream or an HLS package.
protocol EncodeOutput: AnyObject {
    var path: String { get }
    /// The kinds of stream it writes, of those there are.
    var kinds: Set<MediaKind> { get }
    /// Whether its encoders must keep codec configuration in extradata.
    var needsGlobalHeader: Bool { get }
    /// The video encodings it writes: the main one (`-o` files) or a package's rungs.
    var videoEncodings: VideoEncodings { get }
    /// Starts writing once the encoders are open: `video` holds its encodings' encoders in order
    /// (none where the source has no picture), `audio` nil where it has no sound.
    func start(video: [VideoEncoder], audio: AudioEncoder?) throws(MediaError)
    /// One packet of `kind` from its `encoding`th video encoder (0 for sound), its times in that
    /// encoder's time base; the packet stays the caller's.
    func write(_ packet: UnsafeMutablePointer<AVPacket>, kind: MediaKind, encoding: Int) throws(MediaError)
    /// The encoder of `kind` has put out its last packet.
    func end(_ kind: MediaKind) throws(MediaError)
    func finish() throws(MediaError)
    var bytesWritten: Int { get }
}

/// Which video encodings an output takes.
enum VideoEncodings: Equatable {
    /// The encoding at the source's size or --video-size, with the command's settings.
    case main
    /// A package's rungs, from the top.
    case rungs
}

extension EncodeOutput {
    var videoEncodings: VideoEncodings { .main }
    func end(_ kind: MediaKind) throws(MediaError) {}
}

/// The output for `path`, by its extension: .h264/.264 raw H.264, .aac ADTS, else a muxer's.
func makeEncodeOutput(path: String) throws(MediaError) -> EncodeOutput {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    let fileExtension = name.contains(".") ? (name.split(separator: ".").last.map { $0.lowercased() } ?? "") : ""
    switch fileExtension {
    case "h264", "264": return try RawH264Output(path: path)
    case "aac": return try ADTSOutput(path: path)
    case "mp4", "mov", "mkv", "ts": return try MuxedOutput(path: path)
    default:
        throw MediaError(input: path, reason: "cannot tell the format from the name: it must end in .mp4, .mov, .mkv, .ts, .h264 or .aac")
    }
}

/// A file a libavformat muxer writes: MP4 (faststart), QuickTime, Matroska, MPEG-TS.
final class MuxedOutput: EncodeOutput {
    private let container: OutputContainer
    private var streamIndex: [MediaKind: Int32] = [:]
    private var encoderTimeBase: [MediaKind: AVRational] = [:]
    /// A reference to the caller's packet, which the muxer takes over.
    private let handedOver: UnsafeMutablePointer<AVPacket>

    init(path: String) throws(MediaError) {
        container = try OutputContainer(path: path, isFragmented: false)
        guard let packet = av_packet_alloc() else { fatalError("av_packet_alloc: out of memory") }
        handedOver = packet
    }

    deinit {
        var owned: UnsafeMutablePointer<AVPacket>? = handedOver
        av_packet_free(&owned)
    }

    var path: String { container.path }
    let kinds: Set<MediaKind> = [.video, .audio]
    var needsGlobalHeader: Bool { container.needsGlobalHeader }
    var bytesWritten: Int { finalSize ?? container.bytesWritten }
    /// The file's size once finished (the trailer and the faststart move included).
    private var finalSize: Int?

    func start(video: [VideoEncoder], audio: AudioEncoder?) throws(MediaError) {
        if let video = video.first {
            streamIndex[.video] = try container.addStream(encoder: video.context, rotation: video.rotation)
            encoderTimeBase[.video] = video.context.pointee.time_base
        }
        if let audio {
            streamIndex[.audio] = try container.addStream(encoder: audio.context)
            encoderTimeBase[.audio] = audio.context.pointee.time_base
        }
        try container.writeHeader()
    }

    func write(_ packet: UnsafeMutablePointer<AVPacket>, kind: MediaKind, encoding: Int) throws(MediaError) {
        guard let index = streamIndex[kind], let timeBase = encoderTimeBase[kind] else { return }
        guard av_packet_ref(handedOver, packet) >= 0 else { throw MediaError(input: path, reason: "out of memory") }
        handedOver.pointee.stream_index = index
        av_packet_rescale_ts(handedOver, timeBase, container.timeBase(ofStream: index).rational)
        try container.write(handedOver)
    }

    func finish() throws(MediaError) {
        try container.close()
        var status = stat()
        if stat(path, &status) == 0 { finalSize = Int(status.st_size) }
    }
}

/// A file of bytes written in order, whose write errors are kept for `close`.
private final class ByteFile {
    let path: String
    private var handle: UnsafeMutablePointer<FILE>?
    private var failure: Int32 = 0
    private(set) var size = 0

    init(path: String) throws(MediaError) {
        self.path = path
        guard let handle = fopen(path, "wb") else { throw MediaError(input: path, reason: String(cString: strerror(errno))) }
        self.handle = handle
    }

    deinit { if let handle { fclose(handle) } }

    func write(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, let handle else { return }
        if fwrite(base, 1, bytes.count, handle) != bytes.count, failure == 0 { failure = errno }
        size += bytes.count
    }

    func close() throws(MediaError) {
        guard let handle else { return }
        self.handle = nil
        if fclose(handle) != 0, failure == 0 { failure = errno }
        if failure != 0 { throw MediaError(input: path, reason: "cannot write: \(String(cString: strerror(failure)))") }
    }
}

/// Raw H.264 (Annex B), as a hardware encoder's output is written out: the SPS and PPS go before
/// every IDR. An encoder that keeps them in extradata (for a muxer's header) leaves them out
/// of its packets; they are put back here.
final class RawH264Output: EncodeOutput {
    private let file: ByteFile
    /// The latest SPS and PPS units, each with its start code: from the extradata, then from the stream.
    private var parameterSets: [UInt8] = []

    init(path: String) throws(MediaError) { file = try ByteFile(path: path) }

    var path: String { file.path }
    let kinds: Set<MediaKind> = [.video]
    let needsGlobalHeader = false
    var bytesWritten: Int { file.size }

    func start(video: [VideoEncoder], audio: AudioEncoder?) throws(MediaError) {
        guard let video = video.first else { throw MediaError(input: path, reason: "the source has no video to write as H.264") }
        let context = video.context.pointee
        if let extradata = context.extradata, context.extradata_size > 0 {
            let bytes = UnsafeBufferPointer(start: extradata, count: Int(context.extradata_size))
            parameterSets = Self.parameterSets(in: bytes, units: AnnexB.nalUnits(in: bytes)) ?? []
        }
    }

    func write(_ packet: UnsafeMutablePointer<AVPacket>, kind: MediaKind, encoding: Int) throws(MediaError) {
        guard kind == .video, let data = packet.pointee.data else { return }
        let bytes = UnsafeBufferPointer(start: data, count: Int(packet.pointee.size))
        let units = AnnexB.nalUnits(in: bytes)
        if let inBand = Self.parameterSets(in: bytes, units: units) { parameterSets = inBand }
        let types = units.map(\.type)
        if types.contains(AnnexB.H264Type.idrSlice), !AnnexB.everyIDRHasParameterSets([types]) {
            parameterSets.withUnsafeBytes { file.write($0) }
        }
        file.write(UnsafeRawBufferPointer(bytes))
    }

    func finish() throws(MediaError) { try file.close() }

    /// The SPS and PPS units in `bytes`, each after a 4-byte start code; nil when it has neither.
    private static func parameterSets(in bytes: UnsafeBufferPointer<UInt8>, units: [AnnexB.NALUnit]) -> [UInt8]? {
        let sets = units.filter { $0.type == AnnexB.H264Type.sps || $0.type == AnnexB.H264Type.pps }
        guard !sets.isEmpty else { return nil }
        return sets.flatMap { [0, 0, 0, 1] + Array(bytes[$0.range]) }
    }
}

/// AAC in ADTS: each raw frame after a header of our own (ADTSHeader), as FFmpeg's adts muxer
/// writes them.
final class ADTSOutput: EncodeOutput {
    private let file: ByteFile
    private var header: ADTSHeader?

    init(path: String) throws(MediaError) { file = try ByteFile(path: path) }

    var path: String { file.path }
    let kinds: Set<MediaKind> = [.audio]
    let needsGlobalHeader = false
    var bytesWritten: Int { file.size }

    func start(video: [VideoEncoder], audio: AudioEncoder?) throws(MediaError) {
        guard let audio else { throw MediaError(input: path, reason: "the source has no sound to write as AAC") }
        do {
            header = try ADTSHeader(objectType: audio.objectType, sampleRate: audio.sampleRate, channelCount: audio.channelCount)
        } catch {
            throw MediaError(input: path, reason: error.reason)
        }
    }

    func write(_ packet: UnsafeMutablePointer<AVPacket>, kind: MediaKind, encoding: Int) throws(MediaError) {
        guard kind == .audio, let header, let data = packet.pointee.data else { return }
        let length = Int(packet.pointee.size)
        do {
            try header.bytes(payloadLength: length).withUnsafeBytes { file.write($0) }
        } catch {
            throw MediaError(input: path, reason: error.reason)
        }
        file.write(UnsafeRawBufferPointer(start: data, count: length))
    }

    func finish() throws(MediaError) { try file.close() }
}
