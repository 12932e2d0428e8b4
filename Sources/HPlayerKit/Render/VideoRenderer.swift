import Synchronization

/// Picks the frame for each video refresh against the master clock (VideoSync), drops the ones
/// it skips, presents the first frame while paused (preview) and the next one on a frame step,
/// and notices the end and an A-B loop's B.
final class VideoRenderer: VideoRendering, @unchecked Sendable {
    private let track: Track
    private let clock: MasterClock
    private let notifier: RenderNotifier
    private let isUntimed: Bool
    private let subtitles: SubtitleSelection

    // Set by the player.
    private let control = ConditionLock()
    private var wantedSerial = 0
    private var isRunning = false
    private var previewWanted = false
    /// Frame steps asked and not yet shown: each shows one picture, as two presses of `.` faster
    /// than pictures come step two.
    private var stepsWanted = 0
    /// Timeline pts where an A-B loop goes back to A.
    private var loopEnd: Double?
    private var followsAudio = false
    private var reportsLoops = true

    // The refresh thread's own.
    private var serial = -1
    private var firstPresentedPts: Double?
    private var lastPresentedEnd: Double?
    private var lastPass = 0
    private var endReported = false
    private var loopEndReported = false
    /// Whether the last running refresh followed the audio clock.
    private var followedAudio = true
    /// Since when a preview or step has waited for its picture.
    private var awaitedSince: Double?

    let droppedFrames = Atomic<Int>(0)
    /// Media pts of the frame presented last, in microseconds (Int.min: none yet): where a step
    /// back goes from.
    private let lastPresentedMicroseconds = Atomic<Int>(.min)
    /// Master clock minus pts at the last presentation, in microseconds.
    let avDifferenceMicroseconds = Atomic<Int>(0)
    /// The size of the frame presented last, width << 32 | height (0: none yet): it changes at
    /// an HLS variant switch.
    private let presentedSize = Atomic<Int>(0)

    init(track: Track, clock: MasterClock, notifier: RenderNotifier, isUntimed: Bool, subtitles: SubtitleSelection) {
        self.track = track
        self.clock = clock
        self.notifier = notifier
        self.isUntimed = isUntimed
        self.subtitles = subtitles
    }

    /// From now on present frames of `serial` only. Steps asked before (with no picture left to
    /// show, at the end) do not carry over to it.
    func begin(serial: Int) {
        control.withLock {
            wantedSerial = serial
            previewWanted = false
            stepsWanted = 0
        }
    }

    /// Whether refreshes follow the clock (playing) or only preview.
    func setRunning(_ running: Bool, followsAudio: Bool, reportsLoops: Bool) {
        control.withLock {
            isRunning = running
            // A preview or step never shown (no frame came) must not hold up playing, nor show at
            // the next pause.
            if running {
                previewWanted = false
                stepsWanted = 0
            }
            self.followsAudio = followsAudio
            self.reportsLoops = reportsLoops
        }
    }

    /// Audio has ended: video paces itself from here.
    func stopFollowingAudio() { control.withLock { followsAudio = false } }

    /// Present the first frame of the current serial at the next refresh, even while paused.
    func requestPreview() { control.withLock { previewWanted = true } }

    /// While paused, present the next frame at the next refresh, the clock moved to it; steps
    /// asked before it is shown are shown after it in turn.
    func requestStep() { control.withLock { stepsWanted += 1 } }

    /// Where the A-B loop's B lies on the timeline; nil: no loop.
    func setLoopEnd(_ pts: Double?) { control.withLock { loopEnd = pts } }

    /// The width and height of the frame presented last.
    var lastPresentedSize: PictureSize? {
        let packed = presentedSize.load(ordering: .relaxed)
        return packed == 0 ? nil : PictureSize(width: packed >> 32, height: packed & 0xffff_ffff)
    }

    /// Media seconds of the frame presented last.
    var lastPresentedMediaPts: Double? {
        let micros = lastPresentedMicroseconds.load(ordering: .relaxed)
        return micros == .min ? nil : Double(micros) / 1_000_000
    }

    /// The pts of the first frame of `serial` shown or waiting, where the timeline starts.
    func firstPts(serial: Int) -> Double? {
        if let shown = control.withLock({ self.serial == serial ? firstPresentedPts : nil }) { return shown }
        return track.withQueuedFrames { frames in frames.first(where: { $0.serial == serial })?.pts }
    }

