import Glibc

/// Fills the audio output's callbacks from the audio track's frames (through its AudioTempoStage)
/// and keeps the master clock on the sample being heard, running at the speed heard.
///
/// Runs on the output's real-time thread: takes one lock per callback (the stage's hand-off,
/// `AudioTempoStage.exchange`), copies, never allocates; the clock and the notifier take none.
/// A frame's unused remainder waits for the next callback; a gap in the timestamps (audio
/// starting after the video, a hole in the stream) is filled with silence so sync holds.
final class AudioRenderer: AudioRendering, @unchecked Sendable {
    /// Timestamp gaps shorter than this are rounding, not holes.
    static let gapThreshold = 0.005

    private let stage: AudioTempoStage
    private let clock: MasterClock
    private let notifier: RenderNotifier

    // The callback's own.
    /// Frames taken from the stage, the first being played.
    private let local = FixedDeque<Frame>(capacity: AudioTempoStage.queueCapacity)
    /// Frames played out, given back at the next exchange.
    private let done = FixedDeque<Frame>(capacity: AudioTempoStage.queueCapacity * 2)
    private var serial = -1
    /// Timeline pts of the next sample to write, once known.
    private var nextPts: Double?
    private var loopOffset = 0.0
    private var lastPass = 0
    private var endReported = false
    private var loopEndReported = false
    /// Whether any sample of this serial has been written yet.
    private var hasStartedSerial = false
    /// Locks taken by the callbacks: the most in one, and how many callbacks ran.
    let lockProbe = CallbackLockProbe()

    init(stage: AudioTempoStage, clock: MasterClock, notifier: RenderNotifier) {
        self.stage = stage
        self.clock = clock
        self.notifier = notifier
    }

    /// The format the output chose; set before the output starts.
    func configure(format: AudioFormat) {
        stage.updateRenderSettings { $0.format = format }
    }

    func setGain(_ gain: Double) {
        stage.updateRenderSettings { $0.gain = gain }
    }

    func setLoopEnd(_ pts: Double?) {
        stage.updateRenderSettings { $0.loopEnd = pts }
    }

    /// From now on play frames of `serial` only, starting the timeline at `start` when given;
    /// `startsNow`: the clock reads `start` at the first callback, not an output latency later.
    func begin(serial: Int, timelineStart start: Double?, startsNow: Bool, reportsLoops: Bool) {
        stage.updateRenderSettings { settings in
            settings.serial = serial
            settings.timelineStart = start
            settings.startsNow = startsNow
            settings.reportsLoops = reportsLoops
        }
    }

