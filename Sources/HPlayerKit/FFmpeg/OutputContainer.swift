import CFFmpeg
import CHPlayerShim
import Glibc

/// A file being written by a libavformat muxer: the owner of its AVFormatContext and its
/// AVIOContext.
///
/// The muxer comes from the file's extension; the file is created (or truncated) when this is
/// made, so a path that cannot be written is refused at once. `close` writes the trailer once
/// the header has been written.
///
/// A named pipe is written without blocking: a reader that takes nothing for `pipeStallLimit`
/// fails the write, and `interrupt()` ends a write waiting on the reader at once, so a reader
/// that stops reading holds neither the read thread (which records) for long nor a caller
/// stopping the recording.
final class OutputContainer {
    private struct Muxer {
        var name: String
        var movFlags: String?
    }

    /// The muxer for each extension a file may have. MP4 and QuickTime files are written in
    /// fragments, one from each key frame, as Matroska and MPEG-TS files are in clusters and
    /// packets: a file cut short (a full disk, a crash) still plays up to where it was cut.
    private static let muxers = [
        "mp4": Muxer(name: "mp4", movFlags: "frag_keyframe+delay_moov"),
        "mov": Muxer(name: "mov", movFlags: "frag_keyframe+delay_moov"),
        "mkv": Muxer(name: "matroska"),
        "ts": Muxer(name: "mpegts"),
    ]

    /// How long a pipe's reader may take nothing before a write gives up, in microseconds.
    static let pipeStallLimit = 2_000_000
    /// How long the writes that end a recording may wait on a pipe's reader, in seconds.
    static let pipeFinishGrace = 0.5

    let path: String
    private let muxer: Muxer
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var isHeaderWritten = false
    private let interruptFlag = InterruptFlag()
    private let isPipe: Bool
    /// A named pipe's descriptor, which libavformat writes as `pipe:FD` and does not close.
    private var pipeDescriptor: Int32 = -1

    /// - Parameter isFragmented: false for a file written once through (an encode): MP4 and
    ///   QuickTime files then get one index, moved to the front when the file ends (faststart).
    init(path: String, isFragmented: Bool = true) throws(MediaError) {
        self.path = path
        let name = path.split(separator: "/").last ?? ""
        let fileExtension = name.contains(".") ? String(name.split(separator: ".").last ?? "").lowercased() : ""
        guard var muxer = Self.muxers[fileExtension] else {
            throw MediaError(input: path, reason: "cannot tell the format from the name: it must end in .mkv, .mov, .mp4 or .ts")
        }
        if !isFragmented, muxer.movFlags != nil { muxer.movFlags = "faststart" }
        self.muxer = muxer
        var allocated: UnsafeMutablePointer<AVFormatContext>?
        let result = avformat_alloc_output_context2(&allocated, nil, muxer.name, path)
        guard result >= 0, let allocated else {
            throw MediaError(input: path, reason: "no \(muxer.name) muxer: \(FFmpegError(result))")
        }
        var openedURL = path
        var options: OpaquePointer?
        isPipe = NamedPipe.path(of: path) != nil
        if isPipe {
            do { pipeDescriptor = try NamedPipe.openForWriting(path) } catch {
                avformat_free_context(allocated)
                throw error
            }
            openedURL = "pipe:\(pipeDescriptor)"
            av_dict_set(&options, "rw_timeout", String(Self.pipeStallLimit), 0)
        }
        var callback = interruptFlag.callback
        let opened = avio_open2(&allocated.pointee.pb, openedURL, AVIO_FLAG_WRITE, &callback, &options)
        av_dict_free(&options)
        guard opened >= 0 else {
            avformat_free_context(allocated)
            closePipe()
            throw MediaError(input: path, reason: "cannot write: \(FFmpegError(opened))")
        }
        context = allocated
    }

    deinit { try? close() }

    /// The recording ends: a write waiting on a named pipe's reader, and every write after, fail
    /// once `pipeFinishGrace` has passed; what had not gone into the pipe by then is lost (the
    /// trailer too). A reader that keeps up takes it all. A file is left to finish. Any thread.
    func interrupt() {
        if isPipe { interruptFlag.set(at: MonotonicClock.now() + Self.pipeFinishGrace) }
    }

