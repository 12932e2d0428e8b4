import CFFmpeg

/// The body of a track's decode thread: pops packets, decodes them, gives each frame its pts,
/// drops what an exact seek skips, converts, and queues the frames.
///
/// A packet of a newer serial means a seek happened: the decoder is flushed (unless nothing has
/// been sent to it yet), and everything keyed to the old position is forgotten.
final class DecodeLoop: @unchecked Sendable {
    private unowned let track: Track
    private var serial = -1
    private var sentSinceFlush = false
    private var repair = TimestampRepair()
    private var segments = TimelineSegments()
    private var dropBefore: DropTarget?
    /// Exact seek past the last frame: the last frame dropped, shown if nothing later comes.
    private var lastDropped: Frame?
    private var queuedThisSerial = false
    /// Drained at an end marker: more packets of the same serial (a stream thought ended was
    /// not) need the decoder flushed first.
    private var isDrained = false
    /// Where the last queued frame ends (timeline and media seconds): the resampler's tail goes there.
    private var lastQueuedEnd = 0.0
    private var lastQueuedMediaEnd = 0.0
    private var stopped = false
    private var warnings = DecodeWarnings()
    /// A raw stream's rate, chosen at its first picture: every picture lasts one interval of it.
    private var rawRate: RawStreamRate?
    /// The serial's first video packet was not a key frame (a stream joined mid-GOP): pictures
    /// wait for the first key frame, as those before it are built on references never received.
    private var awaitsKeyFrame = false
    private var isFirstPacketOfSerial = true
    private var picturesBeforeKeyFrame = 0
    /// The pts of the first key-flagged packet sent while waiting: libavformat flags H.264
    /// recovery points so too, whose pictures the decoder does not mark key (open GOPs, intra
    /// refresh), so the wait also ends at the picture of that packet.
    private var awaitedKeyPts: Int64?
    /// Whether the serial is the first (the stream as joined): only there are the pictures
    /// before a key frame damage to count; after a seek they are where the seek landed.
    private var isFirstSerial = true
    /// Pictures dropped waiting for a key frame before those that come are shown anyway (a
    /// stream that flags none).
    static let keyFrameWaitLimit = 300

    init(track: Track) {
        self.track = track
    }

    func run() {
        while !stopped, let packet = track.packets.pop(blocking: true) {
            track.listener?.trackDidChangeQueues(track)
            if track.isStale(packet) {
                track.recycle(packet)
                continue
            }
            if packet.serial != serial { begin(serial: packet.serial) }
            switch packet.kind {
            case .data: decode(packet)
            case .endOfStream: drain()
            }
            track.recycle(packet)
        }
        discardLastDropped()
    }

    private func begin(serial newSerial: Int) {
        if sentSinceFlush {
            track.decoder.flush()
            sentSinceFlush = false
        }
        track.resampler?.reset()
        isFirstSerial = serial == -1
        serial = newSerial
        repair.reset()
        segments.reset()
        discardLastDropped()
        dropBefore = track.dropTarget(for: newSerial)
        queuedThisSerial = false
        isFirstPacketOfSerial = true
        awaitsKeyFrame = false
        awaitedKeyPts = nil
        isDrained = false
        track.resetFrameCounts()
        track.setCodecState(.decoding)
    }

    private func decode(_ packet: Packet) {
        if isDrained {
            track.decoder.flush()
            isDrained = false
            track.setCodecState(.decoding)
        }
        let avPacket = packet.avPacket
        let offset = packet.segment.offset
        if offset != 0 {
            if avPacket.pointee.pts != noTimestamp { avPacket.pointee.pts += offset }
            if avPacket.pointee.dts != noTimestamp { avPacket.pointee.dts += offset }
        }
        segments.noteReading(packet.segment)
        if isFirstPacketOfSerial {
            isFirstPacketOfSerial = false
            awaitsKeyFrame = track.kind == .video && avPacket.pointee.flags & AV_PKT_FLAG_KEY == 0
            picturesBeforeKeyFrame = 0
        } else if awaitsKeyFrame, awaitedKeyPts == nil, avPacket.pointee.flags & AV_PKT_FLAG_KEY != 0, avPacket.pointee.pts != noTimestamp {
            awaitedKeyPts = avPacket.pointee.pts
        }
        if track.kind == .video {
            let skips = isBeforeDropTarget(avPacket)
            if track.decoder.skipsNonReferenceFrames != skips { track.decoder.skipsNonReferenceFrames = skips }
        }
        sentSinceFlush = true
        while !stopped {
            switch track.decoder.send(avPacket) {
            case .ok, .endOfStream:
                receiveFrames()
                return
            case .needsIO:
                receiveFrames()
            case .failed(let error):
                track.noteDecodeProblem("\(error)")
                warnings.note("\(track.kind) packet skipped: \(error)")
                receiveFrames()
                return
            }
        }
    }

