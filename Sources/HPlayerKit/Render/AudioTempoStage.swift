import Synchronization

/// Between the audio track's frame queue and the AudioRenderer, on a thread of its own: passes
/// the decoded frames on untouched at 1x, and at other speeds stretches them with an
/// AudioTempoFilter (libavfilter allocates, which the render callback may not).
///
/// It is also the hand-off to the audio callback: the queue of frames for it, the renderer's
/// settings and the frames it gives back all sit under `control`, so that a callback takes that
/// one lock, once (`exchange`), and no other.
///
/// How far it runs ahead of the output is a trade: a cushion against the thread being scheduled
/// late, against how soon a new speed is heard. At 1x it keeps a callback and `passthroughLead`
/// ahead, and a change from 1x takes back the unstretched frames queued past the next callback to
/// stretch them, so the change is heard after about one callback and the device's latency.
/// Stretched, it keeps a callback and `stretchedLead` ahead. A new speed finishes the filter (what
/// it holds comes out, already at the new speed where the filter can be retuned) and starts the
/// next at the next sample, so the positions of what follows are exact; a gap or a loop pass in
/// the input does the same.
final class AudioTempoStage: @unchecked Sendable {
    /// Samples per stretched frame: small, so the queue's lead is measured finely.
    static let chunkSamples = 256
    /// How far past one callback the stage fills the queue at 1x, and at other speeds.
    static let passthroughLead = 0.1
    static let stretchedLead = 0.01
    /// What a change from 1x leaves queued past the next callback.
    static let reclaimMargin = 0.005
    /// Frames queued for the renderer at most: the lead is a fraction of it.
    static let queueCapacity = 64

    private let control = ConditionLock()
    // Under `control`.
    /// The audio track it takes frames from: another after a switch of audio stream.
    private var trackValue: Track
    /// The output's format, which the track converts to; set at `start`.
    private var format = AudioFormat(sampleFormat: .float32, sampleRate: 48000, channelCount: 2)
    /// The frames for the renderer, in order.
    private let output = FixedDeque<Frame>(capacity: queueCapacity)
    /// Frames the renderer has finished with, for the stage thread to give back to the track.
    private let returned = FixedDeque<Frame>(capacity: queueCapacity * 4)
    private var renderSettings = AudioRenderSettings()
    private var wantedTempo = 1.0
    /// A new speed was asked for: the stage takes its next frame now, full queue or not.
    private var isTempoChanged = false
    private var isClosed = false
    /// Samples queued in `output`, against which the lead is kept.
    private var queuedSamples = 0
    /// The serial the last flush kept: frames of earlier ones are not queued again.
    private var keptSerial = Int.min
    private var callbackSamples = 1024
    /// Whether the stage passes frames through (1x): how far ahead it keeps.
    private var isPassingThrough = true
    private let finishedSerial = Atomic<Int>(-1)
    private var thread: JoinableThread?

    // The stage thread's own.
    private var serial = -1
    private var filter: AudioTempoFilter?
    /// Where the filter's output starts on the timeline, and how much it has given.
    private var segment = Segment()
    /// Timeline pts where the input taken so far ends.
    private var takenEnd: Double?
    private var hasWarned = false
    /// Returned frames on their way back to the track, outside the lock.
    private let recycling = FixedDeque<Frame>(capacity: queueCapacity * 4)

    private struct Segment {
        var start = 0.0
        var loopOffset = 0.0
        var loopPass = 0
        var produced = 0
    }

    init(track: Track, tempo: Double) {
        trackValue = track
        wantedTempo = tempo
    }

    private var track: Track { control.withLock { trackValue } }

    /// Takes frames from `new` from now on (a switch of audio stream); what was queued from the
    /// old track is stale (a seek follows) and is dropped by serial as usual.
    func replaceTrack(with new: Track) {
        let old = control.withLock {
            defer { trackValue = new }
            return trackValue
        }
        old.wakeFrameConsumer()  // in case the stage waits on the old track
    }

    func start(format: AudioFormat) {
        control.withLock { self.format = format }
        thread = JoinableThread(name: "hp-audio-tempo") { [self] in run() }
    }

    /// Stops and joins the thread, and gives every frame it holds back to the track.
    func close() {
        control.withLock {
            isClosed = true
            control.broadcast()
        }
        track.wakeFrameConsumer()  // in case it waits for a frame
        thread?.join()
        thread = nil
        filter = nil
        let track = self.track
        control.withLock {
            recycling.takeAll(from: output)
            recycling.takeAll(from: returned)
        }
        while let frame = recycling.popFront() { track.recycle(frame) }
    }

