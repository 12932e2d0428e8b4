import CFFmpeg
import CHPlayerShim
import Glibc

/// An opened media file or stream: the owner of its AVFormatContext.
///
/// `abort()` makes a blocking open or read return at once (through libavformat's interrupt
/// callback), so a close never waits on the network.
///
/// An HLS variant whose sound is a rendition of its own (EXT-X-MEDIA with a URI) brings that
/// rendition as a second container (InputRenditions.swift): its streams are listed after this
/// one's, and `read` takes packets from both in time order. A stream's index is its place in
/// `streams`.
final class InputContainer: @unchecked Sendable {
    let url: String
    private(set) var context: UnsafeMutablePointer<AVFormatContext>?
    private let abortFlag = InterruptFlag()
    /// A named pipe's descriptor, which libavformat reads as `pipe:FD` and does not close.
    private var pipeDescriptor: Int32 = -1
    /// What libavformat reads through instead of its own protocols, when given.
    private let byteSource: ByteSource?
    /// What of the input the disk cache holds; from any thread.
    var cacheMap: CacheMap? { byteSource?.cacheMap }
    /// Our HLS and DASH client, when it reads the input.
    var segmentStream: SegmentStream? { byteSource as? SegmentStream }
    /// The segment stream left an HLS playlist to libavformat (the opening thread's).
    private var leftToLibavformat = false
    private var io: ByteSourceIO?
    /// The start time and the streams as first opened: a sectioned stream's later sections are
    /// mapped onto them (`SectionStreams`).
    private var firstStart = 0.0
    private var firstStreams: [FirstStream] = []
    private var sections = SectionStreams()
    private var ownSectionCount = 0
    private var sectionFailure: MediaError?
    /// Seconds added to the timestamps of the section open now.
    private var sectionTimeOffset = 0.0
    /// Whether the section open now changed a stream's codec configuration.
    private var sectionChangedConfiguration = false
    /// The pictures variant switches bring that were shown before them (the read thread's).
    private var overlap = SwitchOverlap()
    /// Live MPEG-TS is parsed here, not by libavformat (`StreamParsers` says why).
    private var parsers: StreamParsers?
    /// The renditions played alongside (added on the read thread, under `renditionLock` for
    /// `abort` from another), and how far each input (this one first) has been read.
    var renditions: [InputContainer] = []
    let renditionLock = Locked(())
    var renditionReading = RenditionReading(inputs: 1)
    let network: NetworkOptions
    let isLive: Bool
    /// Live over a connection: how long a read may go without a packet before the stream is taken
    /// as ended. A server may keep the connection busy after its publisher has gone (nginx-rtmp's
    /// pings), so that libavformat's `rw_timeout`, which counts bytes, never fires.
    private let silenceLimit: Double?
    private let opensRenditions: Bool
    /// The demuxer to use, where libavformat is not to guess it (a capture device, lavfi).
    private let format: InputFormat?

    /// - Parameters:
    ///   - byteSource: the bytes to read; nil: the I/O layer's HTTP client for an http(s) URL,
    ///     else libavformat opens `url` itself.
    ///   - opensRenditions: false where no sound is played (a snapshot, --no-audio): an audio
    ///     rendition is then not fetched at all.
    ///   - format: the demuxer to open `url` with (libavformat reads it itself then).
    ///   - isLive: live mode: libavformat keeps nothing of what its stream analysis read
    ///     (`nobuffer`), and a connection libavformat opens (tcp, rtmp, rtsp, srt) fails when
    ///     silent for the network timeout; http(s) goes through the I/O layer's own handling.
    init(url: String, byteSource: ByteSource? = nil, network: NetworkOptions = NetworkOptions(), opensRenditions: Bool = true,
         format: InputFormat? = nil, isLive: Bool = false) {
        self.url = url
        self.isLive = isLive
        self.network = network
        silenceLimit = isLive && LiveInput.endsAfterSilence(url) ? network.timeout : nil
        self.opensRenditions = opensRenditions
        self.format = format
        if let byteSource {
            self.byteSource = byteSource
        } else if format == nil, NetworkOptions.isSegmented(url) {
            self.byteSource = SegmentStream(url: url, options: network)
        } else if format == nil, NetworkOptions.isHTTP(url) {
            self.byteSource = network.httpResource(for: url)
        } else {
            self.byteSource = nil
        }
    }