    /// How often a restart looks for the audio clock before it runs.
    static let clockWait = 0.001
    /// How often a preview or a step, while paused, looks for the picture it waits for: soon at
    /// first, less often the longer the wait (a stalled network), at most `awaitedFrameWaitLimit`.
    static let awaitedFrameWait = 0.005
    static let awaitedFrameWaitLimit = 0.1
    /// Steps asked together are shown a frame's duration apart, and no further: a picture that
    /// lasts seconds (a still) does not hold the next step back.
    static let stepSpacingLimit = 0.1

    static func stepSpacing(after frame: Frame) -> Double { min(max(frame.duration, 0), stepSpacingLimit) }

    /// A preview or step with no picture queued yet (the decoder is still at it: playback
    /// starts with one picture queued): asks to be looked at again, as nothing else refreshes
    /// a paused output; nothing more once decoding has ended with none to come.
    private func awaitingFrame(at time: Double) -> VideoRefresh {
        // The end is marked after the last picture is queued: the queue looked at again after
        // it misses none queued since the look that found it empty.
        let isOver = track.hasFinishedDecoding(serial: serial) && track.withQueuedFrames { frames in
            dropStale(&frames)
            return frames.isEmpty
        }
        if isOver {
            awaitedSince = nil
            return VideoRefresh(frame: nil, nextDeadline: nil)
        }
        let since = awaitedSince ?? time
        awaitedSince = since
        let wait = min(max((time - since) / 2, Self.awaitedFrameWait), Self.awaitedFrameWaitLimit)
        return VideoRefresh(frame: nil, nextDeadline: time + wait)
    }

    func refresh(at time: Double) -> VideoRefresh {
        let (wanted, running, preview, step, followsAudio, loopEnd) = control.withLock {
            (wantedSerial, isRunning, previewWanted, stepsWanted > 0, self.followsAudio, self.loopEnd)
        }
        if wanted != serial { reset(to: wanted) }
        if preview, firstPresentedPts == nil {
            guard let frame = popFirst() else { return awaitingFrame(at: time) }
            awaitedSince = nil
            control.withLock { previewWanted = false }
            // A step asked before the preview came is shown after it.
            return VideoRefresh(frame: frame, nextDeadline: step && !running ? time + Self.stepSpacing(after: frame) : nil)
        }
        if step, !running {
            guard let frame = popFirst() else { return awaitingFrame(at: time) }
            awaitedSince = nil
            let isMoreWanted = control.withLock {
                stepsWanted = max(stepsWanted - 1, 0)
                return stepsWanted > 0
            }
            clock.set(frame.pts, at: time, loopOffset: frame.pts - frame.mediaPts, serial: serial, by: .video)
            clock.freeze(at: time, serial: serial, by: .video)
            return VideoRefresh(frame: frame, nextDeadline: isMoreWanted ? time + Self.stepSpacing(after: frame) : nil)
        }
        guard running else { return VideoRefresh(frame: nil, nextDeadline: nil) }
        if followedAudio, !followsAudio {
            // The sound has ended, perhaps with the clock frozen by its last underrun (a live
            // stream that stopped): the pictures keep the time from here, or the last would wait
            // for ever.
            clock.resume(at: time, serial: serial, by: .video)
        }
        followedAudio = followsAudio

        let mode: VideoSync.Mode = isUntimed ? .untimed : followsAudio ? .followAudio : .selfPaced
        let isFinished = track.hasFinishedDecoding(serial: serial)
        guard let now = clockTime(at: time, mode: mode) else {
            if isFinished, track.withQueuedFrames({ frames in dropStale(&frames); return frames.isEmpty }) {
                return endOfVideo(clock: lastPresentedEnd ?? 0, at: time, rate: clock.rate)
            }
            // The first audio callback is about to set the clock: look again soon, not at the
            // next poll, so the restart frame is not held back by the order the outputs start in.
            return VideoRefresh(frame: nil, nextDeadline: firstPresentedPts == nil ? time + Self.clockWait : nil)
        }
        let (frame, decision, isEmpty) = track.withQueuedFrames { frames in
            dropStale(&frames)
            let decision = VideoSync.decide(queued: frames.lazy.map(\.pts), clock: now, mode: mode, isRestart: firstPresentedPts == nil)
            for _ in 0..<decision.dropCount {
                let late = frames.removeFirst()
                if late.serial == serial { droppedFrames.add(1, ordering: .relaxed) }
                track.recycle(late)
            }
            let frame = decision.present == nil ? nil : frames.removeFirst()
            return (frame, decision, frames.isEmpty)
        }
        let rate = clock.rate
        let nextDeadline = decision.nextDue.map { time + ($0 - now) / rate }
        guard let frame else {
            if isFinished, isEmpty { return endOfVideo(clock: now, at: time, rate: rate) }
            return VideoRefresh(frame: nil, nextDeadline: nextDeadline)
        }
        guard frame.serial == serial else {
            track.recycle(frame)
            return VideoRefresh(frame: nil, nextDeadline: time)
        }
        if let loopEnd, frame.pts >= loopEnd - VideoSync.tolerance {
            // B reached: the player seeks back to A; nothing at or past B is shown.
            track.recycle(frame)
            if !loopEndReported {
                loopEndReported = true
                notifier.post(.loopEndReached, serial: serial)
            }
            return VideoRefresh(frame: nil, nextDeadline: nil)
        }
        if decision.resetClock { clock.set(frame.pts, at: time, loopOffset: frame.pts - frame.mediaPts, serial: serial, by: .video) }
        return VideoRefresh(frame: frame, nextDeadline: nextDeadline)
    }

