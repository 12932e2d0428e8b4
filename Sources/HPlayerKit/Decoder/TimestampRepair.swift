import CFFmpeg

/// Gives every frame a usable, increasing pts.
///
/// A frame's pts is its best_effort_timestamp unless there is none or it is earlier than the
/// previous frame's pts plus its duration; then it is that prediction. Works in stream ticks so no
/// rounding creeps in; callers pass durations rounded down so a rounded-up duration can never push
/// the prediction steadily ahead of the real timestamps.
struct TimestampRepair: Equatable {
    private var predicted: Int64?

    /// - Parameters:
    ///   - bestEffort: the frame's best_effort_timestamp, nil for AV_NOPTS_VALUE.
    ///   - duration: the frame's duration in the same ticks (0 when unknown).
    ///   - start: the pts of a first frame with no timestamp. The frames after it are predicted
    ///     from it, so a stream with no timestamps at all (raw H.264) is paced by its durations.
    mutating func pts(bestEffort: Int64?, duration: Int64, start: Int64) -> Int64 {
        let pts: Int64
        switch (bestEffort, predicted) {
        case let (actual?, expected?): pts = actual < expected ? expected : actual
        case let (actual?, nil): pts = actual
        case let (nil, expected?): pts = expected
        case (nil, nil): pts = start
        }
        predicted = pts + max(duration, 0)
        return pts
    }

    /// Forgets the prediction (after a seek the next timestamps start afresh).
    mutating func reset() { predicted = nil }
}

extension TimestampRepair {
    /// Where a decoded frame goes on its stream's timeline, the one way the player and the
    /// snapshots both stamp frames: its best-effort timestamp repaired, and its duration.
    /// - Parameters:
    ///   - nominalFrameDuration: seconds a picture lasts when its packet does not say.
    ///   - startTicks: the pts of a first frame with no timestamp and nothing to predict from.
    ///   - fixedFrameDuration: seconds every picture lasts whatever its packet says (a stream
    ///     without timestamps, paced at a chosen rate).
    /// - Returns: the pts in stream ticks, and the duration in seconds.
    mutating func stamp(_ frame: AVFrame, kind: MediaKind, timeBase: TimeBase, nominalFrameDuration: Double,
                        startTicks: Int64, fixedFrameDuration: Double? = nil) -> (ticks: Int64, duration: Double) {
        let bestEffort = frame.best_effort_timestamp == noTimestamp ? nil : frame.best_effort_timestamp
        let duration: Double
        switch kind {
        case .video:
            let packetDuration = frame.pkt_duration > 0 ? timeBase.seconds(frame.pkt_duration) ?? 0 : 0
            duration = fixedFrameDuration ?? (packetDuration > 0 ? packetDuration : nominalFrameDuration)
        case .audio:
            duration = frame.sample_rate > 0 ? Double(frame.nb_samples) / Double(frame.sample_rate) : 0
        }
        // Rounded down so a prediction never runs ahead of the stream's own timestamps.
        let durationTicks = Int64(saturating: duration * Double(timeBase.den) / Double(timeBase.num), rounding: .down)
        return (pts(bestEffort: bestEffort, duration: durationTicks, start: startTicks), duration)
    }
}
