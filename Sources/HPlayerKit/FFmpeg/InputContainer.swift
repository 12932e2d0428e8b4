import CFFmpeg
import CHPlayerShim
import Glibc
import Synchronization

/// An opened media file or stream: the owner of its AVFormatContext.
///
/// `abort()` makes a blocking open or read return at once (through libavformat's interrupt
/// callback), so a close never waits on the network.
final class InputContainer: @unchecked Sendable {
    private final class AbortFlag: Sendable {
        let isSet = Atomic<Bool>(false)
    }

    let url: String
    private(set) var context: UnsafeMutablePointer<AVFormatContext>?
    private let abortFlag = AbortFlag()
    /// A named pipe's descriptor, which libavformat reads as `pipe:FD` and does not close.
    private var pipeDescriptor: Int32 = -1
    /// What libavformat reads through instead of its own protocols, when given.
    private let byteSource: ByteSource?
    /// The HLS client left the playlist to libavformat (the opening thread's).
    private var leftToLibavformat = false
    private var io: ByteSourceIO?

    /// - Parameter byteSource: the bytes to read; nil: the I/O layer's HTTP client for an
    ///   http(s) URL, else libavformat opens `url` itself.
    init(url: String, byteSource: ByteSource? = nil, network: NetworkOptions = NetworkOptions()) {
        self.url = url
        self.byteSource = byteSource ?? (NetworkOptions.isHLS(url) ? HLSSegmentStream(url: url, options: network)
            : NetworkOptions.isHTTP(url) ? HTTPByteSource(url: url, options: network) : nil)
    }

    deinit { close() }

    /// Opens `url` and reads enough to know its streams: with libavformat's stream analysis when
    /// `fullAnalysis` asks for it or the header alone does not say enough (`StreamAnalysis`).
    func open(fullAnalysis: Bool) throws(MediaError) {
        guard let allocated = avformat_alloc_context() else {
            throw MediaError(input: url, reason: "out of memory")
        }
        allocated.pointee.interrupt_callback.callback = { opaque in
            let flag = Unmanaged<AbortFlag>.fromOpaque(opaque!).takeUnretainedValue()
            return flag.isSet.load(ordering: .relaxed) ? 1 : 0
        }
        allocated.pointee.interrupt_callback.opaque = Unmanaged.passUnretained(abortFlag).toOpaque()
        var openedURL = url
        if let byteSource {
            do {
                try byteSource.open(at: 0)
            } catch {
                avformat_free_context(allocated)
                throw error
            }
            if let feature = (byteSource as? HLSSegmentStream)?.unsupportedFeature {
                Log.source.info("\(url): \(feature): played by libavformat's own HLS client")
                leftToLibavformat = true
            }
        }
        if let byteSource, !leftToLibavformat {
            do {
                let io = try ByteSourceIO(source: byteSource)
                self.io = io
                allocated.pointee.pb = io.context
                allocated.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
            } catch {
                avformat_free_context(allocated)
                throw MediaError(input: url, reason: error.reason)
            }
        } else if let pipe = NamedPipe.path(of: url) {
            do {
                pipeDescriptor = try NamedPipe.openForReading(pipe, input: url) { abortFlag.isSet.load(ordering: .relaxed) }
            } catch {
                avformat_free_context(allocated)
                throw error
            }
            openedURL = "pipe:\(pipeDescriptor)"
        }
        var opened: UnsafeMutablePointer<AVFormatContext>? = allocated
        let openResult = avformat_open_input(&opened, openedURL, nil, nil)
        guard openResult >= 0, opened != nil else {
            // avformat_open_input frees the context on failure, and leaves a custom AVIOContext to us.
            closePipe()
            let ioError = io?.lastError
            io?.close()
            throw MediaError(input: url, reason: ioError?.reason ?? FFmpegError(openResult).description)
        }
        context = opened
        let formatName = String(cString: opened!.pointee.iformat.pointee.name)
        guard fullAnalysis || StreamAnalysis.isNeeded(formatName: formatName, streams: streams.map(StreamAnalysis.header)) else {
            return
        }
        let infoResult = avformat_find_stream_info(opened, nil)
        if infoResult < 0 {
            close()
            throw MediaError(input: url, reason: "cannot read stream info: \(FFmpegError(infoResult))")
        }
    }