    /// Gives back what is queued for the renderer from before the seek to `serial` (none of it
    /// will be heard), so the stage takes the new position's frames at once instead of waiting
    /// for room. Frames of `serial` itself, which the stage may already have taken, stay.
    func flush(keeping serial: Int) {
        let flushed = FixedDeque<Frame>(capacity: Self.queueCapacity)
        let track = control.withLock {
            keptSerial = serial
            for _ in 0..<output.count {
                guard let frame = output.popFront() else { break }
                if frame.serial == serial {
                    output.pushBack(frame)
                } else {
                    queuedSamples -= frame.sampleCount - frame.consumedSamples
                    flushed.pushBack(frame)
                }
            }
            control.broadcast()
            return trackValue
        }
        while let frame = flushed.popFront() { track.recycle(frame) }
    }

    /// Media seconds per second heard, from the next frame the stage takes on.
    func setTempo(_ tempo: Double) {
        control.withLock {
            wantedTempo = tempo
            isTempoChanged = true
            control.broadcast()
        }
    }

    /// Changes what the renderer reads at its next callback.
    func updateRenderSettings(_ change: (inout AudioRenderSettings) -> Void) {
        control.withLock { change(&renderSettings) }
    }

    // MARK: For the renderer (its real-time thread)

    /// The audio callback's one lock. Gives back the frames the renderer is done with, reads its
    /// settings, drops what `local` holds of other serials, and tops `local` up from the queue
    /// with frames of the wanted serial until it holds `wanted` samples. Nothing allocates.
    func exchange(done: FixedDeque<Frame>, local: FixedDeque<Frame>, wanted: Int, callbackSamples samples: Int) -> AudioExchange {
        control.lock()
        defer { control.unlock() }
        returned.takeAll(from: done)
        let settings = renderSettings
        var held = 0
        for _ in 0..<local.count {
            guard let frame = local.popFront() else { break }
            if frame.serial == settings.serial {
                held += frame.sampleCount - frame.consumedSamples
                local.pushBack(frame)
            } else if !returned.pushBack(frame) {
                done.pushBack(frame)
            }
        }
        while held < wanted, !local.isFull, let frame = output.popFront() {
            let count = frame.sampleCount - frame.consumedSamples
            queuedSamples -= count
            if frame.serial == settings.serial {
                held += count
                local.pushBack(frame)
            } else if !returned.pushBack(frame) {
                done.pushBack(frame)
            }
        }
        callbackSamples = samples
        if queuedSamples < lead { control.broadcast() }
        let isFinished = finishedSerial.load(ordering: .acquiring) == settings.serial
        return AudioExchange(settings: settings, isSatisfied: held >= wanted, isExhausted: isFinished && output.isEmpty)
    }

    /// Timeline pts of the first sample of `serial` still to be heard: queued here, else the first
    /// frame the track's decoder put out of it. (Asked as a serial's rendering begins, before
    /// any of it is heard.) That frame may be queued on the track still, or in this stage's hands
    /// between the two queues, where neither queue shows it: the second frame would be taken
    /// for the first, and sound before it cut.
    func firstQueuedPosition(serial: Int) -> Double? {
        let (queued, track) = control.withLock { () -> (Double?, Track) in
            let rate = Double(format.sampleRate)
            for index in 0..<output.count where output[index].serial == serial {
                let frame = output[index]
                return (frame.pts + Double(frame.consumedSamples) * frame.tempo / rate, trackValue)
            }
            return (nil, trackValue)
        }
        return queued ?? track.firstFramePosition(serial: serial)
    }

    /// Waits, `seconds` at most, until the first frame the track decoded of `serial` is queued
    /// here, so that the output's first callback plays it rather than silence ahead of it (a
    /// recording would keep that silence). The stage moves a frame over as soon as it is decoded,
    /// unless its thread is descheduled in between, as on a busy machine. Returns at once when
    /// none is decoded yet: sound that has not come is not waited for.
    func awaitFirstFrame(serial: Int, seconds: Double) {
        // Asked of the track before the stage's lock is taken: no lock is held across layers.
        guard track.firstFramePosition(serial: serial) != nil else { return }
        let deadline = MonotonicClock.now() + seconds
        control.withLock {
            func isQueued() -> Bool { (0..<output.count).contains { output[$0].serial == serial } }
            while !isClosed, !isQueued(), control.wait(until: deadline) {}
        }
    }

    /// Tests only, in milliseconds: a pause of the stage thread between taking a serial's first
    /// frame from the track and queuing it here, as a busy machine's scheduler can make it (the
    /// order behind issue 40's race). Zero otherwise.
    static let handOverPauseForTests = Atomic<Int>(0)

