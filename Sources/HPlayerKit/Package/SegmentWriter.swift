import CFFmpeg
import CHPlayerShim
import Glibc

/// The segment format of a package (`--hls-segment-type`).
package enum SegmentType: String, Sendable, CaseIterable {
    case mpegts
    case fmp4
}

/// Writes one media playlist's stream (a variant's picture and sound, or an audio rendition) as
/// segments: one muxer for the whole stream, whose bytes go to a new file at each cut, so
/// timestamps and continuity run on across segments. A cut comes at the first key frame at or
/// after each multiple of the segment duration (the sound alone is cut at a packet); every
/// variant's encoder puts key frames on the same pictures, so variants cut alike.
final class SegmentWriter {
    let name: String
    private let directory: String
    private let type: SegmentType
    private let segmentDuration: Double
    private let key: [UInt8]?
    /// CENC: the fMP4 segments' samples encrypted (`CENCFragmentEncryptor`).
    private var sampleEncryptor: CENCFragmentEncryptor?
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private let sink = Sink()
    private var streams: [MediaKind: (index: Int32, encoderTimeBase: AVRational)] = [:]
    /// The kind whose packets decide the cuts: the picture, else the sound.
    private let cutKind: MediaKind
    private var interleaver: PacketInterleaver
    private(set) var segments: [WrittenSegment] = []
    /// Bytes in the segments finished and the one being written.
    var bytesWritten: Int { segments.reduce(0) { $0 + $1.bytes } + (sink.file?.size ?? 0) }
    /// Where the segment being written starts (its first packet of `cutKind`), and where that
    /// stream has got to (seconds).
    private var segmentStart: Double?
    private var end = 0.0
    private var nextCut: Double
    private let mediaSequenceStart: Int
    let initSectionName: String?
    /// Told of each segment once it is whole and in place (a live package's playlist update).
    var onSegment: ((WrittenSegment) throws(MediaError) -> Void)?
    /// Told just before a segment is renamed into place, with the number of segments before it
    /// (a live package deletes the one that leaves then, so the folder never holds more than the
    /// window and one).
    var willPublishSegment: ((Int) -> Void)?

    /// What the muxer's AVIOContext writes into: the segment file of the moment.
    private final class Sink {
        var file: SegmentFile?
        var headerBytes: [UInt8] = []
        var capturesHeader = false
    }

