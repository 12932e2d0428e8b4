/// Recording what plays (`--record-file`, mpv's `stream-record`): the source copies the packets
/// of the played streams to a file as it reads them, from the next video key frame.
extension Player {
    public var recordingPath: String? { source.recordingPath }

    /// Asked before playback has started (before opening, or while a seek lands), the recording
    /// begins where playback does: the source holds what it reads until the first frame plays,
    /// and drops what a seek made before then leaves behind.
    public func startRecording(to path: String) throws(MediaError) {
        // Listening before looking at the state, so a start between the two is not missed.
        let events = events()
        let state = playbackState
        let waitsForPlayback = state == .idle || state == .seeking
        try source.startRecording(to: path, waitsForPlayback: waitsForPlayback)
        guard waitsForPlayback else { return }
        let source = self.source
        Task {
            for await event in events {
                switch event {
                case .started, .seekDone, .liveJump, .finished:
                    source.playbackDidStart()
                    return
                default:
                    continue
                }
            }
        }
    }

    public func stopRecording() {
        source.stopRecording()
    }
}
