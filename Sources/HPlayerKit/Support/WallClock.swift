import Glibc

/// Unix time in seconds: for what is kept across runs (a cache entry's last use), where the
/// monotonic clock, which restarts with the machine, will not do.
enum WallClock {
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
