/// The player's side of an audio output: fills each callback from the audio frame queue.
///
/// Called on the output's real-time thread: it never waits for data and never allocates.
public protocol AudioRendering: AnyObject, Sendable {
    /// Fills `buffer` with exactly `sampleCount` samples (interleaved, in the output's format),
    /// carrying a frame's unused remainder to the next call and filling silence when there is nothing.
    /// - Parameters:
    ///   - time: the monotonic time of this callback.
    ///   - latency: seconds from now until the last sample of this buffer is heard.
    /// - Returns: the pts (as in the file) of the first sample, or nil when it is all silence.
    func render(into buffer: UnsafeMutableRawPointer, sampleCount: Int, at time: Double, latency: Double) -> Double?
}

/// A sound output that pulls: the device's callback asks the renderer for samples. The player
/// calls `open` on the source's read thread when the media opens, `start` and `pause` on
/// whichever thread applies its requests, and `close` on the thread that closes it; one at a
/// time.
public protocol AudioOutput: AnyObject, Sendable {
    /// Prepares the output for a source whose decoded audio is `source`; no callback runs until
    /// `start`. Throwing fails the opening of the media with that error.
    /// - Returns: the format the renderer must fill callbacks with.
    func open(source: AudioFormat, renderer: AudioRendering) throws(MediaError) -> AudioFormat
    /// Callbacks run.
    func start()
    /// Callbacks stop; what the device holds stays for `start`. Returns only once no call into
    /// the renderer is under way: right after, the player freezes its clock or moves the
    /// renderer to a seek's samples, and relies on no callback of before being in progress.
    func pause()
    /// Stops for good and joins the output's threads: no callback runs after it returns.
    func close()
}