    /// Whether a video packet lies a frame or more before an exact seek's target, so that if no
    /// other frame refers to it, it need not be decoded at all (mpv's hr-seek-framedrop): an exact
    /// seek then decodes from its key frame about half the frames. Not for a target at the
    /// stream's end, or a step back, which show the last frame before the target, whatever kind.
    private func isBeforeDropTarget(_ packet: UnsafeMutablePointer<AVPacket>) -> Bool {
        let margin = track.nominalFrameDuration
        guard let target = dropBefore, !target.keepsFrameBefore, let end = track.declaredEnd, target.pts < end - margin,
              let pts = track.timeBase.seconds(packet.pointee.pts) else { return false }
        return pts < target.pts - margin
    }

    private func drain() {
        track.setCodecState(.flushing)
        sentSinceFlush = true  // draining leaves the decoder at its end: the next serial flushes it
        if track.decoder.send(nil) != .ok {
            warnings.note("\(track.kind) decoder could not drain")
        }
        receiveFrames()
        drainResampler()
        if !queuedThisSerial, let last = lastDropped {
            lastDropped = nil
            dropBefore = nil
            queue(last)
        }
        discardLastDropped()
        isDrained = true
        track.setCodecState(.finished, finishing: serial)
        track.listener?.trackDidChangeQueues(track)
    }

    private func receiveFrames() {
        while !stopped {
            let frame = track.framePool.acquire()
            switch track.decoder.receive(into: frame.avFrame) {
            case .ok:
                handleDecoded(frame)
            case .needsIO, .endOfStream:
                track.recycle(frame)
                return
            case .failed(let error):
                track.recycle(frame)
                track.noteDecodeProblem("\(error)")
                warnings.note("\(track.kind) frame lost: \(error)")
                return
            }
        }
    }

    private func handleDecoded(_ frame: Frame) {
        track.noteDecodedFrame()
        let decoded = frame.avFrame.pointee
        if awaitsKeyFrame, isBeforeFirstKeyFrame(decoded) {
            if isFirstSerial { track.noteDamagedFrame() }
            track.recycle(frame)
            return
        }
        if decoded.decode_error_flags != 0 || decoded.flags & AV_FRAME_FLAG_CORRUPT != 0 { track.noteDamagedFrame() }
        stampTimes(frame)
        switch track.kind {
        case .video:
            // Before an exact seek's dropping: the pictures skipped build the caption screen too.
            track.captions?.take(frame)
            handleVideo(frame)
        case .audio: handleAudio(frame)
        }
    }

    private func stampTimes(_ frame: Frame) {
        let timeBase = track.timeBase
        let (ticks, durationSeconds) = repair.stamp(frame.avFrame.pointee, kind: track.kind, timeBase: timeBase,
                                                    nominalFrameDuration: track.nominalFrameDuration, startTicks: track.startTicks,
                                                    fixedFrameDuration: rawFrameDuration())
        let segment = segments.segment(containing: ticks)
        frame.pts = timeBase.seconds(ticks) ?? 0
        frame.mediaPts = timeBase.seconds(ticks - segment.loopOffset) ?? 0
        frame.duration = durationSeconds
        frame.serial = serial
        frame.loopPass = segment.loopPass
    }

    /// Whether a picture comes before the first key frame of a stream joined mid-GOP (it is then
    /// not shown); the wait ends at the key frame, or after `keyFrameWaitLimit` pictures.
    private func isBeforeFirstKeyFrame(_ picture: AVFrame) -> Bool {
        let isKeyPacketsPicture = awaitedKeyPts.map { picture.best_effort_timestamp != noTimestamp && picture.best_effort_timestamp >= $0 } ?? false
        guard picture.key_frame == 0, picture.pict_type != AV_PICTURE_TYPE_I, !isKeyPacketsPicture else {
            awaitsKeyFrame = false
            return false
        }
        picturesBeforeKeyFrame += 1
        if picturesBeforeKeyFrame > Self.keyFrameWaitLimit {
            awaitsKeyFrame = false
            warnings.note("no key frame in the first \(Self.keyFrameWaitLimit) pictures: showing them as they decode")
            return false
        }
        return true
    }

    /// For a stream without timestamps, how long each picture lasts; chosen once, at the first
    /// picture, when the decoder has read the parameter sets (said in one line).
    private func rawFrameDuration() -> Double? {
        guard let stream = track.rawPacing else { return nil }
        if rawRate == nil {
            let rate = RawStreamRate.choose(override: stream.frameRateOverride, bitstream: track.decoder.frameRate)
            rawRate = rate
            Log.track.warning("\(stream.input): \(rate.summary)")
        }
        return rawRate.map { 1 / $0.framesPerSecond }
    }

