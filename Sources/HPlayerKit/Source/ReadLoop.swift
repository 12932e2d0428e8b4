import CFFmpeg
import CHPlayerShim

/// The read thread: reads packets into the tracks, executes seeks, loops at the end of file,
/// and pauses while the buffer is full.
extension FFmpegSource {
    /// How long a blocked read thread sleeps before looking at buffering, seeks and close again.
    static let idleInterval = 0.1

    /// How long a live start waits for the picture being decoded before reading on.
    static let startingDecodeWait = 0.03

    func runReadLoop() {
        // The HLS client's bitrate policy reads the buffer as this thread last saw it.
        container.segmentStream?.bufferLevel = { [unowned self] in
            let maximum = buffering.maximumBufferedDuration
            // Untimed, nothing waits for the next segment: as good as a full buffer.
            guard !options.isUntimed else { return BufferLevel(seconds: maximum, maximum: maximum, isStarved: false) }
            return BufferLevel(seconds: bufferedDuration, maximum: maximum, isStarved: loadState == .loading)
        }
        do {
            try openMedia()
        } catch {
            lock.withLock { stateValue = .closed }
            delegate?.source(self, didFailWith: error)
            return
        }
        lock.withLock { if stateValue == .opening { stateValue = .reading } }
        evaluateBuffering(force: true)
        while true {
            lock.lock()
            if closing {
                lock.unlock()
                break
            }
            if let streamIndex = pendingAudioStream {
                pendingAudioStream = nil
                lock.unlock()
                executeAudioSwitch(to: streamIndex)
                continue
            }
            if let request = pendingSeek {
                pendingSeek = nil
                stateValue = .seeking
                lock.unlock()
                execute(request)
                continue
            }
            if stateValue == .paused || stateValue == .finished {
                lock.wait(until: MonotonicClock.now() + Self.idleInterval)
                lock.unlock()
                evaluateBuffering(force: false)
                continue
            }
            lock.unlock()
            readPacket()
            evaluateBuffering(force: false)
            if live != nil, isStartingUp.load(ordering: .relaxed), lastReadWasVideoKeyFrame { awaitStartingDecode() }
        }
    }

    /// Live, starting, a key frame just read: the next read waits for the sender, a frame
    /// interval or more, so the key frame's picture is waited for here (briefly: decoding one
    /// takes milliseconds) and playback starts with it, not with the packet after.
    private func awaitStartingDecode() {
        let deadline = MonotonicClock.now() + Self.startingDecodeWait
        // Woken by the decode threads (a packet taken, a frame queued): looked at each time.
        while isStartingUp.load(ordering: .relaxed), MonotonicClock.now() < deadline {
            let waited = lock.withLock { () -> Bool in
                guard !closing, pendingSeek == nil else { return false }
                _ = lock.wait(until: deadline)
                return true
            }
            guard waited else { return }
            evaluateBuffering(force: true)
        }
    }

    private func readPacket() {
        guard let scratch = scratchPacket else { return }
        let result = container.read(into: scratch)
        if result < 0 {
            switch result {
            case hp_averror_eagain():
                MonotonicClock.sleep(until: MonotonicClock.now() + 0.005)
            case hp_averror_exit():
                break  // aborted by close
            case hp_averror_eof():
                reachEndOfFile(canLoop: true)
            default:
                if let failure = container.lastReadError {
                    Log.source.warning("\(failure.input): \(failure.reason); playing what was read")
                    lock.withLock { readFailureValue = failure }
                } else if live != nil {
                    // A live connection that went silent (rw_timeout) or broke: the stream has ended, failing.
                    let reason = result == hp_averror(ETIMEDOUT)
                        ? "nothing received for \(DecimalText.fixed(options.network.timeout, places: 0)) s (--network-timeout)"
                        : "the stream broke off: \(FFmpegError(result))"
                    lock.withLock { readFailureValue = MediaError(input: url, reason: reason) }
                } else {
                    Log.source.warning("\(url): read error, playing what was read: \(FFmpegError(result))")
                }
                reachEndOfFile(canLoop: false)
            }
            return
        }
        if readSubtitle(scratch) { return }
        guard let index = tracks.firstIndex(where: { $0.streamIndex == scratch.pointee.stream_index }) else {
            av_packet_unref(scratch)
            return
        }
        let track = tracks[index]
        lastReadWasVideoKeyFrame = track.kind == .video && scratch.pointee.flags & AV_PKT_FLAG_KEY != 0
        let isShownBefore = container.isShownBefore(scratch)
        let packet = track.packetPool.acquire()
        av_packet_move_ref(packet.avPacket, scratch)
        if isShownBefore {
            deliverDecodeOnly(packet, track: index)
            return
        }
        // A single packet stamped far from its neighbours (say 16 s ahead, between two 20 ms
        // apart) is a bad timestamp, not a gap to fill with silence: the packet after it decides.
        let dts = decodeTimestamp(of: packet)
        if let held = reading[index].heldPacket {
            reading[index].heldPacket = nil
            if !reading[index].timeline.isOutOfLine(dts: dts, timeBase: track.timeBase), let heldDts = decodeTimestamp(of: held) {
                let correction = reading[index].timeline.correction(toLineFrom: heldDts)
                Log.source.info("\(url): a \(track.kind) packet stamped \(track.timeBase.seconds(-correction) ?? 0)s away from its neighbours: its timestamps are taken as bad and repaired")
                shift(held.avPacket, by: correction)
            }
            deliver(held, track: index)
        }
        if reading[index].timeline.isOutOfLine(dts: dts, timeBase: track.timeBase) {
            reading[index].heldPacket = packet
            return
        }
        deliver(packet, track: index)
    }

