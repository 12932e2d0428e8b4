import CFFmpeg

/// Switching the audio stream while playing (read thread): a new track for the new stream takes
/// the old one's place in the read loop and, through the delegate, in the player; the player's
/// exact seek to where playback stands, asked with the switch, then fills it from there.
extension FFmpegSource {
    /// Asks the read loop to play the audio stream at `streamIndex` instead of the one playing;
    /// a seek asked right after is carried out after the switch.
    public func switchAudio(toStream streamIndex: Int) {
        lock.withLock {
            pendingAudioStream = streamIndex
            lock.broadcast()
        }
    }

    /// Makes the track and puts it in place; a stream that cannot be decoded leaves the old one playing.
    func executeAudioSwitch(to streamIndex: Int) {
        guard let slot = tracks.firstIndex(where: { $0.kind == .audio }), tracks[slot].streamIndex != streamIndex,
              streamIndex >= 0, streamIndex < container.streams.count else { return }
        let old = tracks[slot]
        let stream = container.streams[streamIndex]
        let track: Track
        do {
            track = Track(kind: .audio, stream: stream, index: Int32(streamIndex), decoder: try SoftwareDecoder(stream: stream),
                          startTime: container.startTime,
                          packetCapacity: options.packetQueueCapacity, frameCapacity: options.audioFrameQueueCapacity)
            try delegate?.source(self, didReplace: old, with: track)
        } catch {
            Log.source.warning("\(url): audio stream \(streamIndex) cannot be played (\(error.reason)); the old one goes on")
            return
        }
        // The recording's streams were set up for the old codec: it ends here, complete.
        if recordingPath != nil {
            Log.source.info("\(url): the recording ends at the switch of audio stream")
            stopRecording()
        }
        container.streams[Int(old.streamIndex)].pointee.discard = AVDISCARD_ALL
        stream.pointee.discard = AVDISCARD_DEFAULT
        if let held = reading[slot].heldPacket { old.recycle(held) }
        tracks[slot] = track
        reading[slot] = readState(for: track)
        recordedStreams[slot] = RecordedStream(stream: stream, track: track)
        track.listener = self
        track.startDecoding()
        lock.withLock { openedTracks[slot] = track }
        old.close()
    }
}
