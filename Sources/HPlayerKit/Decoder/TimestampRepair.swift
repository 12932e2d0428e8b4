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
    /// - Returns: the pts to use, or nil when neither the frame nor a prediction has one.
    mutating func pts(bestEffort: Int64?, duration: Int64) -> Int64? {
        let pts: Int64?
        switch (bestEffort, predicted) {
        case let (actual?, expected?): pts = actual < expected ? expected : actual
        case let (actual?, nil): pts = actual
        case let (nil, expected?): pts = expected
        case (nil, nil): pts = nil
        }
        if let pts { predicted = pts + max(duration, 0) }
        return pts
    }

    /// Forgets the prediction (after a seek the next timestamps start afresh).
    mutating func reset() { predicted = nil }
}