    /// The decode timestamp, else the presentation timestamp; nil when the packet has neither.
    private func decodeTimestamp(of packet: Packet) -> Int64? {
        let avPacket = packet.avPacket.pointee
        let timestamp = avPacket.dts != noTimestamp ? avPacket.dts : avPacket.pts
        return timestamp == noTimestamp ? nil : timestamp
    }

    private func shift(_ packet: UnsafeMutablePointer<AVPacket>, by ticks: Int64) {
        if packet.pointee.pts != noTimestamp { packet.pointee.pts += ticks }
        if packet.pointee.dts != noTimestamp { packet.pointee.dts += ticks }
    }

    /// Places a packet on its stream's timeline, records it, and queues it for decoding.
    private func deliver(_ packet: Packet, track index: Int) {
        let track = tracks[index]
        let avPacket = packet.avPacket
        let previousStart = reading[index].timeline.segment.start
        let segment = reading[index].timeline.place(stream: index, dts: decodeTimestamp(of: packet),
                                                    duration: avPacket.pointee.duration, timeBase: track.timeBase,
                                                    limits: reading[index].limits, lastJump: &lastJump)
        if segment.start != previousStart {
            Log.source.info("\(url): \(track.kind) timestamps jump at \(track.timeBase.seconds(segment.start) ?? 0)s; playback goes on without a gap")
            noteTimelineJump(segment, track: track)
        }
        let rawEnd = noteEnd(of: avPacket, track: index, segment: segment)
        if reading[index].hasEnded {
            reading[index].hasEnded = false
            Log.source.debug("\(url): more \(track.kind) after all")
        }
        record(avPacket, track: index, segment: segment)
        reading[index].lastArrival = MonotonicClock.now()
        packet.serial = readSerial
        packet.segment = segment
        if !textReaders.isEmpty { keepTextAhead(of: packet, track: track) }
        track.countQueued(packet)
        enqueue(packet, to: track)
        if let end = reading[index].declaredAudioEnd, let rawEnd, rawEnd >= end - 0.001, !isLooping {
            reading[index].hasEnded = true
            sendEndMarker(to: track)
        }
    }

    /// A picture a variant switch brings that was shown before it (SwitchOverlap): decoded, as
    /// later pictures refer to it, but not shown (the decoder drops it) and not recorded. Its
    /// timestamps, behind those read, are not a jump of the stream's timeline.
    private func deliverDecodeOnly(_ packet: Packet, track index: Int) {
        packet.serial = readSerial
        packet.segment = reading[index].timeline.segment
        reading[index].lastArrival = MonotonicClock.now()
        tracks[index].countQueued(packet)
        enqueue(packet, to: tracks[index])
    }

    /// A held packet goes on as it is at the end of the file, and is let go at a seek.
    func releaseHeldPackets(deliver: Bool) {
        for index in reading.indices {
            guard let held = reading[index].heldPacket else { continue }
            reading[index].heldPacket = nil
            if deliver { self.deliver(held, track: index) } else { tracks[index].recycle(held) }
        }
    }