    // MARK: The stage thread

    /// Samples of lead, under `control`.
    private var lead: Int {
        callbackSamples + Int((isPassingThrough ? Self.passthroughLead : Self.stretchedLead) * Double(format.sampleRate))
    }

    private func run() {
        while waitForRoom() {
            let source = track
            while let frame = recycling.popFront() { source.recycle(frame) }
            // Empty-handed: closed, replaced, or woken because the decoder has finished a serial.
            guard let frame = source.popFrame(blocking: true) else {
                if source.isFrameQueueClosed, source === track { return }
                if source === track, let finished = source.decodingFinishedSerial { finishSerial(finished) }
                continue
            }
            if frame.serial != serial, case let pause = Self.handOverPauseForTests.load(ordering: .relaxed), pause > 0 {
                MonotonicClock.sleep(until: MonotonicClock.now() + Double(pause) / 1000)
            }
            take(frame)
        }
    }

    /// Waits while the output holds its lead; false once closed.
    private func waitForRoom() -> Bool {
        control.withLock {
            while !isClosed, !isTempoChanged, queuedSamples >= lead { control.wait() }
            isTempoChanged = false
            recycling.takeAll(from: returned)
            return !isClosed
        }
    }

    private func take(_ frame: Frame) {
        if frame.serial != serial {
            serial = frame.serial
            filter = nil
            takenEnd = nil
        }
        // One look under the lock per frame: the speed, and whether the stage was passing through.
        let (tempo, wasPassingThrough) = control.withLock {
            defer { isPassingThrough = wantedTempo == 1 }
            return (wantedTempo, isPassingThrough)
        }
        if let current = filter, current.tempo != tempo || !follows(frame) {
            let tailStart = position(of: current)
            if follows(frame) { _ = current.retune(to: tempo) }
            drain(current, from: tailStart)
        }
        if tempo == 1 {
            takenEnd = end(of: frame)
            push(frame)
            return
        }
        if wasPassingThrough {
            for earlier in reclaimUnstretched(before: frame) { stretch(earlier, tempo: tempo) }
        }
        stretch(frame, tempo: tempo)
    }

    /// Whether `frame` goes on where the input taken so far ends, in the same loop pass.
    private func follows(_ frame: Frame) -> Bool {
        guard let takenEnd else { return false }
        return abs(start(of: frame) - takenEnd) < AudioRenderer.gapThreshold && frame.loopPass == segment.loopPass
            && abs(frame.pts - frame.mediaPts - segment.loopOffset) < AudioRenderer.gapThreshold
    }

    private func start(of frame: Frame) -> Double { frame.pts + Double(frame.consumedSamples) / Double(format.sampleRate) }
    private func end(of frame: Frame) -> Double { frame.pts + Double(frame.sampleCount) / Double(format.sampleRate) }

    /// From 1x to another speed: the frames of `frame`'s serial and pass queued unstretched past
    /// what the next callback needs come back, oldest first, to be stretched before it.
    private func reclaimUnstretched(before frame: Frame) -> [Frame] {
        control.withLock {
            let keep = callbackSamples + Int(Self.reclaimMargin * Double(format.sampleRate))
            var kept = 0
            var keptCount = 0
            while keptCount < output.count, kept < keep {
                kept += output[keptCount].sampleCount - output[keptCount].consumedSamples
                keptCount += 1
            }
            var back: [Frame] = []  // at a change of speed, not per frame
            while output.count > keptCount {
                let last = output[output.count - 1]
                guard last.serial == frame.serial, last.loopPass == frame.loopPass, let removed = output.popBack() else { break }
                back.append(removed)
                queuedSamples -= removed.sampleCount - removed.consumedSamples
            }
            return back.reversed()
        }
    }

    /// Puts `frame`, which follows what the filter has had, through the filter for `tempo`
    /// (made when there is none).
    private func stretch(_ frame: Frame, tempo: Double) {
        let start = start(of: frame)
        takenEnd = end(of: frame)
        do {
            if filter == nil {
                filter = try AudioTempoFilter(format: format, tempo: tempo)
                segment = Segment(start: start, loopOffset: frame.pts - frame.mediaPts, loopPass: frame.loopPass)
            }
            try filter?.send(frame, from: frame.consumedSamples)
        } catch {
            failed(tempo, error)
            push(frame)  // played unstretched rather than not at all; the clock follows what is heard
            return
        }
        track.recycle(frame)
        do { try pull() } catch { failed(tempo, error) }
    }

    private func failed(_ tempo: Double, _ error: FFmpegError) {
        if !hasWarned { Log.player.error("speed \(tempo): the audio filter failed (\(error)); the sound plays at 1x") }
        hasWarned = true
        filter = nil
    }