    deinit { close() }

    /// Opens `url` and reads enough to know its streams: with libavformat's stream analysis when
    /// `fullAnalysis` asks for it or the header alone does not say enough (`StreamAnalysis`).
    func open(fullAnalysis: Bool) throws(MediaError) {
        if let byteSource {
            try byteSource.open(at: 0)
            if let feature = (byteSource as? SegmentStream)?.unsupportedFeature {
                Log.source.info("\(url): \(feature): played by libavformat's own HLS client")
                leftToLibavformat = true
            }
        }
        try openDemuxer(fullAnalysis: fullAnalysis)
        firstStart = startTimeOfContext
        firstStreams = ownStreams.map(FirstStream.init)
        if opensRenditions, let renditionURL = (byteSource as? SegmentStream)?.audioRenditionURL, !leftToLibavformat {
            openRendition(renditionURL, fullAnalysis: fullAnalysis)
        }
    }

    /// Makes the format context and opens it: on the byte source (through a new AVIOContext),
    /// a named pipe's descriptor, or `url` itself.
    /// `isSection`: a sectioned stream's later section, whose streams continue the first ones
    /// (SectionStreams): never analysed, as its packets carry their own times (an fMP4
    /// fragment's decode time) and the first section's analysis told the rest. An analysis
    /// there read on through megabytes of fragments for a picture's pixel format, at every seek.
    private func openDemuxer(fullAnalysis: Bool, isSection: Bool = false) throws(MediaError) {
        guard let allocated = avformat_alloc_context() else {
            throw MediaError(input: url, reason: "out of memory")
        }
        allocated.pointee.interrupt_callback = abortFlag.callback
        var openedURL = url
        if let byteSource, !leftToLibavformat {
            do {
                // A sectioned stream is read front to back, as from a pipe: the fMP4 demuxer then
                // takes each fragment's samples in the order they lie, never seeking back.
                let io = try ByteSourceIO(source: byteSource, isSeekable: !(timed?.isSectioned ?? false))
                self.io = io
                allocated.pointee.pb = io.context
                allocated.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
            } catch {
                avformat_free_context(allocated)
                throw MediaError(input: url, reason: error.reason)
            }
        } else if url == StandardInput.url {
            do { pipeDescriptor = try StandardInput.openForReading() } catch {
                avformat_free_context(allocated)
                throw MediaError(input: url, reason: error.reason)
            }
            openedURL = "pipe:\(pipeDescriptor)"
        } else if let pipe = NamedPipe.path(of: url) {
            do {
                pipeDescriptor = try NamedPipe.openForReading(pipe, input: url) { abortFlag.isSet }
            } catch {
                avformat_free_context(allocated)
                throw error
            }
            openedURL = "pipe:\(pipeDescriptor)"
        }
        var demuxer: UnsafePointer<AVInputFormat>?
        var options: OpaquePointer?
        if let format {
            do { demuxer = try format.demuxer(for: url) } catch {
                avformat_free_context(allocated)
                closePipe()
                io?.close()
                io = nil
                throw error
            }
            for (key, value) in format.options { av_dict_set(&options, key, value, 0) }
        }
        if !leftToLibavformat, let key = (byteSource as? SegmentStream)?.sectionDecryptionKey {
            // Samples in Common Encryption: the mov demuxer decrypts them with the section's key.
            av_dict_set(&options, "decryption_key", ClearKey.hex(key), 0)
        }
        if OriginPolicy.isRemote(url) {
            // What a remote document names (an HLS or DASH demuxer opening its parts, through
            // our I/O layer's bytes or its own), libavformat may open only over the network too.
            av_dict_set(&options, "protocol_whitelist", OriginPolicy.libavformatWhitelist, 0)
        }
        if let transport = network.rtspTransport, url.lowercased().hasPrefix("rtsp") {
            av_dict_set(&options, "rtsp_transport", transport, 0)
        }
        if isLive {
            // As mpv's low-latency profile: what the stream analysis reads is not kept, and it
            // reads half a second (mpv's tenth is too short here for the sound's parameters).
            av_dict_set(&options, "fflags", "+nobuffer", 0)
            av_dict_set(&options, "analyzeduration", "500000", 0)
            if LiveInput.mayStartWithSoundAlone(url) {
                // FLV over RTMP announces no streams, and nginx-rtmp starts a late viewer's
                // picture at the next key frame but its sound at once: half a second could end
                // before any picture came, and the stream would play as sound. The analysis
                // ends once there are both, or after 3 s (a key frame every 2 s is common); with
                // no frame-rate probing, as FLV's timestamps give the rate.
                av_dict_set(&options, "analyzeduration", "3000000", 0)
                av_dict_set(&options, "fpsprobesize", "0", 0)
            }
            let timeout = String(Int64(saturating: network.timeout * 1_000_000))
            if LiveInput.waitsThroughSilence(url) {
                // Datagrams are waited for through a silence; a full receive buffer (playback
                // paused) loses datagrams rather than ending the stream.
                av_dict_set(&options, "overrun_nonfatal", "1", 0)
            } else if url.lowercased().hasPrefix("rtsp") {
                av_dict_set(&options, "timeout", timeout, 0)  // RTSP opens its own sockets
            } else {
                // A connection that stays silent has ended.
                av_dict_set(&options, "rw_timeout", timeout, 0)
            }
        }
        var opened: UnsafeMutablePointer<AVFormatContext>? = allocated
        let openResult = avformat_open_input(&opened, openedURL, demuxer, &options)
        av_dict_free(&options)
        guard openResult >= 0, opened != nil else {
            // avformat_open_input frees the context on failure, and leaves a custom AVIOContext to us.
            closePipe()
            let ioError = io?.lastError
            io?.close()
            io = nil
            throw MediaError(input: url, reason: ioError?.reason ?? FFmpegError(openResult).description)
        }
        context = opened
        let formatName = String(cString: opened!.pointee.iformat.pointee.name)
        if isLive, formatName == "mpegts", segmentStream == nil {
            opened!.pointee.flags |= AVFMT_FLAG_NOPARSE
            parsers = StreamParsers()
        }
        guard !isSection, fullAnalysis || StreamAnalysis.isNeeded(formatName: formatName, streams: ownStreams.map(StreamAnalysis.header)) else {
            return
        }
        let infoResult = avformat_find_stream_info(opened, nil)
        if infoResult < 0 {
            close()
            throw MediaError(input: url, reason: "cannot read stream info: \(FFmpegError(infoResult))")
        }
    }