    private func handleVideo(_ frame: Frame) {
        if let target = dropBefore {
            if frame.pts < target.pts - Self.timestampTolerance {
                discardLastDropped()
                lastDropped = frame
                return
            }
            dropBefore = nil
            if target.keepsFrameBefore, let before = lastDropped {
                lastDropped = nil
                queue(before)
            }
            discardLastDropped()
        }
        queue(frame)
    }

    private func handleAudio(_ decoded: Frame) {
        guard let frame = resampled(decoded) else { return }
        if let target = dropBefore {
            let rate = Double(track.audioFormat?.sampleRate ?? 1)
            let end = frame.pts + Double(frame.sampleCount) / rate
            if end <= target.pts + Self.timestampTolerance {
                track.recycle(frame)
                return
            }
            frame.consumedSamples = max(0, min(frame.sampleCount, Int(saturating: (target.pts - frame.pts) * rate)))
            dropBefore = nil
        }
        queue(frame)
    }

    /// The frame in the output's audio format: itself, or a resampled copy from the pool.
    private func resampled(_ decoded: Frame) -> Frame? {
        guard let resampler = track.resampler, !resampler.isPassthrough(decoded.avFrame) else { return decoded }
        guard let output = converted(decoded, what: "audio frame (resampling)", movedBack: resampler.delay,
                                     sampleRate: resampler.output.sampleRate, by: resampler.convert) else { return nil }
        guard output.sampleCount > 0 else {
            track.recycle(output)
            return nil
        }
        return output
    }

    /// `frame` converted into a frame of the conversion pool, its times carried over; `frame`
    /// goes back to its pool. Nil, with a warning, when the conversion fails.
    private func converted(_ frame: Frame, what: String, movedBack delay: Double = 0, sampleRate: Int? = nil,
                           by convert: (UnsafeMutablePointer<AVFrame>, Frame) throws(FFmpegError) -> Void) -> Frame? {
        defer { track.recycle(frame) }
        let output = track.conversionPool.acquire()
        do {
            try convert(frame.avFrame, output)
        } catch {
            warnings.note("\(what) lost: \(error)")
            track.recycle(output)
            return nil
        }
        output.takeTimes(from: frame, movedBack: delay, sampleRate: sampleRate)
        return output
    }

    /// The samples a rate conversion still holds at the end, placed right after the last frame.
    private func drainResampler() {
        guard let resampler = track.resampler, track.kind == .audio else { return }
        let output = track.conversionPool.acquire()
        do {
            if try resampler.drain(into: output) {
                output.pts = lastQueuedEnd
                output.mediaPts = lastQueuedMediaEnd
                output.duration = Double(output.sampleCount) / Double(resampler.output.sampleRate)
                output.serial = serial
                queue(output)
                return
            }
        } catch {
            warnings.note("audio tail lost: \(error)")
        }
        track.recycle(output)
    }

    private func queue(_ frame: Frame) {
        if track.kind == .video, let converter = track.pixelConverter, converter.needsConversion(frame.avPixelFormat) {
            if let output = converted(frame, what: "video frame (pixel format conversion)", by: converter.convert) {
                track.noteConvertedFrame()
                push(output)
            }
        } else {
            push(frame)
        }
    }

    private func push(_ frame: Frame) {
        lastQueuedEnd = frame.pts + frame.duration
        lastQueuedMediaEnd = frame.mediaPts + frame.duration
        if !queuedThisSerial {
            // Before the frame is queued: once it is, a renderer may take it at once.
            let rate = Double(track.audioFormat?.sampleRate ?? 1)
            let trimmed = track.kind == .audio ? Double(frame.consumedSamples) / rate : 0
            track.noteFirstFrame(serial: serial, position: frame.pts + trimmed)
        }
        queuedThisSerial = true
        let result = track.kind == .video
            ? track.frames.insert(frame, orderedBy: { $0.pts })
            : track.frames.push(frame)
        if result != .pushed {
            track.recycle(frame)
            if result == .closed { stopped = true }
            return
        }
        track.listener?.trackDidChangeQueues(track)
    }

    private func discardLastDropped() {
        if let frame = lastDropped {
            track.recycle(frame)
            lastDropped = nil
        }
    }

    /// Timestamps closer than this are the same instant (rounding between time bases).
    static let timestampTolerance = 1e-6
}

/// Corrupt data is skipped with a warning; a broken file must not flood the log with them.
struct DecodeWarnings {
    private var count = 0

    mutating func note(_ message: @autoclosure () -> String) {
        count += 1
        if count <= 5 {
            Log.track.warning("\(message())")
        } else if count.isMultiple(of: 100) {
            Log.track.warning("\(message()) (\(count) decode problems so far)")
        }
    }
}
