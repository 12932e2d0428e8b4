import Glibc

/// Seconds on CLOCK_MONOTONIC: the time base of every clock, log and deadline in the engine.
public enum MonotonicClock {
    /// Seconds since an arbitrary point (the boot): only differences mean anything. Any thread,
    /// real-time ones included.
    @inline(__always)
    public static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
    }

    /// Sleeps until `deadline` (absolute monotonic seconds); returns at once if it has passed.
    public static func sleep(until deadline: Double) {
        guard deadline > now() else { return }
        var time = timespec()
        let seconds = deadline.rounded(.down)
        time.tv_sec = Int(saturating: seconds)
        time.tv_nsec = Int(saturating: (deadline - seconds) * 1e9, rounding: .down)
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &time, nil) == EINTR {}
    }
}
