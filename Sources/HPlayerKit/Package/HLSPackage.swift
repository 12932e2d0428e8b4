import CFFmpeg
import Glibc

/// What `--hls DIR` makes.
package struct PackageSettings: Sendable, Equatable {
    package var directory: String
    /// The renditions, from the top; nil: `Ladder.standard` for the source's height.
    package var ladder: [LadderRung]?
    package var segmentType = SegmentType.mpegts
    /// Seconds per segment: a key frame starts each (the rungs' key-frame interval).
    package var segmentDuration = 4.0
    /// The sound once, as its own rendition (EXT-X-MEDIA), rather than in every variant.
    package var separateAudio = false
    /// 16 bytes: every segment AES-128 encrypted, the key at `keyURI`.
    package var key: [UInt8]?
    package var keyURI: String?
    /// Live: the media playlists are a window of this many segments, rewritten as each segment
    /// is done, and the segments that left it are deleted (one more is kept, for a player that
    /// read the playlist before). nil: a VOD package, its playlists written at the end.
    package var liveWindow: Int?
    /// `--dash`: a manifest.mpd beside master.m3u8, naming the same fMP4 segments.
    package var writesManifest = false
    /// `--cenc`: the fMP4 samples in Common Encryption (cenc) with this key, which the MPD's
    /// ContentProtection and the playlists' EXT-X-KEY name by its key ID.
    package var sampleKey: ClearKey?
    /// `--cenc-license`: the ClearKey license server the manifests name.
    package var licenseURL: String?

    package init(directory: String) {
        self.directory = directory
    }
}

/// An HLS package written in one pass: a SegmentWriter per variant (each rung's picture, with
/// the sound unless it is apart) and one for a separate audio rendition, then a media playlist
/// each and the master playlist, whose figures come from the segments really written.
final class HLSPackage: EncodeOutput {
    let settings: PackageSettings
    private var variants: [SegmentWriter] = []
    private var audioRendition: SegmentWriter?
    /// Each rung's picture size and frame rate, kept at the start: the encoders' contexts are the
    /// video thread's once encoding runs, and a live master playlist is written from others.
    private var shapes: [(width: Int, height: Int, frameRate: Double)] = []
    /// A live playlist's target duration: it never goes down (RFC 8216 §6.2.1: it must not change).
    private var liveTargetDuration = 0
    private var audioCodec: String?
    /// avc1.PPCCLL of each rung, from the first SPS it puts out.
    private var videoCodecs: [String?] = []
    private var finishedBytes = 0
    /// When the package began, seconds since 1970: a live MPD's availability start.
    private var startedAt = 0.0
    /// `finish` is writing the last playlists: a live package has ended.
    private var isFinishing = false

    init(settings: PackageSettings) throws(MediaError) {
        self.settings = settings
        try makeDirectory(settings.directory)
    }

    var path: String { settings.directory }
    let kinds: Set<MediaKind> = [.video, .audio]
    var needsGlobalHeader: Bool { settings.segmentType == .fmp4 }
    var videoEncodings: VideoEncodings { .rungs }

    var bytesWritten: Int {
        finishedBytes + writers.reduce(0) { $0 + $1.bytesWritten }
    }

    func start(video: [VideoEncoder], audio: AudioEncoder?) throws(MediaError) {
        guard !video.isEmpty else { throw MediaError(input: path, reason: "the source has no video to make an HLS ladder of") }
        startedAt = WallClock.now()
        shapes = video.map { encoder in
            (Int(encoder.context.pointee.width), Int(encoder.context.pointee.height),
             Double(encoder.frameRate.num) / Double(max(encoder.frameRate.den, 1)))
        }
        liveTargetDuration = Int(settings.segmentDuration.rounded(.up))
        videoCodecs = video.map { encoder in
            guard let extradata = encoder.context.pointee.extradata, encoder.context.pointee.extradata_size > 0 else { return nil }
            return Self.avcCodec(in: UnsafeBufferPointer(start: extradata, count: Int(encoder.context.pointee.extradata_size)))
        }
        audioCodec = audio.map { CodecString.aac(objectType: $0.objectType) }
        let segmentAudio = settings.separateAudio ? nil : audio
        for encoder in video {
            variants.append(try SegmentWriter(directory: path, name: "\(encoder.context.pointee.height)p", type: settings.segmentType,
                                              segmentDuration: settings.segmentDuration, key: settings.key, cenc: settings.sampleKey,
                                              video: encoder, audio: segmentAudio))
        }
        if settings.separateAudio, let audio {
            audioRendition = try SegmentWriter(directory: path, name: "audio", type: settings.segmentType,
                                               segmentDuration: settings.segmentDuration, key: settings.key, cenc: settings.sampleKey,
                                               video: nil, audio: audio)
        }
        if let window = settings.liveWindow {
            for writer in writers {
                writer.onSegment = { [unowned self, unowned writer] _ throws(MediaError) in
                    try liveSegmentWritten(by: writer)
                }
                writer.willPublishSegment = { [unowned self, unowned writer] published in
                    // The segment that now falls two places out of the window (one out since the
                    // last playlist update, which no longer lists it) goes before the new one lands.
                    let leaving = published - window - 1
                    if leaving >= 0 { unlink("\(path)/\(writer.segments[leaving].name)") }
                }
            }
        }
    }

