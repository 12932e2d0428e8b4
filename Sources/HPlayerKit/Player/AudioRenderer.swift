import Glibc

/// Fills the audio output's callbacks from the audio track's frames (through its AudioTempoStage)
/// and keeps the master clock on the sample being heard, running at the speed heard.
///
/// Runs on the output's real-time thread: pops without waiting, copies, never allocates. A frame's
/// unused remainder waits for the next callback; a gap in the timestamps (audio starting after the
/// video, a hole in the stream) is filled with silence so sync holds.
final class AudioRenderer: AudioRendering, @unchecked Sendable {
    /// Timestamp gaps shorter than this are rounding, not holes.
    static let gapThreshold = 0.005

    private let stage: AudioTempoStage
    private let clock: MasterClock
    private let notifier: RenderNotifier

    // Set by the player.
    private let control = ConditionLock()
    private var format = AudioFormat(sampleFormat: .float32, sampleRate: 48000, channelCount: 2)
    /// The volume as a factor on the samples (1: as decoded).
    private var gain = 1.0
    private var wantedSerial = 0
    private var timelineStart: Double?
    private var reportsLoops = false
    /// Timeline pts where an A-B loop goes back to A (when there is no picture to say so).
    private var loopEnd: Double?

    // The callback's own.
    private var serial = -1
    private var current: Frame?
    /// Timeline pts of the next sample to write, once known.
    private var nextPts: Double?
    private var loopOffset = 0.0
    private var lastPass = 0
    private var endReported = false
    private var loopEndReported = false
    /// Whether any sample of this serial has been written yet.
    private var hasStartedSerial = false

    init(stage: AudioTempoStage, clock: MasterClock, notifier: RenderNotifier) {
        self.stage = stage
        self.clock = clock
        self.notifier = notifier
    }

    /// The format the output chose; set before the output starts.
    func configure(format: AudioFormat) {
        control.withLock { self.format = format }
    }

    func setGain(_ gain: Double) {
        control.withLock { self.gain = gain }
    }

    func setLoopEnd(_ pts: Double?) {
        control.withLock { loopEnd = pts }
    }

    /// From now on play frames of `serial` only, starting the timeline at `start` when given.
    func begin(serial: Int, timelineStart start: Double?, reportsLoops: Bool) {
        control.withLock {
            wantedSerial = serial
            timelineStart = start
            self.reportsLoops = reportsLoops
        }
    }

    func render(into buffer: UnsafeMutableRawPointer, sampleCount: Int, at time: Double, latency: Double) -> Double? {
        let (wanted, start, reportsLoops, format, gain, loopEnd) = control.withLock {
            (wantedSerial, timelineStart, self.reportsLoops, self.format, self.gain, self.loopEnd)
        }
        if wanted != serial { reset(to: wanted) }
        if nextPts == nil { nextPts = start }
        let rate = Double(format.sampleRate)
        let bytesPerFrame = format.bytesPerFrame
        var written = 0
        var firstPts: Double?
        var wroteTimeline = false
        /// Nothing is left: the decoder had finished before the queue was found empty.
        var isExhausted = false
        /// Media seconds per sample of the frame being written: the speed it was stretched for.
        var secondsPerSample = 1 / rate
        while written < sampleCount {
            if current == nil {
                let finished = stage.hasFinished(serial: serial)
                current = stage.nextFrame(serial: serial, callbackSamples: sampleCount)
                isExhausted = current == nil && finished
            }
            guard let frame = current else { break }
            secondsPerSample = frame.tempo / rate
            let framePosition = frame.pts + Double(frame.consumedSamples) * secondsPerSample
            if !hasStartedSerial, let expected = nextPts, expected - framePosition > Self.gapThreshold {
                // Sound from before the timeline's start (a seek to a key frame leaves the audio
                // a little ahead of the picture): skipped, so the picture need not wait for it.
                frame.consumedSamples += min(frame.sampleCount - frame.consumedSamples, Int(saturating: (expected - framePosition) / secondsPerSample))
                if frame.consumedSamples >= frame.sampleCount {
                    stage.recycle(frame)
                    current = nil
                }
                continue
            }
            hasStartedSerial = true
            if let loopEnd, framePosition >= loopEnd {
                // B reached: silence until the player's seek back to A.
                if !loopEndReported {
                    loopEndReported = true
                    notifier.post(.loopEndReached, serial: serial)
                }
                break
            }
            if let expected = nextPts, framePosition - expected > Self.gapThreshold {
                let silence = min(sampleCount - written, Int(saturating: (framePosition - expected) / secondsPerSample))
                memset(buffer + written * bytesPerFrame, 0, silence * bytesPerFrame)
                if firstPts == nil { firstPts = expected - (frame.pts - frame.mediaPts) }
                written += silence
                nextPts = expected + Double(silence) * secondsPerSample
                wroteTimeline = true
                continue
            }
            var count = min(frame.sampleCount - frame.consumedSamples, sampleCount - written)
            if let loopEnd { count = min(count, max(1, Int(saturating: (loopEnd - framePosition) / secondsPerSample, rounding: .up))) }
            if let samples = frame.plane(0) {
                memcpy(buffer + written * bytesPerFrame, samples + frame.consumedSamples * bytesPerFrame, count * bytesPerFrame)
            } else {
                memset(buffer + written * bytesPerFrame, 0, count * bytesPerFrame)
            }
            if firstPts == nil { firstPts = frame.mediaPts + Double(frame.consumedSamples) * secondsPerSample }
            if reportsLoops, frame.loopPass != lastPass {
                lastPass = frame.loopPass
                notifier.post(.loopPassed, serial: serial)
            }
            frame.consumedSamples += count
            written += count
            nextPts = framePosition + Double(count) * secondsPerSample
            loopOffset = frame.pts - frame.mediaPts
            wroteTimeline = true
            if frame.consumedSamples >= frame.sampleCount {
                stage.recycle(frame)
                current = nil
            }
        }
        let trailingSilence = sampleCount - written
        if trailingSilence > 0 {
            memset(buffer + written * bytesPerFrame, 0, trailingSilence * bytesPerFrame)
        }
        if gain != 1 { Self.scale(buffer, values: written * format.channelCount, format: format.sampleFormat, by: gain) }
        if wroteTimeline, let end = nextPts {
            // The last written sample is heard at time + latency - trailing silence; what is heard
            // until then runs at the speed of the frame written last.
            let speed = secondsPerSample * rate
            clock.set(end - (latency - Double(trailingSilence) / rate) * speed, at: time, loopOffset: loopOffset, rate: speed)
        } else if !isExhausted {
            clock.freeze(at: time)  // waiting for data: time stands still
        }
        if isExhausted, !endReported {
            endReported = true
            notifier.post(.audioEnded, serial: serial)
        }
        return firstPts
    }

    private static func scale(_ buffer: UnsafeMutableRawPointer, values: Int, format: AudioFormat.SampleFormat, by gain: Double) {
        switch format {
        case .float32:
            let samples = buffer.assumingMemoryBound(to: Float.self)
            let factor = Float(gain)
            for index in 0..<values { samples[index] *= factor }
        case .int16:
            let samples = buffer.assumingMemoryBound(to: Int16.self)
            for index in 0..<values { samples[index] = Int16(Double(samples[index]) * gain) }
        }
    }

    private func reset(to newSerial: Int) {
        if let frame = current { stage.recycle(frame) }
        current = nil
        serial = newSerial
        nextPts = nil
        loopOffset = 0
        lastPass = 0
        endReported = false
        loopEndReported = false
        hasStartedSerial = false
    }
}
