import CFFmpeg
import CHPlayerShim

/// Live mode's jump to the newest key frame read (SeekMode.liveEdge), on the read thread: what
/// is queued before that key frame is dropped, the rest goes on under the jump's serial, and the
/// input is read on from where it is.
extension FFmpegSource {
    func executeLiveJump(serial: Int) {
        readSerial = serial
        // Decoded frames are all from before: gone first, so none of the new serial is lost.
        for track in tracks { track.frames.flush(track.recycle) }
        let video = tracks.first { $0.kind == .video }
        // The newest key frame queued, found and cut to at once (a decode thread may take it
        // meanwhile otherwise). With none (taken already), the video waits for the next one
        // read (DecodeLoop's key-frame wait), and the sound starts with that picture.
        let keyFrame = video.flatMap { cutToNewestKeyFrame($0, serial: serial) }
        for track in tracks where track !== video {
            // Without a picture, the sound keeps the newest `latencyTarget` of what is queued.
            let from = video == nil ? newestTime(in: track).map { $0 - (live?.latencyTarget ?? 0) } : keyFrame
            cut(track, serial: serial, from: from)
        }
        for track in tracks {
            // Leading pictures after the key frame (open GOPs), and sound before it, are decoded and dropped.
            track.setDropTarget(serial: serial, pts: video == nil ? nil : keyFrame)
        }
        Log.source.info("\(url): live: far behind, jumped to \(keyFrame.map { "the key frame at \(DecimalText.fixed($0, places: 3)) s" } ?? "the next key frame")")
        phase = .afterSeek
        loadState = .loading
        isStartingUp.store(true, ordering: .relaxed)
        lock.withLock { if stateValue == .seeking { stateValue = endOfFile ? .finished : .reading } }
        evaluateBuffering(force: true)
    }

    /// Drops what is queued of `track` before its newest key frame (all of it with none), puts
    /// the rest under `serial`, and tells where the key frame starts: in one look at the queue,
    /// so that its decode thread cannot take the key frame in between.
    private func cutToNewestKeyFrame(_ track: Track, serial: Int) -> Double? {
        track.packets.withContents { queued in
            let keyFrame = queued.lastIndex { $0.kind == .data && $0.avPacket.pointee.flags & AV_PKT_FLAG_KEY != 0 }
            let from = keyFrame.flatMap { Self.time(of: queued[$0], in: track) }
            var behind = keyFrame ?? queued.count
            while behind > 0, let first = queued.first, first.kind == .data {
                track.recycle(queued.removeFirst())
                behind -= 1
            }
            for packet in queued { packet.serial = serial }
            return from
        }
    }

    /// Drops what is queued of `track` before `from` (all of it when nil) and puts the rest
    /// under `serial`. An end marker, and what follows it, stays.
    private func cut(_ track: Track, serial: Int, from: Double?) {
        track.packets.withContents { queued in
            while let first = queued.first, first.kind == .data,
                  from.map({ (Self.time(of: first, in: track) ?? -.infinity) < $0 }) ?? true {
                track.recycle(queued.removeFirst())
            }
            for packet in queued { packet.serial = serial }
        }
    }

    private func newestTime(in track: Track) -> Double? {
        track.packets.withContents { queued in queued.last { $0.kind == .data }.flatMap { Self.time(of: $0, in: track) } }
    }

    /// A queued packet's time on the playback timeline (its pts, else its dts, with its shift).
    private static func time(of packet: Packet, in track: Track) -> Double? {
        let avPacket = packet.avPacket.pointee
        let timestamp = avPacket.pts != noTimestamp ? avPacket.pts : avPacket.dts
        guard packet.kind == .data, timestamp != noTimestamp else { return nil }
        return track.timeBase.seconds(timestamp + packet.segment.offset)
    }
}