    private var writers: [SegmentWriter] { variants + [audioRendition].compactMap { $0 } }

    /// A live package's segment is in place: its playlist's window moves on, and the master's
    /// figures are brought up to date.
    private func liveSegmentWritten(by writer: SegmentWriter) throws(MediaError) {
        try writeMediaPlaylist(of: writer, segments: writer.segments, isComplete: false)
        // Once every stream has a segment, so that each variant's figures are measured ones.
        if writers.allSatisfy({ !$0.segments.isEmpty }) { try writeMaster() }
    }

    func write(_ packet: UnsafeMutablePointer<AVPacket>, kind: MediaKind, encoding: Int) throws(MediaError) {
        switch kind {
        case .video:
            guard encoding < variants.count else { return }
            if videoCodecs[encoding] == nil, let data = packet.pointee.data {
                videoCodecs[encoding] = Self.avcCodec(in: UnsafeBufferPointer(start: data, count: Int(packet.pointee.size)))
            }
            try variants[encoding].write(packet, kind: .video)
        case .audio:
            if let audioRendition {
                try audioRendition.write(packet, kind: .audio)
            } else {
                for variant in variants { try variant.write(packet, kind: .audio) }
            }
        }
    }

    func end(_ kind: MediaKind) throws(MediaError) {
        for writer in variants + [audioRendition].compactMap({ $0 }) { try writer.end(kind) }
    }

    func finish() throws(MediaError) {
        var bytes = 0
        for writer in writers {
            let segments = try writer.finish()
            bytes += segments.reduce(0) { $0 + $1.bytes }
            try writeMediaPlaylist(of: writer, segments: segments, isComplete: true)
        }
        isFinishing = true
        try writeMaster()
        finishedBytes = bytes
        variants = []
        audioRendition = nil
    }

    /// A VOD playlist lists every segment; a live one its window.
    private func writeMediaPlaylist(of writer: SegmentWriter, segments: [WrittenSegment], isComplete: Bool) throws(MediaError) {
        var options = PackagePlaylists.MediaOptions()
        options.initSection = writer.initSectionName
        if settings.key != nil { options.keyURI = settings.keyURI ?? "key.bin" }
        if let sampleKey = settings.sampleKey {
            options.sampleKeyURI = settings.licenseURL ?? "data:text/plain;charset=UTF-8,\(ClearKey.uuid(sampleKey.keyID))"
        }
        options.isComplete = isComplete
        options.isVOD = settings.liveWindow == nil
        var listed = segments[...]
        if let window = settings.liveWindow {
            listed = segments.suffix(window)
            options.mediaSequence = segments.count - listed.count
            if let last = segments.last { liveTargetDuration = max(liveTargetDuration, Int(last.duration.rounded())) }
            options.targetDuration = liveTargetDuration
        }
        try writePlaylist(PackagePlaylists.media(Array(listed), options: options), name: "\(writer.name).m3u8")
    }

    /// The master playlist, its figures from every segment written so far.
    private func writeMaster() throws(MediaError) {
        let written = variants.enumerated().map { index, writer in
            WrittenVariant(
                playlist: "\(writer.name).m3u8", segments: writer.segments, width: shapes[index].width, height: shapes[index].height,
                frameRate: shapes[index].frameRate,
                codecs: [videoCodecs[index]].compactMap { $0 } + (audioRendition == nil ? [audioCodec].compactMap { $0 } : []),
                initSection: writer.initSectionName, name: writer.name)
        }
        let audio = audioRendition.map { writer in
            WrittenVariant(playlist: "\(writer.name).m3u8", segments: writer.segments, width: 0, height: 0, frameRate: 0,
                           codecs: [audioCodec].compactMap { $0 }, initSection: writer.initSectionName, name: writer.name)
        }
        try writePlaylist(PackagePlaylists.master(written, audio: audio, usesInitSection: settings.segmentType == .fmp4), name: "master.m3u8")
        guard settings.writesManifest else { return }
        var options = PackageManifest.Options()
        options.isComplete = settings.liveWindow == nil || isFinishing
        options.window = settings.liveWindow
        options.availabilityStart = startedAt
        options.segmentDuration = settings.segmentDuration
        options.protection = settings.sampleKey.map { ($0.keyID, settings.licenseURL) }
        try writePlaylist(PackageManifest.mpd(video: written, audio: audio, options: options), name: "manifest.mpd")
    }

    /// Written under a temporary name and renamed, so a reader sees the old playlist or the new.
    private func writePlaylist(_ text: String, name: String) throws(MediaError) {
        let file = try SegmentFile(path: "\(path)/\(name)", key: nil, sequenceNumber: 0)
        Array(text.utf8).withUnsafeBytes { file.write($0) }
        try file.close()
    }

    private static func avcCodec(in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard let sps = AnnexB.nalUnits(in: bytes).first(where: { $0.type == AnnexB.H264Type.sps }) else { return nil }
        return CodecString.avc(sps: ArraySlice(bytes[sps.range]))
    }
}