    /// Pushes `packet`, waking up while the queue stays full to keep buffering, seeks and close
    /// attended. A packet is dropped when a seek or close makes it pointless.
    private func enqueue(_ packet: Packet, to track: Track) {
        while true {
            switch track.packets.push(packet, deadline: MonotonicClock.now() + Self.idleInterval) {
            case .pushed:
                return
            case .closed:
                track.recycle(packet)
                return
            case .interrupted:
                evaluateBuffering(force: false)
                let pending = lock.withLock { () -> (dropsPacket: Bool, jump: Int?) in
                    guard !closing, let seek = pendingSeek else { return (closing, nil) }
                    guard seek.mode == .liveEdge else { return (true, nil) }
                    pendingSeek = nil
                    stateValue = .seeking
                    return (false, seek.serial)
                }
                if pending.dropsPacket {
                    track.recycle(packet)
                    return
                }
                // A live jump is made here, as the queue it empties may be the one that is full;
                // it reads nothing again, so the packet in hand goes on after it.
                if let serial = pending.jump {
                    executeLiveJump(serial: serial)
                    packet.serial = readSerial
                    continue
                }
                remedyStarvation(blockedOn: track)
            }
        }
    }

    /// Packet queues may grow to this many times their first capacity, and no further.
    static let queueGrowthLimit = 8

    /// Blocked on `track`'s full queue: see whether another track runs short because it has
    /// ended (found while it still plays, so its end is seamless); else whether network media
    /// may read further ahead; else, while loading, whether another track's packets lie further on.
    private func remedyStarvation(blockedOn track: Track) {
        guard let blocked = tracks.firstIndex(where: { $0 === track }) else { return }
        evaluateBuffering(force: true)
        let remedy = BufferingPolicy.starvationRemedy(blockedOn: blocked, tracks: trackBuffers, phase: phase, options: buffering,
                                                      capacityLimit: options.packetQueueCapacity * Self.queueGrowthLimit)
        if case .endTracks(let ended) = remedy {
            for index in ended {
                Log.source.info("\(url): the \(tracks[index].kind) stream ends before the file does; the rest plays without it")
                reading[index].hasEnded = true
                sendEndMarker(to: tracks[index])
            }
            evaluateBuffering(force: true)
        } else if BufferingPolicy.shouldGrowForReadAhead(trackBuffers[blocked], bufferedBytes: bufferedBytes, options: buffering) {
            track.packets.grow()
            Log.source.debug("\(url): \(track.kind) packet queue grown to \(track.packets.capacity) to read ahead")
        } else if remedy == .growQueue, loadState == .loading {
            track.packets.grow()
            Log.source.debug("\(url): \(track.kind) packet queue grown to \(track.packets.capacity): the other stream lies further on")
        }
    }

    private func sendEndMarker(to track: Track) {
        let endMarker = track.packetPool.acquire()
        endMarker.kind = .endOfStream
        endMarker.serial = readSerial
        enqueue(endMarker, to: track)
    }

    /// Notes where `packet` ends: for the loop pass (its timestamps shifted across jumps, not by
    /// looping) and for the track (on the timeline). Returns the end as the container has it.
    private func noteEnd(of packet: UnsafeMutablePointer<AVPacket>, track index: Int, segment: TimelineSegment) -> Double? {
        let timeBase = tracks[index].timeBase
        let start = packet.pointee.pts != noTimestamp ? packet.pointee.pts : packet.pointee.dts
        guard start != noTimestamp, let end = timeBase.seconds(start + max(packet.pointee.duration, 0)) else { return nil }
        let passEnd = end + (timeBase.seconds(segment.offset - segment.loopOffset) ?? 0)
        if passEnd > loop.passEnd { loop.passEnd = passEnd }
        let timelineEnd = end + (timeBase.seconds(segment.offset) ?? 0)
        reading[index].lastPacketEnd = max(reading[index].lastPacketEnd ?? timelineEnd, timelineEnd)
        if tracks[index].kind == .video, packet.pointee.flags & AV_PKT_FLAG_KEY != 0 {
            let decode = packet.pointee.dts != noTimestamp ? packet.pointee.dts : start
            reading[index].lastKeyFrame = timeBase.seconds(start + segment.offset)
            reading[index].lastKeyFrameDecodeTime = timeBase.seconds(decode + segment.offset)
        }
        return end
    }

    /// The end of the file, or a read error: loops (only at a real end) or sends each track its
    /// end marker.
    private func reachEndOfFile(canLoop: Bool) {
        releaseHeldPackets(deliver: true)
        if canLoop, isLooping, startNextPass() { return }
        for (index, track) in tracks.enumerated() where !reading[index].hasEnded {
            sendEndMarker(to: track)
        }
        endOfFile = true
        lock.withLock { if stateValue == .reading { stateValue = .finished } }
        evaluateBuffering(force: true)
    }