    /// Every stream: this container's, then its renditions'.
    var streams: [UnsafeMutablePointer<AVStream>] {
        renditions.isEmpty ? ownStreams : ownStreams + renditions.flatMap(\.streams)
    }

    /// This container's own streams, at the index libavformat gives them.
    var ownStreams: [UnsafeMutablePointer<AVStream>] {
        (0..<ownStreamCount).compactMap(ownStream)
    }

    var ownStreamCount: Int { context.map { Int($0.pointee.nb_streams) } ?? 0 }

    func ownStream(_ index: Int) -> UnsafeMutablePointer<AVStream>? {
        guard let context, index >= 0, index < Int(context.pointee.nb_streams) else { return nil }
        return context.pointee.streams[index]
    }

    /// The index of the stream of `kind` to play: stream `number` (from 1) among those of `kind`
    /// when it is there (a warning when it is not), else a rendition's (it is the variant's
    /// sound), else libavformat's best (for audio, the one that goes with video stream
    /// `related`); -1 for none. Cover art is no video.
    func chosenStream(of kind: MediaKind, number: Int?, relatedTo related: Int32 = -1) -> Int32 {
        guard let context else { return -1 }
        let type = kind == .video ? AVMEDIA_TYPE_VIDEO : AVMEDIA_TYPE_AUDIO
        let all = streams
        let ofKind = all.indices.filter { all[$0].pointee.codecpar.pointee.codec_type == type }
        var index: Int32
        if let number, number >= 1, number <= ofKind.count {
            index = Int32(ofKind[number - 1])
        } else {
            if let number {
                Log.source.warning("\(url): no \(kind.rawValue) track \(number) (the file has \(ofKind.count)): playing the default one")
            }
            let fromRendition = ofKind.first { $0 >= ownStreamCount }
            let byLanguage = kind == .audio ? TrackLanguage.choose(among: ofKind.map { MediaProbe.metadata(all[$0].pointee.metadata, "language") }, preferences: network.audioLanguages) : nil
            index = byLanguage.map { Int32(ofKind[$0]) } ?? fromRendition.map(Int32.init) ?? av_find_best_stream(context, type, -1, related, nil, 0)
        }
        if kind == .video, index >= 0, all[Int(index)].pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 {
            index = -1
        }
        return index
    }

