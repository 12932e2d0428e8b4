
/// What of one network input the disk cache holds, as media time: for the window's progress bar
/// and the IPC's demuxer-cache-state. The byte source sets the layout on its read thread; any
/// other thread asks for the ranges, which are worked out on that thread from the index (never
/// on the read or a real-time thread), at most once per `refreshInterval`. Only HPlayerKit's
/// own byte sources make one: a `ByteSource` of yours leaves `cacheMap` nil.
public final class CacheMap: Sendable {
    private struct State {
        var layout: CacheLayout?
        var ranges: [TimeRange] = []
        /// When `ranges` were worked out, and for which duration; nil: not yet, or the layout changed.
        var workedOut: (at: Double, duration: Double?)?
    }

    private let store: CacheStore
    private let state = Locked(State())

    /// The index is read again after this many seconds: what is fetched shows within it.
    static let refreshInterval = 1.0

    init(store: CacheStore) {
        self.store = store
    }

    /// What the input now reads: a file, or an HLS variant's segments; nil for nothing to show
    /// (a live stream, whose segments are not kept).
    func setLayout(_ layout: CacheLayout?) {
        state.withLock { state in
            guard state.layout != layout else { return }
            state = State(layout: layout)
        }
    }

    /// The media time the cache holds, sorted; `duration` places a progressive file's bytes.
    public func ranges(duration: Double?) -> [TimeRange] {
        let now = MonotonicClock.now()
        let (layout, memo): (CacheLayout?, [TimeRange]?) = state.withLock { state in
            if let worked = state.workedOut, worked.duration == duration, now - worked.at < Self.refreshInterval {
                return (state.layout, state.ranges)
            }
            return (state.layout, nil)
        }
        if let memo { return memo }
        let ranges = layout.map { workOut($0, duration: duration) } ?? []
        state.withLock { state in
            guard state.layout == layout else { return }
            state.ranges = ranges
            state.workedOut = (now, duration)
        }
        return ranges
    }

    private func workOut(_ layout: CacheLayout, duration: Double?) -> [TimeRange] {
        switch layout {
        case let .bytes(url):
            guard let duration, let length = store.entry(for: url)?.contentLength else { return [] }
            return CachedTimeRanges.progressive(fragments: store.fragments(for: url), contentLength: length, duration: duration)
        case let .segments(spans):
            return CachedTimeRanges.segments(spans, cached: store.holds(spans.map { ($0.url, $0.byteRange) }))
        }
    }
}