    func didPresent(_ frame: Frame, at time: Double) {
        if firstPresentedPts == nil {
            control.withLock { firstPresentedPts = frame.pts }
            notifier.post(.firstFramePresented, serial: serial)
        }
        lastPresentedEnd = frame.pts + frame.duration
        lastPresentedMicroseconds.store(Int(saturating: frame.mediaPts * 1_000_000), ordering: .relaxed)
        presentedSize.store(frame.width << 32 | (frame.height & 0xffff_ffff), ordering: .relaxed)
        // A restart frame shown ahead of its sound (VideoSync.restartLead) is early on purpose,
        // not out of sync: A-V counts the frames the clock chose.
        if let now = clock.time(at: time), now + VideoSync.tolerance >= frame.pts {
            avDifferenceMicroseconds.store(Int(saturating: (now - frame.pts) * 1_000_000), ordering: .relaxed)
        }
        if frame.loopPass != lastPass {
            lastPass = frame.loopPass
            if control.withLock({ reportsLoops }) { notifier.post(.loopPassed, serial: serial) }
        }
        track.recycle(frame)
    }

    func subtitle(atMediaPts pts: Double) -> ShownSubtitle? { subtitles.shown(at: pts) }

    /// The clock now; a self-paced clock not yet running starts at the first frame.
    private func clockTime(at time: Double, mode: VideoSync.Mode) -> Double? {
        if let now = clock.time(at: time) { return now }
        guard mode != .followAudio else { return nil }  // the first audio callback sets it
        guard let start = firstPresentedPts ?? track.withQueuedFrames({ frames -> Double? in
            dropStale(&frames)
            return frames.first?.pts
        }) else { return nil }
        clock.set(start, at: time, loopOffset: 0, serial: serial, by: .video)
        return start
    }

    /// The last frame has been shown for its duration: the video has ended.
    private func endOfVideo(clock now: Double, at time: Double, rate: Double) -> VideoRefresh {
        let end = lastPresentedEnd ?? now
        if !isUntimed, now + VideoSync.tolerance < end {
            return VideoRefresh(frame: nil, nextDeadline: time + (end - now) / rate)
        }
        if !endReported {
            endReported = true
            notifier.post(.videoEnded, serial: serial)
        }
        return VideoRefresh(frame: nil, nextDeadline: nil)
    }

    private func popFirst() -> Frame? {
        track.withQueuedFrames { frames in
            dropStale(&frames)
            return frames.isEmpty ? nil : frames.removeFirst()
        }
    }

    private func dropStale(_ frames: inout RingBuffer<Frame>.Contents) {
        while let first = frames.first, first.serial != serial {
            track.recycle(frames.removeFirst())
        }
    }

    private func reset(to newSerial: Int) {
        control.withLock {
            serial = newSerial
            firstPresentedPts = nil
        }
        lastPresentedEnd = nil
        lastPass = 0
        endReported = false
        loopEndReported = false
        awaitedSince = nil
    }
}
