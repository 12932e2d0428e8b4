import CFFmpeg

/// The recording in progress, and whether the source has closed (a recording asked for after
/// that is refused, so none is left open).
struct RecordingSlot {
    var recorder: StreamRecorder?
    var isClosed = false
}

/// Recording the played streams: the read loop hands each packet it reads to the recorder, on
/// the read thread; starting, stopping and closing the file happen on the caller's thread.
extension FFmpegSource {
    public var recordingPath: String? {
        guard let recorder = recording.withLock({ $0.recorder }), recorder.isRecording else { return nil }
        return recorder.path
    }

    /// Asked for the file being recorded to, it goes on: making it again would truncate it.
    public func startRecording(to path: String, waitsForPlayback: Bool) throws(MediaError) {
        guard recordingPath != path else { return }
        let recorder = try StreamRecorder(path: path, waitsForPlayback: waitsForPlayback)
        var isClosed = false
        let replaced = recording.withLock { slot -> StreamRecorder? in
            isClosed = slot.isClosed
            guard !isClosed else { return nil }
            defer { slot.recorder = recorder }
            return slot.recorder
        }
        replaced?.finish()
        if isClosed {
            recorder.finish()
            throw MediaError(input: path, reason: "nothing to record: the media is closed")
        }
    }

    public func playbackDidStart() {
        recording.withLock { $0.recorder }?.beginHeld()
    }

    public func stopRecording() {
        recording.withLock { slot in
            defer { slot.recorder = nil }
            return slot.recorder
        }?.finish()
    }

    /// Hands a packet just read to the recording, if there is one (read thread).
    func record(_ packet: UnsafeMutablePointer<AVPacket>, track index: Int, segment: TimelineSegment) {
        if container.sectionCount != sectionsFollowed { followSection() }
        guard let recorder = recording.withLock({ $0.recorder }) else { return }
        recorder.record(packet, stream: index, serial: readSerial, offset: segment.offset, streams: recordedStreams)
    }

    /// The container opened its next section: the recording copies the new section's streams,
    /// and one set up for a codec configuration that changed ends there, complete.
    private func followSection() {
        sectionsFollowed = container.sectionCount
        if container.hasNewConfiguration, recordingPath != nil {
            Log.source.info("\(url): the recording ends where the stream's codec configuration changes")
            stopRecording()
        }
        for (index, track) in tracks.enumerated() {
            let stream = container.stream(continuing: track.streamIndex)
            if stream == nil, recordingPath != nil {
                Log.source.info("\(url): the recording ends where the \(track.kind) stream does")
                stopRecording()
            }
            recordedStreams[index] = RecordedStream(stream: stream, track: track)
        }
    }

    /// Finishes the recording for good, once the read thread has stopped.
    func closeRecording() {
        recording.withLock { $0.isClosed = true }
        stopRecording()
    }
}