    /// The next packet, of this container or a rendition's (InputRenditions.swift): 0,
    /// AVERROR_EOF at the end, or another negative error. Live over a connection,
    /// AVERROR(ETIMEDOUT) once `silenceLimit` has passed without one. The interrupt ends the
    /// read as each layer pleases (AVERROR_EXIT, RTMP's EIO, RTSP's end), and may leave it ended:
    /// a demuxer can give a last packet it held, and the reads after fail at once.
    func read(into packet: UnsafeMutablePointer<AVPacket>) -> Int32 {
        guard let silenceLimit else { return readAny(into: packet) }
        abortFlag.set(at: MonotonicClock.now() + silenceLimit)
        let result = readAny(into: packet)
        abortFlag.clearDeadline()
        guard result < 0, !abortFlag.isRaised, result == hp_averror_exit() || abortFlag.hasDeadlinePassed else { return result }
        return hp_averror(ETIMEDOUT)
    }

    private func readAny(into packet: UnsafeMutablePointer<AVPacket>) -> Int32 {
        renditions.isEmpty ? readOwn(into: packet) : readInTimeOrder(into: packet)
    }

    /// av_read_frame. Where a sectioned stream's section ends, the next is opened and read on.
    func readOwn(into packet: UnsafeMutablePointer<AVPacket>) -> Int32 {
        while true {
            if let parsers, parsers.takeNext(into: packet) { return 0 }
            guard let context else { return hp_averror(EIO) }
            let result = av_read_frame(context, packet)
            if let parsers {
                if result >= 0, let stream = ownStream(Int(packet.pointee.stream_index)), parsers.parse(packet, of: stream) { continue }
                if result == hp_averror_eof() {
                    parsers.flush()
                    if parsers.takeNext(into: packet) { return 0 }
                }
            }
            if result == hp_averror_eof(), let timed, timed.isAtSectionEnd {
                let reopened = openNextSection()
                guard reopened >= 0 else { return reopened }
                continue
            }
            if result >= 0, let segmentStream, !segmentStream.isSectioned, !leftToLibavformat {
                markShownBefore(packet, switches: segmentStream.switchPositions)
            }
            guard result >= 0, ownSectionCount > 0 else { return result }
            if sections.mapToFirstStreams(packet, from: context, firstStreams: firstStreams, offset: sectionTimeOffset) { return result }
            av_packet_unref(packet)
        }
    }

    /// Our HLS client's MPEG-TS stream: a video packet after a variant switch whose picture the
    /// variant before showed is marked to be decoded but not shown (AV_PKT_FLAG_DISCARD).
    private func markShownBefore(_ packet: UnsafeMutablePointer<AVPacket>, switches: [Range<Int64>]) {
        guard let context, packet.pointee.stream_index >= 0, packet.pointee.stream_index < Int32(context.pointee.nb_streams),
              context.pointee.streams[Int(packet.pointee.stream_index)]!.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO else { return }
        let pts = packet.pointee.pts == noTimestamp ? nil : packet.pointee.pts
        if overlap.isAlreadyShown(position: packet.pointee.pos, pts: pts, switches: switches) {
            packet.pointee.flags |= AV_PKT_FLAG_DISCARD
        }
    }

