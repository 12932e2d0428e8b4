import CFFmpeg
import CHPlayerShim

/// Live mode's jump to the newest key frame read (SeekMode.liveEdge), on the read thread: what
/// is queued before that key frame is dropped, the rest goes on under the jump's serial, and the
/// input is read on from where it is.
extension FFmpegSource {
    func executeLiveJump(serial: Int) {
        readSerial = serial
        let video = tracks.first { $0.kind == .video }
        // The newest key frame queued; with none (a decoder took it already), the video waits
        // for the next one read (DecodeLoop's key-frame wait) and the sound for the picture.
        let keyFrame = video.flatMap { newestQueuedKeyFrame(in: $0) }
        for track in tracks {
            let from: Double? = switch track.kind {
            case .video: keyFrame
            // Without a picture, the sound keeps the newest `latencyTarget` of what is queued.
            case .audio: video == nil ? newestQueuedTime(in: track).map { $0 - (live?.latencyTarget ?? 0) } : keyFrame
            }
            // Dropped: all, without a place to go on from; else what lies before it.
            func isBehind(_ packet: Packet) -> Bool {
                guard let from else { return true }
                return (Self.time(of: packet, in: track) ?? -.infinity) < from
            }
            track.packets.withContents { queued in
                while let first = queued.first, isBehind(first) { track.recycle(queued.removeFirst()) }
                for packet in queued { packet.serial = serial }
            }
            track.frames.flush(track.recycle)
            track.setDropTarget(serial: serial, pts: nil)
        }
        Log.source.info("\(url): live: far behind, jumped to \(keyFrame.map { "the key frame at \(DecimalText.fixed($0, places: 3)) s" } ?? "the next key frame")")
        phase = .afterSeek
        loadState = .loading
        isStartingUp.store(true, ordering: .relaxed)
        lock.withLock { if stateValue == .seeking { stateValue = .reading } }
        evaluateBuffering(force: true)
    }

    private func newestQueuedKeyFrame(in track: Track) -> Double? {
        track.packets.withContents { queued in
            queued.last { $0.kind == .data && $0.avPacket.pointee.flags & AV_PKT_FLAG_KEY != 0 }.flatMap { Self.time(of: $0, in: track) }
        }
    }

    private func newestQueuedTime(in track: Track) -> Double? {
        track.packets.withContents { queued in queued.last.flatMap { Self.time(of: $0, in: track) } }
    }

    /// A queued packet's time on the playback timeline (its pts, else its dts, with its shift).
    private static func time(of packet: Packet, in track: Track) -> Double? {
        let avPacket = packet.avPacket.pointee
        let timestamp = avPacket.pts != noTimestamp ? avPacket.pts : avPacket.dts
        guard packet.kind == .data, timestamp != noTimestamp else { return nil }
        return track.timeBase.seconds(timestamp + packet.segment.offset)
    }
}
