/// The buffering decision, made on the read thread when the queues have changed: at once on first
/// open and after a seek, or when the queued bytes pass their limit; otherwise at most every 100 ms.
extension FFmpegSource {
    static let evaluationInterval = 0.1

    func evaluateBuffering(force: Bool) {
        let now = MonotonicClock.now()
        // Live: each packet, as a queue runs dry and fills again within a frame interval.
        guard force || phase != .steady || live != nil || now - lastEvaluation >= Self.evaluationInterval || isOverByteLimit
                || isOverTimeLimit else { return }
        lastEvaluation = now
        let serial = readSerial
        for (index, track) in tracks.enumerated() {
            let frameCount = track.frames.withContents { frames in
                frames.reduce(0) { $0 + ($1.serial == serial ? 1 : 0) }
            }
            trackBuffers[index] = TrackBuffer(
                kind: track.kind, packetCount: track.packets.count, packetCapacity: track.packets.capacity,
                frameCount: frameCount, frameCapacity: track.frames.capacity,
                packetsPerSecond: track.packetsPerSecond, isEndOfFile: endOfFile || reading[index].hasEnded,
                lastPacketEnd: reading[index].lastPacketEnd, packetBytes: track.packetBytes,
                hasReadPacket: track.hasQueuedPacket(serial: serial), hasDecodedFrame: track.firstFramePosition(serial: serial) != nil)
        }
        var report = BufferingPolicy.evaluate(trackBuffers, phase: phase, options: buffering)
        if live != nil {
            report.isStarved = trackBuffers.indices.contains { index in
                LiveInput.isStarved(trackBuffers[index], quietFor: now - reading[index].lastArrival)
            }
            report.newestKeyFrame = newestQueuedKeyFrame()
        }
        bufferedBytes = report.bufferedBytes
        bufferedDuration = report.bufferedDuration
        let previous = loadState
        loadState = BufferingPolicy.nextLoadState(loadState, report: report)
        if loadState != previous {
            Log.source.debug("\(loadState) (\(phase)): \(trackBuffers.map { "\($0.kind) \($0.packetCount)+\($0.frameCount)" })")
        }
        if loadState == .playable, phase != .steady {
            phase = .steady
            isStartingUp.store(false, ordering: .relaxed)
        }
        lock.withLock {
            guard stateValue == .reading || stateValue == .paused else { return }
            let pause = BufferingPolicy.shouldPauseReading(isPaused: stateValue == .paused,
                                                           bufferedDuration: report.bufferedDuration,
                                                           bufferedBytes: report.bufferedBytes, isStarved: report.isStarved,
                                                           options: buffering)
            stateValue = pause ? .paused : .reading
        }
        delegate?.source(self, didEvaluate: report, loadState: loadState, serial: serial)
    }

    /// The newest video key frame read, while it is queued still (where a live jump would land):
    /// the queue's oldest packet decodes no later than it. Once a decoder has it, nil.
    private func newestQueuedKeyFrame() -> Double? {
        guard let index = tracks.firstIndex(where: { $0.kind == .video }), let keyFrame = reading[index].lastKeyFrame,
              let keyDecode = reading[index].lastKeyFrameDecodeTime else { return nil }
        let track = tracks[index]
        let oldest = track.packets.withContents { queued in queued.first.flatMap { Self.decodeTime(of: $0, in: track) } }
        return oldest.map { $0 <= keyDecode } == true ? keyFrame : nil
    }

    /// A local file reads seconds of media in 100 ms: the time limit is looked at per packet too,
    /// once every track still reading holds that much (packets and frames, as `bufferedDuration`).
    private var isOverTimeLimit: Bool {
        guard buffering.maximumBufferedDuration < .infinity, !tracks.isEmpty else { return false }
        return tracks.indices.allSatisfy { index in
            let track = tracks[index]
            return reading[index].hasEnded
                || Double(track.packets.count + track.frames.count) > buffering.maximumBufferedDuration * track.packetsPerSecond
        }
    }

    /// Reading from a fast server queues many packets in 100 ms: the byte limit is looked at per packet.
    private var isOverByteLimit: Bool {
        guard buffering.maximumBufferedBytes < .max else { return false }
        return tracks.reduce(0) { $0 + $1.packetBytes } > buffering.maximumBufferedBytes
    }
}