    /// - Parameters:
    ///   - name: the stream's name; its segments are NAME_N.ts (or .m4s, after NAME_init.mp4).
    ///   - key: 16 bytes: the segments are AES-128 encrypted.
    ///   - cenc: fMP4 alone: the samples are encrypted with this key (Common Encryption, `cenc`).
    init(directory: String, name: String, type: SegmentType, segmentDuration: Double, key: [UInt8]?, cenc: ClearKey? = nil,
         video: VideoEncoder?, audio: AudioEncoder?, mediaSequenceStart: Int = 0) throws(MediaError) {
        self.directory = directory
        self.name = name
        self.type = type
        self.segmentDuration = segmentDuration
        self.key = key
        self.mediaSequenceStart = mediaSequenceStart
        cutKind = video != nil ? .video : .audio
        nextCut = segmentDuration
        initSectionName = type == .fmp4 ? "\(name)_init.mp4" : nil
        interleaver = PacketInterleaver(kinds: (video != nil ? [.video] : []) + (audio != nil ? [.audio] : []))
        let playlistPath = "\(directory)/\(name).m3u8"
        var allocated: UnsafeMutablePointer<AVFormatContext>?
        let made = avformat_alloc_output_context2(&allocated, nil, type == .mpegts ? "mpegts" : "mp4", nil)
        guard made >= 0, let allocated else { throw MediaError(input: playlistPath, reason: "no muxer: \(FFmpegError(made))") }
        context = allocated
        let bufferSize = 1 << 16
        guard let buffer = av_malloc(bufferSize) else { throw MediaError(input: playlistPath, reason: "out of memory") }
        let opaque = Unmanaged.passUnretained(sink).toOpaque()
        allocated.pointee.pb = avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), Int32(bufferSize), 1, opaque, nil, { opaque, bytes, count in
            let sink = Unmanaged<Sink>.fromOpaque(opaque!).takeUnretainedValue()
            let written = UnsafeRawBufferPointer(start: bytes, count: Int(max(count, 0)))
            if sink.capturesHeader {
                sink.headerBytes.append(contentsOf: written)
            } else {
                sink.file?.write(written)
            }
            return count
        }, nil)
        guard allocated.pointee.pb != nil else {
            av_free(buffer)
            throw MediaError(input: playlistPath, reason: "out of memory")
        }
        allocated.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        for (kind, encoder) in [(MediaKind.video, video?.context), (.audio, audio?.context)] {
            guard let encoder else { continue }
            guard let stream = avformat_new_stream(allocated, nil) else { throw MediaError(input: playlistPath, reason: "out of memory") }
            let copied = avcodec_parameters_from_context(stream.pointee.codecpar, encoder)
            guard copied >= 0 else { throw MediaError(input: playlistPath, reason: "cannot copy the codec parameters: \(FFmpegError(copied))") }
            stream.pointee.time_base = encoder.pointee.time_base
            streams[kind] = (stream.pointee.index, encoder.pointee.time_base)
        }
        var options: OpaquePointer?
        if type == .fmp4 {
            // A fragment only when asked (at each cut), the moov up front with no samples, and no
            // index at the end: an init section and self-contained media segments.
            av_dict_set(&options, "movflags", "frag_custom+empty_moov+default_base_moof+skip_trailer", 0)
        }
        sink.capturesHeader = type == .fmp4
        let started = avformat_write_header(allocated, &options)
        av_dict_free(&options)
        guard started >= 0 else { throw MediaError(input: playlistPath, reason: "cannot start the stream: \(FFmpegError(started))") }
        if let initSectionName {
            avio_flush(allocated.pointee.pb)
            sink.capturesHeader = false
            let path = "\(directory)/\(initSectionName)"
            var header = sink.headerBytes
            if let cenc {
                do {
                    let (protected, tracks) = try CENCInitSection.protect(header, keyID: cenc.keyID)
                    header = protected
                    sampleEncryptor = try CENCFragmentEncryptor(key: cenc.key, tracks: tracks)
                } catch {
                    throw MediaError(input: path, reason: error.reason)
                }
            }
            let file = try SegmentFile(path: path, key: nil, sequenceNumber: 0)
            header.withUnsafeBytes { file.write($0) }
            try file.close()
        }
    }

    deinit {
        interleaver.release()
        guard let context else { return }
        if let io = context.pointee.pb {
            // The buffer may have been replaced by libavformat: free the one the context holds now.
            av_freep(&io.pointee.buffer)
            avio_context_free(&context.pointee.pb)
        }
        avformat_free_context(context)
    }

    /// One packet of `kind` (its times in the encoder's time base); the packet stays the caller's.
    func write(_ packet: UnsafeMutablePointer<AVPacket>, kind: MediaKind) throws(MediaError) {
        guard let timeBase = streams[kind]?.encoderTimeBase else { return }
        interleaver.push(packet, kind: kind, timeBase: timeBase)
        while let (next, nextKind) = interleaver.pop() {
            defer { interleaver.recycle(next) }
            try mux(next, kind: nextKind)
        }
    }

    /// `kind` has no more packets: the others no longer wait for it.
    func end(_ kind: MediaKind) throws(MediaError) {
        interleaver.end(kind)
        while let (next, nextKind) = interleaver.pop() {
            defer { interleaver.recycle(next) }
            try mux(next, kind: nextKind)
        }
    }

    /// Writes what is left and ends the last segment; the segments written.
    func finish() throws(MediaError) -> [WrittenSegment] {
        for kind in [MediaKind.video, .audio] { try end(kind) }
        guard let context else { return segments }
        if sink.file != nil {
            let flushed = av_write_frame(context, nil)
            let trailer = av_write_trailer(context)
            avio_flush(context.pointee.pb)
            if flushed < 0 || trailer < 0 {
                throw MediaError(input: sink.file!.path, reason: "cannot finish: \(FFmpegError(min(flushed, trailer)))")
            }
            try closeSegment(endingAt: end)
        }
        return segments
    }

    private func mux(_ packet: UnsafeMutablePointer<AVPacket>, kind: MediaKind) throws(MediaError) {
        guard let context, let stream = streams[kind] else { return }
        let timeBase = stream.encoderTimeBase
        let pts = Double(packet.pointee.pts) * timeBase.seconds
        // Half a packet early still counts: a frame's time rounds to the encoder's ticks, and
        // sound comes in blocks that straddle the boundary.
        let tolerance = Double(max(packet.pointee.duration, 1)) * timeBase.seconds / 2
        // Sound before the first picture goes into the first segment, which the picture times.
        if sink.file == nil { try openSegment() }
        if kind == cutKind {
            let isCutPoint = kind == .audio || packet.pointee.flags & AV_PKT_FLAG_KEY != 0
            if segmentStart == nil {
                segmentStart = pts
                while nextCut <= pts + tolerance { nextCut += segmentDuration }
            } else if isCutPoint, pts + tolerance >= nextCut {
                let flushed = av_write_frame(context, nil)
                avio_flush(context.pointee.pb)
                guard flushed >= 0 else { throw MediaError(input: sink.file!.path, reason: "cannot write: \(FFmpegError(flushed))") }
                try closeSegment(endingAt: pts)
                try openSegment()
                segmentStart = pts
                // The boundary this cut answers, and any a long segment passed over.
                while nextCut <= pts + tolerance { nextCut += segmentDuration }
            }
            end = max(end, pts + Double(packet.pointee.duration) * timeBase.seconds)
        }
        packet.pointee.stream_index = stream.index
        av_packet_rescale_ts(packet, timeBase, context.pointee.streams[Int(stream.index)]!.pointee.time_base)
        let written = av_write_frame(context, packet)
        guard written >= 0 else { throw MediaError(input: sink.file?.path ?? name, reason: "cannot write: \(FFmpegError(written))") }
    }

    private func openSegment() throws(MediaError) {
        let sequence = mediaSequenceStart + segments.count
        let file = "\(name)_\(sequence).\(type == .mpegts ? "ts" : "m4s")"
        let path = "\(directory)/\(file)"
        sink.file = try SegmentFile(path: path, key: key, sequenceNumber: sequence, sampleEncryptor: sampleEncryptor)
        segmentStart = nil
        if type == .mpegts, let options = context?.pointee.priv_data {
            // Each segment starts with a PAT and a PMT, so it decodes on its own.
            av_opt_set(options, "mpegts_flags", "+resend_headers", 0)
        }
    }

    private func closeSegment(endingAt segmentEnd: Double) throws(MediaError) {
        guard let file = sink.file else { return }
        let start = segmentStart ?? segmentEnd
        sink.file = nil
        willPublishSegment?(segments.count)
        try file.close()
        let fileName = String(file.path.split(separator: "/").last!)
        let segment = WrittenSegment(name: fileName, duration: max(segmentEnd - start, 0), bytes: file.size)
        segments.append(segment)
        try onSegment?(segment)
    }
}