    func render(into buffer: UnsafeMutableRawPointer, sampleCount: Int, at time: Double, latency: Double) -> Double? {
        lockProbe.begin()
        defer { lockProbe.end() }
        var exchange = stage.exchange(done: done, local: local, wanted: sampleCount, callbackSamples: sampleCount)
        let settings = exchange.settings
        if settings.serial != serial { reset(to: settings.serial) }
        let format = settings.format
        let rate = Double(format.sampleRate)
        if nextPts == nil, let start = settings.timelineStart {
            // The clock below reads the last sample written less the latency: for it to read
            // `start` now, the first sample written is the one heard a latency after this buffer's.
            nextPts = settings.startsNow ? start + max(0, latency - Double(sampleCount) / rate) : start
        }
        let bytesPerFrame = format.bytesPerFrame
        var written = 0
        var firstPts: Double?
        var wroteTimeline = false
        /// Nothing is left: the stage had handed over every frame of the serial.
        var isExhausted = false
        /// Samples skipped in this callback: sound from before the timeline's start.
        var skipped = 0
        /// Media seconds per sample of the frame being written: the speed it was stretched for.
        var secondsPerSample = 1 / rate
        while written < sampleCount {
            guard let frame = local.first else {
                // What was taken went on skipping: take again (only while a serial starts).
                if exchange.isSatisfied, skipped > 0 {
                    exchange = stage.exchange(done: done, local: local, wanted: sampleCount - written, callbackSamples: sampleCount)
                    skipped = 0
                    if !local.isEmpty { continue }
                }
                isExhausted = exchange.isExhausted
                break
            }
            secondsPerSample = frame.tempo / rate
            let framePosition = frame.pts + Double(frame.consumedSamples) * secondsPerSample
            if !hasStartedSerial, let expected = nextPts, expected - framePosition > Self.gapThreshold {
                // Sound from before the timeline's start (a seek to a key frame leaves the audio
                // a little ahead of the picture): skipped, so the picture need not wait for it.
                let skip = min(frame.sampleCount - frame.consumedSamples, Int(saturating: (expected - framePosition) / secondsPerSample))
                frame.consumedSamples += skip
                skipped += max(1, skip)
                if frame.consumedSamples >= frame.sampleCount { finish(frame) }
                continue
            }
            hasStartedSerial = true
            if let loopEnd = settings.loopEnd, framePosition >= loopEnd {
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
            if let loopEnd = settings.loopEnd {
                count = min(count, max(1, Int(saturating: (loopEnd - framePosition) / secondsPerSample, rounding: .up)))
            }
            if let samples = frame.plane(0) {
                memcpy(buffer + written * bytesPerFrame, samples + frame.consumedSamples * bytesPerFrame, count * bytesPerFrame)
            } else {
                memset(buffer + written * bytesPerFrame, 0, count * bytesPerFrame)
            }
            if firstPts == nil { firstPts = frame.mediaPts + Double(frame.consumedSamples) * secondsPerSample }
            if settings.reportsLoops, frame.loopPass != lastPass {
                lastPass = frame.loopPass
                notifier.post(.loopPassed, serial: serial)
            }
            frame.consumedSamples += count
            written += count
            nextPts = framePosition + Double(count) * secondsPerSample
            loopOffset = frame.pts - frame.mediaPts
            wroteTimeline = true
            if frame.consumedSamples >= frame.sampleCount { finish(frame) }
        }
        var trailingSilence = sampleCount - written
        if trailingSilence > 0 {
            memset(buffer + written * bytesPerFrame, 0, trailingSilence * bytesPerFrame)
            if settings.startsNow, !hasStartedSerial, !isExhausted, let expected = nextPts {
                // Live: the clock runs from the first callback, while the stale sound queued
                // before the first picture is still being skipped; until the sound of the
                // timeline comes, it is silence on it.
                if firstPts == nil { firstPts = expected - loopOffset }
                nextPts = expected + Double(trailingSilence) * secondsPerSample
                wroteTimeline = true
                trailingSilence = 0
            }
        }
        if settings.gain != 1 { Self.scale(buffer, values: written * format.channelCount, format: format.sampleFormat, by: settings.gain) }
        if wroteTimeline, let end = nextPts {
            // The last written sample is heard at time + latency - trailing silence; what is heard
            // until then runs at the speed of the frame written last.
            let speed = secondsPerSample * rate
            clock.set(end - (latency - Double(trailingSilence) / rate) * speed, at: time, loopOffset: loopOffset, rate: speed,
                      serial: serial, by: .audio)
        } else if !isExhausted {
            clock.freeze(at: time, serial: serial, by: .audio)  // waiting for data: time stands still
        }
        if isExhausted, !endReported {
            endReported = true
            notifier.post(.audioEnded, serial: serial)
        }
        return firstPts
    }

    /// The frame at the front has been played out: it goes back at the next exchange.
    private func finish(_ frame: Frame) {
        _ = local.popFront()
        done.pushBack(frame)  // room for twice what `local` holds, emptied at every exchange
    }

    private static func scale(_ buffer: UnsafeMutableRawPointer, values: Int, format: AudioFormat.SampleFormat, by gain: Double) {
        switch format {
        case .float32:
            let samples = buffer.assumingMemoryBound(to: Float.self)
            let factor = Float(gain)
            for index in 0..<values { samples[index] *= factor }
        case .int16:
            let samples = buffer.assumingMemoryBound(to: Int16.self)
            // ReplayGain can take a sample past full scale: it clips, as a float output's would.
            for index in 0..<values { samples[index] = Int16(min(max(Double(samples[index]) * gain, -32768), 32767)) }
        }
    }

    /// A new serial: what `local` held of the old one the exchange has already given back.
    private func reset(to newSerial: Int) {
        serial = newSerial
        nextPts = nil
        loopOffset = 0
        lastPass = 0
        endReported = false
        loopEndReported = false
        hasStartedSerial = false
    }
}