    /// Takes out what `filter` still holds and forgets it; what follows starts a new segment.
    /// The last of a filter's output is its input's end as it went in, so these chunks are placed
    /// from where the segment stands to where the input ends, evenly: no jump on either side.
    private func drain(_ current: AudioTempoFilter, from start: Double) {
        defer { filter = nil }
        var tail: [Frame] = []  // a window or so; made at a change of speed, not per frame
        do {
            try current.finish()
            while true {
                let chunk = track.makeFrame()
                guard try current.receive(into: chunk, count: Self.chunkSamples) else {
                    track.recycle(chunk)
                    break
                }
                tail.append(chunk)
            }
        } catch {
            Log.player.warning("the end of a speed change was lost: \(error)")
        }
        guard let end = takenEnd else { return tail.forEach(track.recycle) }
        let total = Double(tail.reduce(0) { $0 + $1.sampleCount })
        var placed = 0
        for chunk in tail {
            place(chunk, at: start + (end - start) * Double(placed) / total, tempo: (end - start) / total * Double(format.sampleRate))
            placed += chunk.sampleCount
            push(chunk)
        }
    }

    /// Moves the filter's output into the queue in chunks, placing each on the timeline.
    private func pull() throws(FFmpegError) {
        guard let filter else { return }
        while true {
            let chunk = track.makeFrame()
            guard try filter.receive(into: chunk, count: Self.chunkSamples) else {
                track.recycle(chunk)
                return
            }
            place(chunk, at: position(of: filter), tempo: filter.tempo)
            segment.produced += chunk.sampleCount
            push(chunk)
        }
    }

    /// Where the next sample out of `filter` goes on the timeline.
    private func position(of filter: AudioTempoFilter) -> Double {
        let lead = filter.lead * min(1, Double(segment.produced) / Double(filter.leadRamp))
        return segment.start + Double(segment.produced) * filter.tempo / Double(format.sampleRate) + lead
    }

    private func place(_ chunk: Frame, at pts: Double, tempo: Double) {
        chunk.pts = pts
        chunk.mediaPts = pts - segment.loopOffset
        chunk.duration = Double(chunk.sampleCount) / Double(format.sampleRate)
        chunk.serial = serial
        chunk.loopPass = segment.loopPass
        chunk.tempo = tempo
    }

    /// A serial's frames have all been decoded: once what the filter holds is out, the renderer
    /// may call it the end.
    private func finishSerial(_ finished: Int) {
        guard finishedSerial.load(ordering: .relaxed) != finished else { return }
        if finished == serial, let current = filter { drain(current, from: position(of: current)) }
        finishedSerial.store(finished, ordering: .releasing)
    }

    /// Queues `frame` for the renderer, waiting while the queue is full: the lead is a fraction
    /// of its capacity, but stretched to 0.25x one decoded frame (FLAC's hold 4,608 samples)
    /// comes out as more chunks than it holds, and so does the 1x lead taken back at a change of
    /// speed. A frame of a serial flushed meanwhile, or one pushed once closed, goes back to the
    /// track instead.
    private func push(_ frame: Frame) {
        finishedSerial.store(-1, ordering: .releasing)
        let isQueued = control.withLock {
            while output.isFull, !isClosed, frame.serial >= keptSerial { control.wait() }
            guard !isClosed, frame.serial >= keptSerial, output.pushBack(frame) else { return false }
            queuedSamples += frame.sampleCount - frame.consumedSamples
            control.broadcast()  // for `awaitFirstFrame`
            return true
        }
        if !isQueued { track.recycle(frame) }
    }
}

/// What the renderer plays by, set by the player and read at each callback.
struct AudioRenderSettings {
    var format = AudioFormat(sampleFormat: .float32, sampleRate: 48000, channelCount: 2)
    /// The volume as a factor on the samples (1: as decoded).
    var gain = 1.0
    /// Frames of this serial only are played.
    var serial = 0
    /// Where the serial's timeline starts, when the player has said.
    var timelineStart: Double?
    /// The clock is to read `timelineStart` at the first callback (live): the sound the output
    /// holds until then is skipped.
    var startsNow = false
    var reportsLoops = false
    /// Timeline pts where an A-B loop goes back to A (when there is no picture to say so).
    var loopEnd: Double?
}

/// What one `exchange` gives the renderer besides the frames.
struct AudioExchange {
    var settings: AudioRenderSettings
    /// The frames held reached what was wanted: the queue may hold more.
    var isSatisfied: Bool
    /// Every frame of the serial has been handed over: once `local` is empty, the sound has ended.
    var isExhausted: Bool
}