    /// Whether a packet this container read is one `markShownBefore` marked: only our HLS
    /// client's MPEG-TS is marked (the MP4 demuxer sets the flag for edit lists of its own).
    func isShownBefore(_ packet: UnsafeMutablePointer<AVPacket>) -> Bool {
        segmentStream?.isSectioned == false && !leftToLibavformat && packet.pointee.flags & AV_PKT_FLAG_DISCARD != 0
    }

    /// The sectioned stream's next section: a new demuxer on the bytes that follow (which begin
    /// with an initialization section), its streams continuing those first opened.
    private func openNextSection() -> Int32 {
        guard let timed else { return hp_averror(EIO) }
        timed.beginSection()
        let discards = sections.firstStreamDiscards(of: ownStreams, count: firstStreams.count)
        avformat_close_input(&context)
        io?.close()
        io = nil
        do {
            try openDemuxer(fullAnalysis: false, isSection: true)
        } catch {
            if isAborted { return hp_averror_exit() }
            sectionFailure = error
            Log.source.warning("\(error.input): cannot open the next fMP4 section: \(error.reason)")
            return hp_averror(EIO)
        }
        sectionFailure = nil
        sectionTimeOffset = timed.sectionTimeOffset
        sectionChangedConfiguration = sections.continueFirstStreams(ownStreams, firstStreams: &firstStreams, discards: discards)
        ownSectionCount += 1
        return 0
    }

    /// Seeks every stream to the key frame at or before `microseconds` (AV_TIME_BASE units). An
    /// HLS stream goes to the segment holding that time, and libavformat reads on from there.
    func seek(toMicroseconds microseconds: Int64) -> Int32 {
        renditions.isEmpty ? seekOwn(toMicroseconds: microseconds) : seekWithRenditions(toMicroseconds: microseconds)
    }

    func seekOwn(toMicroseconds microseconds: Int64) -> Int32 {
        parsers?.reset()
        guard let timed else {
            guard let context else { return hp_averror(EIO) }
            return avformat_seek_file(context, -1, Int64.min, microseconds, microseconds, 0)
        }
        overlap.reset()
        do throws(MediaError) {
            let position = try timed.prepareSeek(toTime: max(0, Double(microseconds) / Double(AV_TIME_BASE) - firstStart))
            // A section is read front to back: a seek opens a new one (after a failed one too).
            if timed.isSectioned { return openNextSection() }
            guard let context, let pb = context.pointee.pb else { return hp_averror(EIO) }
            avformat_flush(context)
            let result = avio_seek(pb, position, SEEK_SET)
            return result < 0 ? Int32(truncatingIfNeeded: result) : 0
        } catch {
            Log.source.warning("\(url): \(error.reason)")
            return hp_averror(EIO)
        }
    }

    /// Whether a seek goes by timestamps alone, not to a key frame: libavformat's search by
    /// timestamp in a format with no index of its own (MPEG-TS, MPEG-PS), which lands on any
    /// packet, so that the next key frame may come past the target, or not at all.
    var seeksByTimestampAlone: Bool {
        guard renditions.isEmpty, timed == nil, !isRawElementaryStream, let format = context?.pointee.iformat else { return false }
        return format.pointee.read_seek == nil && format.pointee.read_seek2 == nil
    }

    /// FFmpeg's raw elementary-stream video demuxers (rawdec.h): their packets carry no
    /// timestamps, though only some flag AVFMT_NOTIMESTAMPS.
    private static let rawVideoDemuxers: Set<String> = ["h264", "hevc", "vvc", "h261", "h263", "m4v", "mpegvideo", "cavsvideo",
                                                        "avs2", "avs3", "dirac", "mjpeg", "mjpeg_2000", "ingenient"]

    /// Whether the input is a raw elementary video stream, which has no timestamps.
    var isRawElementaryStream: Bool {
        guard let format = context?.pointee.iformat else { return false }
        return format.pointee.flags & AVFMT_NOTIMESTAMPS != 0 || Self.rawVideoDemuxers.contains(String(cString: format.pointee.name))
    }