    /// Loops with no gap: reading goes on from the start, timestamps shifted by the pass's length,
    /// and nothing queued is flushed.
    private func startNextPass() -> Bool {
        let passLength = loop.passEnd - container.startTime
        guard passLength > 0 else { return false }
        let result = container.seek(toMicroseconds: Int64(saturating: container.startTime * 1_000_000))
        guard result >= 0 else {
            Log.source.warning("\(url): cannot loop, seeking to the start failed: \(FFmpegError(result))")
            return false
        }
        loop = LoopProgress(pass: loop.pass + 1, offset: loop.offset + passLength)
        for (index, track) in tracks.enumerated() {
            reading[index].timeline.startPass(loop.pass, loopOffset: track.timeBase.ticks(loop.offset), startTicks: track.startTicks)
        }
        Log.source.debug("\(url): loop pass \(loop.pass) at +\(loop.offset)s")
        return true
    }

    /// Where to seek so that reading starts at a video key frame at or before `target`. Where
    /// libavformat seeks by timestamps alone, it lands on any packet, and the first key frame
    /// after it may be past the target, or there may be none: earlier and earlier then (a
    /// second, two, four…, as mpv seeks again), the media's start at last. Elsewhere, `target`.
    private func keyFramePosition(before target: Double) -> Double {
        guard container.seeksByTimestampAlone, let video = tracks.first(where: { $0.kind == .video }),
              let scratch = scratchPacket else { return target }
        var position = target
        var backoff = 1.0
        while position > container.startTime {
            guard container.seek(toMicroseconds: Int64(saturating: position * 1_000_000)) >= 0 else { return target }
            var keyFramePts: Double?
            var sawVideo = false
            for _ in 0..<Self.packetsToAKeyFrame {
                guard container.read(into: scratch) >= 0 else { break }
                defer { av_packet_unref(scratch) }
                guard scratch.pointee.stream_index == video.streamIndex else { continue }
                sawVideo = true
                guard scratch.pointee.flags & AV_PKT_FLAG_KEY != 0 else { continue }
                keyFramePts = video.timeBase.seconds(scratch.pointee.pts) ?? video.timeBase.seconds(scratch.pointee.dts)
                break
            }
            if let pts = keyFramePts, pts <= target + Self.timestampTolerance { return position }
            // No video at all there (a stream of sound alone from here): as it is.
            if !sawVideo, position == target { return target }
            position = max(container.startTime, target - backoff)
            backoff *= 2
        }
        return container.startTime
    }

    /// How many packets are read after a seek for the video's next key frame: a GOP of a
    /// broadcast stream, sound included, and more.
    private static let packetsToAKeyFrame = 20_000
    /// A packet this little past the target is at it (timestamps rounded to their time base).
    private static let timestampTolerance = 0.001

    private func execute(_ request: SeekRequest) {
        guard request.mode != .liveEdge else { return executeLiveJump(serial: request.serial) }
        var position = max(0, request.position)
        if let duration = container.duration, position > duration {
            position = isLooping ? 0 : duration
        }
        let target = container.startTime + position
        // A raw stream has no timestamps to seek by: it is read again from its first byte and
        // every picture before the target decoded and dropped, so the seek is exact.
        let isRaw = isTimestampless
        let result = isRaw ? container.seekToFirstByte()
            : container.seek(toMicroseconds: Int64(saturating: keyFramePosition(before: target) * 1_000_000))
        if result < 0 {
            Log.source.warning("\(url): cannot seek to \(position)s: \(FFmpegError(result))")
        }
        // A raw stream that could not go back (a pipe) plays on from where it is.
        let dropsToTarget = isRaw ? result >= 0 : request.mode != .keyframe
        for reader in textReaders { reader.seek(to: position, discontinuity: container.segmentStream?.startDiscontinuity ?? 0) }
        isTextLate = false
        readSerial = request.serial
        lock.withLock { readFailureValue = nil }
        loop = LoopProgress()
        releaseHeldPackets(deliver: false)
        for index in reading.indices { reading[index].reset() }
        lastJump = nil
        endOfFile = false
        for track in tracks {
            track.packets.flush(track.recycle)
            track.frames.flush(track.recycle)
            track.setDropTarget(serial: request.serial, pts: dropsToTarget ? target : nil,
                                keepsFrameBefore: request.mode == .frameBefore)
        }
        phase = .afterSeek
        loadState = .loading
        isStartingUp.store(true, ordering: .relaxed)
        lock.withLock { if stateValue == .seeking { stateValue = .reading } }
        evaluateBuffering(force: true)
    }
}