    /// Adds a stream with `input`'s codec parameters, time base, aspect ratio and side data (a
    /// rotation, say); returns its index. Before `writeHeader`.
    func addStream(copying input: UnsafeMutablePointer<AVStream>) throws(MediaError) -> Int32 {
        guard let context, let stream = avformat_new_stream(context, nil) else {
            throw MediaError(input: path, reason: "out of memory")
        }
        let copied = avcodec_parameters_copy(stream.pointee.codecpar, input.pointee.codecpar)
        guard copied >= 0 else { throw MediaError(input: path, reason: "cannot copy the codec parameters: \(FFmpegError(copied))") }
        let parameters = stream.pointee.codecpar!
        // A tag the muxer does not know for this codec (an MP4 fourcc in a transport stream) is
        // dropped, and the muxer writes its own.
        let tags = context.pointee.oformat.pointee.codec_tag
        if tags == nil || av_codec_get_id(tags, parameters.pointee.codec_tag) != parameters.pointee.codec_id {
            parameters.pointee.codec_tag = 0
        }
        stream.pointee.time_base = input.pointee.time_base
        if input.pointee.sample_aspect_ratio.num > 0 {
            stream.pointee.sample_aspect_ratio = input.pointee.sample_aspect_ratio
            parameters.pointee.sample_aspect_ratio = input.pointee.sample_aspect_ratio
        }
        for index in 0..<Int(input.pointee.nb_side_data) {
            let side = input.pointee.side_data[index]
            guard let source = side.data else { continue }
            guard let data = av_stream_new_side_data(stream, side.type, side.size) else {
                throw MediaError(input: path, reason: "out of memory")
            }
            data.update(from: source, count: side.size)
        }
        return stream.pointee.index
    }

    /// Whether the format keeps codec configuration in its header (MP4, Matroska): encoders must
    /// then put it in their extradata (AV_CODEC_FLAG_GLOBAL_HEADER).
    var needsGlobalHeader: Bool {
        guard let context else { return false }
        return context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0
    }

    /// Adds a stream for what `encoder` makes (its parameters, time base and pixel shape), turned
    /// `rotation` clockwise degrees for display; returns its index. Before `writeHeader`.
    func addStream(encoder: UnsafeMutablePointer<AVCodecContext>, rotation: Int = 0) throws(MediaError) -> Int32 {
        guard let context, let stream = avformat_new_stream(context, nil) else {
            throw MediaError(input: path, reason: "out of memory")
        }
        let copied = avcodec_parameters_from_context(stream.pointee.codecpar, encoder)
        guard copied >= 0 else { throw MediaError(input: path, reason: "cannot copy the codec parameters: \(FFmpegError(copied))") }
        stream.pointee.time_base = encoder.pointee.time_base
        stream.pointee.avg_frame_rate = encoder.pointee.framerate
        stream.pointee.sample_aspect_ratio = encoder.pointee.sample_aspect_ratio
        if rotation % 360 != 0 {
            let size = 9 * MemoryLayout<Int32>.size
            guard let data = av_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, size) else {
                throw MediaError(input: path, reason: "out of memory")
            }
            // The reading side takes the clockwise turn as minus av_display_rotation_get, which is
            // minus the angle given to av_display_rotation_set: so the turn itself goes in.
            data.withMemoryRebound(to: Int32.self, capacity: 9) { av_display_rotation_set($0, Double(rotation)) }
        }
        return stream.pointee.index
    }

    /// Bytes written to the file so far.
    var bytesWritten: Int {
        guard let context, let io = context.pointee.pb else { return 0 }
        return Int(avio_tell(io))
    }

    func writeHeader() throws(MediaError) {
        var options: OpaquePointer?
        if let movFlags = muxer.movFlags { av_dict_set(&options, "movflags", movFlags, 0) }
        let result = avformat_write_header(context, &options)
        av_dict_free(&options)
        guard result >= 0 else { throw MediaError(input: path, reason: "cannot start the file: \(FFmpegError(result))") }
        isHeaderWritten = true
    }

    /// The time base the muxer chose for stream `index` (known once the header is written).
    func timeBase(ofStream index: Int32) -> TimeBase {
        TimeBase(context!.pointee.streams[Int(index)]!.pointee.time_base)
    }

    /// Hands `packet` to the muxer, which takes its reference and interleaves it with the
    /// other streams' packets; throws what went wrong.
    func write(_ packet: UnsafeMutablePointer<AVPacket>) throws(MediaError) {
        let result = av_interleaved_write_frame(context, packet)
        guard result < 0 else { return }
        let reason = switch (isPipe, result) {
        case (true, hp_averror(EIO)): "the named pipe's reader took nothing for \(Self.pipeStallLimit / 1_000_000) s"
        case (true, hp_averror(EPIPE)): "the named pipe's reader has gone"
        default: FFmpegError(result).description
        }
        throw MediaError(input: path, reason: reason)
    }

    /// Writes the trailer (once the header is written), closes the file and frees everything;
    /// the first error is thrown once everything is freed.
    func close() throws(MediaError) {
        guard let context else { return }
        self.context = nil
        let trailer = isHeaderWritten ? av_write_trailer(context) : 0
        let closed = avio_closep(&context.pointee.pb)
        avformat_free_context(context)
        closePipe()
        if trailer < 0 { throw MediaError(input: path, reason: "cannot finish the file: \(FFmpegError(trailer))") }
        if closed < 0 { throw MediaError(input: path, reason: "cannot finish the file: \(FFmpegError(closed))") }
    }

    private func closePipe() {
        if pipeDescriptor >= 0 { Glibc.close(pipeDescriptor) }
        pipeDescriptor = -1
    }
}