    /// Back to the first byte (a raw stream, which has no timestamps to seek by); an input that
    /// cannot seek (a pipe, standard input) refuses.
    func seekToFirstByte() -> Int32 {
        guard let context, let pb = context.pointee.pb else { return hp_averror(EIO) }
        guard pb.pointee.seekable & AVIO_SEEKABLE_NORMAL != 0 else { return hp_averror(ESPIPE) }
        parsers?.reset()
        let result = avio_seek(pb, 0, SEEK_SET)
        guard result >= 0 else { return Int32(truncatingIfNeeded: result) }
        avformat_flush(context)
        return 0
    }

    /// The container's first timestamp in seconds (0 when it gives none), as first opened; with
    /// renditions, the earliest of theirs and its own.
    var startTime: Double { renditions.reduce(firstStart) { min($0, $1.startTime) } }

    /// Live, with a clock to go by: the time playback starts at, into the first segment read;
    /// what comes before it is decoded and dropped. Nil: from the first packet.
    var liveStartTime: Double? {
        guard !leftToLibavformat, let skip = segmentStream?.liveStartSkip else { return nil }
        return firstStart + skip
    }

    /// The stream analysis sets it; without one, the earliest stream start, as the analysis would.
    private var startTimeOfContext: Double {
        guard let context else { return 0 }
        if context.pointee.start_time != noTimestamp {
            return Double(context.pointee.start_time) / Double(AV_TIME_BASE)
        }
        return ownStreams.compactMap { TimeBase($0.pointee.time_base).seconds($0.pointee.start_time) }.min() ?? 0
    }

    /// The container's duration in seconds, or nil when unknown (live streams).
    var duration: Double? {
        if let timed { return timed.duration }
        guard let context, context.pointee.duration != noTimestamp, context.pointee.duration > 0 else { return nil }
        return Double(context.pointee.duration) / Double(AV_TIME_BASE)
    }

    /// Whether the streams' durations are the media's: not where the demuxer reads a part of it
    /// at a time (an HLS stream's segments, an fMP4 fragment's).
    var knowsStreamEnds: Bool { timed == nil }

    /// An HLS master playlist's variants, when our HLS client plays it.
    var variants: [VariantInfo]? {
        leftToLibavformat ? nil : (byteSource as? SegmentStream)?.variants
    }

    /// Why the I/O layer's last read failed, when it did.
    var lastReadError: MediaError? {
        sectionFailure ?? io?.lastError ?? renditions.lazy.compactMap(\.lastReadError).first
    }

    /// How many sections have been opened after the first, here and in the renditions: 0 for
    /// media opened once (the read thread's).
    var sectionCount: Int { renditions.reduce(ownSectionCount) { $0 + $1.sectionCount } }

    /// Whether the last section opened, here or in a rendition, changed a stream's codec configuration.
    var hasNewConfiguration: Bool { sectionChangedConfiguration || renditions.contains { $0.hasNewConfiguration } }

    /// The stream that continues the first-opened stream `index` in the section open now (the
    /// same stream when the container was opened once).
    func stream(continuing index: Int32) -> UnsafeMutablePointer<AVStream>? {
        var index = Int(index)
        if index < firstStreams.count { return sections.stream(continuing: Int32(index), among: ownStreams) }
        index -= firstStreams.count
        for rendition in renditions {
            if index < rendition.streams.count { return rendition.stream(continuing: Int32(index)) }
            index -= rendition.streams.count
        }
        return nil
    }

    var isAborted: Bool { abortFlag.isRaised }

    /// The byte source when it seeks by time, and libavformat reads through it.
    private var timed: TimeSeekableByteSource? {
        leftToLibavformat ? nil : byteSource as? TimeSeekableByteSource
    }

    func abort() {
        abortFlag.set()
        byteSource?.cancel()
        renditionLock.withLock { _ in
            for rendition in renditions { rendition.abort() }
        }
    }

    func close() {
        parsers = nil
        if context != nil {
            avformat_close_input(&context)
        }
        io?.close()
        byteSource?.close()
        closePipe()
        for rendition in renditions { rendition.close() }
    }

    private func closePipe() {
        if pipeDescriptor >= 0 { Glibc.close(pipeDescriptor) }
        pipeDescriptor = -1
    }
}
