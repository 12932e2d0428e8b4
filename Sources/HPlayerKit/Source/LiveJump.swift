import CFFmpeg
import CHPlayerShim

/// Live mode's jump to the newest key frame read (SeekMode.liveEdge), on the read thread: what
/// is queued before that key frame is dropped, the rest goes on under the jump's serial, and the
/// input is read on from where it is.
extension FFmpegSource {
    func executeLiveJump(serial: Int) {
        readSerial = serial
        let video = tracks.first { $0.kind == .video }
        let keyFrame = video.flatMap { newestQueuedKeyFrame(in: $0) }
        let from = video.flatMap { video in keyFrame.flatMap { Self.time(of: $0, in: video) } }
        // Before any packet has the new serial, so its decoder finds the target as it begins:
        // leading pictures after the key frame (open GOPs), and sound before it, are decoded and dropped.
        for track in tracks { track.setDropTarget(serial: serial, pts: video == nil ? nil : from) }
        if let video {
            // Down to the key frame; without it (a decoder took it meanwhile), all, and the
            // picture waits for the next one read (DecodeLoop's key-frame wait).
            cut(video, serial: serial) { packet, _ in keyFrame.map { packet !== $0 } ?? true }
        }
        for track in tracks where track !== video {
            // Without a picture, the sound keeps the newest `latencyTarget` of what is queued.
            let start = video == nil ? newestTime(in: track).map { $0 - (live?.latencyTarget ?? 0) } : from
            cut(track, serial: serial) { packet, track in start.map { (Self.time(of: packet, in: track) ?? -.infinity) < $0 } ?? true }
        }
        // The frames decoded from before, once no packet from before is left to decode (else a
        // decode thread would fill its queue again with them, and wait there while nothing plays).
        for track in tracks { track.frames.flush(where: { $0.serial < serial }, track.recycle) }
        Log.source.info("\(url): live: far behind, jumped to \(from.map { "the key frame at \(DecimalText.fixed($0, places: 3)) s" } ?? "the next key frame")")
        phase = .afterSeek
        loadState = .loading
        isStartingUp.store(true, ordering: .relaxed)
        lock.withLock { if stateValue == .seeking { stateValue = endOfFile ? .finished : .reading } }
        evaluateBuffering(force: true)
    }

    private func newestQueuedKeyFrame(in track: Track) -> Packet? {
        track.packets.withContents { queued in queued.last { $0.kind == .data && $0.avPacket.pointee.flags & AV_PKT_FLAG_KEY != 0 } }
    }

    /// Drops `track`'s queued data packets from the front while `isBehind`, and puts the rest
    /// under `serial`. An end marker, and what follows it, stays.
    private func cut(_ track: Track, serial: Int, isBehind: (Packet, Track) -> Bool) {
        track.packets.withContents { queued in
            while let first = queued.first, first.kind == .data, isBehind(first, track) { track.recycle(queued.removeFirst()) }
            for packet in queued { packet.serial = serial }
        }
    }

    private func newestTime(in track: Track) -> Double? {
        track.packets.withContents { queued in queued.last { $0.kind == .data }.flatMap { Self.time(of: $0, in: track) } }
    }

    /// A queued packet's time on the playback timeline (its pts, else its dts, with its shift).
    static func time(of packet: Packet, in track: Track) -> Double? {
        let avPacket = packet.avPacket.pointee
        return timeline(avPacket.pts != noTimestamp ? avPacket.pts : avPacket.dts, of: packet, in: track)
    }

    /// When a queued packet decodes on the playback timeline (its dts, else its pts).
    static func decodeTime(of packet: Packet, in track: Track) -> Double? {
        let avPacket = packet.avPacket.pointee
        return timeline(avPacket.dts != noTimestamp ? avPacket.dts : avPacket.pts, of: packet, in: track)
    }

    private static func timeline(_ timestamp: Int64, of packet: Packet, in track: Track) -> Double? {
        guard packet.kind == .data, timestamp != noTimestamp else { return nil }
        return track.timeBase.seconds(timestamp + packet.segment.offset)
    }
}
