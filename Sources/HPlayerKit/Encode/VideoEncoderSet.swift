import CFFmpeg

/// What each output takes of an encode, as the encoders are chosen.
struct EncodeTaker {
    /// The video encodings it writes; nil: no picture.
    var video: VideoEncodings?
    var audio: Bool
    var globalHeader: Bool

    init(_ output: EncodeOutput) {
        video = output.kinds.contains(.video) ? output.videoEncodings : nil
        audio = output.kinds.contains(.audio)
        globalHeader = output.needsGlobalHeader
    }
}

/// The video encoders an encode runs, opened when the picture's source opens: the main encoding
/// (for `-o` files) and a package's rungs, and where each one's packets go.
struct VideoEncoderSet {
    var encoders: [VideoEncoder] = []
    /// For each encoder, the outputs it writes to and its place among their encodings.
    var routes: [[(output: Int, encoding: Int)]] = []
    /// For each encoder, whether it is a package's rung (its segments' first pictures are IDRs).
    var isRung: [Bool] = []
    /// A line per encoder that runs, and one per encoder asked for that did not open.
    var lines: [String] = []

    /// Configures `track` for the encoders and opens them.
    static func open(job: EncodeJob, takers: [EncodeTaker], info: MediaInfo, track: Track) throws(MediaError) -> VideoEncoderSet {
        var set = VideoEncoderSet()
        guard let format = track.videoFormat, takers.contains(where: { $0.video != nil }) else { return set }
        track.configureVideo(acceptedPixelFormats: [.yuv420p])
        let rate = info.streams.first { $0.index == Int(track.streamIndex) }?.frameRate ?? 0
        let frameRate = rate > 0 ? av_d2q(rate, 1_001_000) : AVRational(num: 25, den: 1)
        var encodings: [(settings: VideoEncodeSettings, taker: VideoEncodings)] = []
        if takers.contains(where: { $0.video == .main }) {
            var settings = job.video
            if settings.size == nil {
                settings.size = PictureSize(width: format.width, height: format.height)
                settings.sampleAspectRatio = format.sampleAspectRatio
            }
            settings.rotation = format.rotation
            encodings.append((settings, .main))
        }
        if let package = job.package, takers.contains(where: { $0.video == .rungs }) {
            let framesPerSegment = Int((package.segmentDuration * Double(frameRate.num) / Double(max(frameRate.den, 1))).rounded(.up))
            for rung in package.ladder ?? Ladder.standard(sourceHeight: format.height) {
                var settings = job.video
                // Square pixels in the source's displayed shape. (Not turned: a rotated source's
                // ladder is sideways; MPEG-TS has no way to say so.)
                let displayWidth = Int((Double(format.width) * format.sampleAspectRatio).rounded())
                settings.size = PictureSize(width: rung.width(sourceWidth: displayWidth, sourceHeight: format.height), height: rung.height)
                settings.bitRate = rung.bitRate
                // Each segment's first picture is made an IDR; the interval only keeps x264 from
                // adding one just before a boundary.
                settings.keyFrameInterval = settings.keyFrameInterval ?? max(framesPerSegment, 1)
                encodings.append((settings, .rungs))
            }
        }
        for (position, (settings, taker)) in encodings.enumerated() {
            let size = settings.size!
            // Its place among the encodings its outputs take: 0 for the main one, the rung's otherwise.
            let encoding = encodings[..<position].filter { $0.taker == taker }.count
            let outputs = takers.indices.filter { takers[$0].video == taker }
            // 4:2:0 pictures have even sides.
            let (encoder, notes) = try VideoEncoder.open(
                hardware: job.hardware, settings: settings, width: Int32(max(size.width & ~1, 2)),
                height: Int32(max(size.height & ~1, 2)), frameRate: frameRate,
                globalHeader: outputs.contains { takers[$0].globalHeader })
            set.routes.append(outputs.map { (output: $0, encoding: encoding) })
            set.encoders.append(encoder)
            set.isRung.append(taker == .rungs)
            set.lines += notes.map { "\($0); encoding with the next" }
            set.lines.append("video: \(encoder.name) \(encoder.context.pointee.width)x\(encoder.context.pointee.height) "
                             + "\(frameRate.num)/\(frameRate.den) fps" + (settings.bitRate.map { " \($0 / 1000) kb/s" } ?? ""))
        }
        return set
    }
}