    var streams: [UnsafeMutablePointer<AVStream>] {
        guard let context else { return [] }
        return (0..<Int(context.pointee.nb_streams)).compactMap { context.pointee.streams[$0] }
    }

    /// The index of the stream of `kind` to play: stream `number` (from 1) among those of `kind`
    /// when it is there (a warning when it is not), else libavformat's best (for audio, the one
    /// that goes with video stream `related`); -1 for none. Cover art is no video.
    func chosenStream(of kind: MediaKind, number: Int?, relatedTo related: Int32 = -1) -> Int32 {
        guard let context else { return -1 }
        let type = kind == .video ? AVMEDIA_TYPE_VIDEO : AVMEDIA_TYPE_AUDIO
        var index: Int32
        let ofKind = streams.filter { $0.pointee.codecpar.pointee.codec_type == type }
        if let number, number >= 1, number <= ofKind.count {
            index = ofKind[number - 1].pointee.index
        } else {
            if let number {
                Log.source.warning("\(url): no \(kind.rawValue) track \(number) (the file has \(ofKind.count)): playing the default one")
            }
            index = av_find_best_stream(context, type, -1, related, nil, 0)
        }
        if kind == .video, index >= 0, context.pointee.streams[Int(index)]!.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 {
            index = -1
        }
        return index
    }

    /// av_read_frame: 0, AVERROR_EOF at the end, or another negative error.
    func read(into packet: UnsafeMutablePointer<AVPacket>) -> Int32 {
        av_read_frame(context, packet)
    }

    /// Seeks every stream to the key frame at or before `microseconds` (AV_TIME_BASE units). An
    /// HLS stream goes to the segment holding that time, and libavformat reads on from there.
    func seek(toMicroseconds microseconds: Int64) -> Int32 {
        guard !leftToLibavformat, let timed = byteSource as? TimeSeekableByteSource, let context, let pb = context.pointee.pb else {
            return avformat_seek_file(context, -1, Int64.min, microseconds, microseconds, 0)
        }
        do throws(MediaError) {
            let position = try timed.prepareSeek(toTime: max(0, Double(microseconds) / Double(AV_TIME_BASE) - startTime))
            avformat_flush(context)
            let result = avio_seek(pb, position, SEEK_SET)
            return result < 0 ? Int32(truncatingIfNeeded: result) : 0
        } catch {
            Log.source.warning("\(url): \(error.reason)")
            return hp_averror(EIO)
        }
    }

    /// The container's first timestamp in seconds (0 when it gives none): the stream analysis
    /// sets it; without one, the earliest stream start, as the analysis would.
    var startTime: Double {
        guard let context else { return 0 }
        if context.pointee.start_time != noTimestamp {
            return Double(context.pointee.start_time) / Double(AV_TIME_BASE)
        }
        return streams.compactMap { TimeBase($0.pointee.time_base).seconds($0.pointee.start_time) }.min() ?? 0
    }

    /// The container's duration in seconds, or nil when unknown (live streams).
    var duration: Double? {
        if !leftToLibavformat, let timed = byteSource as? TimeSeekableByteSource { return timed.duration }
        guard let context, context.pointee.duration != noTimestamp, context.pointee.duration > 0 else { return nil }
        return Double(context.pointee.duration) / Double(AV_TIME_BASE)
    }

    /// An HLS master playlist's variants, when our HLS client plays it.
    var variants: [VariantInfo]? {
        leftToLibavformat ? nil : (byteSource as? HLSSegmentStream)?.variants
    }

    /// Why the I/O layer's last read failed, when it did.
    var lastReadError: MediaError? { io?.lastError }

    func abort() {
        abortFlag.isSet.store(true, ordering: .relaxed)
        byteSource?.cancel()
    }

    func close() {
        if context != nil {
            avformat_close_input(&context)
        }
        io?.close()
        closePipe()
    }

    private func closePipe() {
        if pipeDescriptor >= 0 { Glibc.close(pipeDescriptor) }
        pipeDescriptor = -1
    }
}
