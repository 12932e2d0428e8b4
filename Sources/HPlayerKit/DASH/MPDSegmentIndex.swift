/// One segment of a Representation: where its bytes are (the first URL, then failover copies
/// on the other BaseURLs), and when it plays.
package struct DASHSegment: Equatable, Sendable {
    package var urls: [String]
    package var range: ClosedRange<Int64>?
    /// Seconds from the Period's start.
    package var start: Double
    package var duration: Double
    /// `$Number$`: segments of one AdaptationSet's Representations share numbers.
    package var number: Int
}

/// A Representation's segments and initialization section, from its segment description: a pure
/// function of the MPD (and, for SegmentBase, of the `sidx` box read from the media).
package enum MPDSegmentIndex {
    /// More segments than this in one Representation's Period is refused (a hostile timeline's
    /// `r` could ask for billions).
    package static let segmentLimit = 50_000
    /// A live Period's segments are worked out this far back from now at most, seconds.
    package static let liveWindowLimit = 600.0

    /// The initialization section: its URLs (failover order) and range; nil when there is none.
    package static func initialization(of representation: MPDRepresentation) throws(MPDError) -> (urls: [String], range: ClosedRange<Int64>?)? {
        switch representation.segments {
        case let .template(template)?:
            guard let initialization = template.initialization else { return nil }
            let path = try SegmentTemplateURL.fill(initialization, .init(representationID: representation.id, bandwidth: representation.bandwidth),
                                                   representation: representation.id)
            return (resolve(path, representation), nil)
        case let .list(list)?:
            return list.initialization.map { (resolve($0.url, representation), $0.range) }
        case let .base(base)?:
            return base.initialization.map { (resolve($0.url, representation), $0.range) }
        case nil:
            return nil
        }
    }

    /// The media time the Period starts at, in seconds (`presentationTimeOffset`).
    package static func presentationTimeOffset(of representation: MPDRepresentation) -> Double {
        switch representation.segments {
        case let .template(template)?: Double(template.timing.presentationTimeOffset) / Double(template.timing.timescale)
        case let .list(list)?: Double(list.timing.presentationTimeOffset) / Double(list.timing.timescale)
        case let .base(base)?: Double(base.presentationTimeOffset) / Double(base.timescale)
        case nil: 0
        }
    }

    /// The segments of `representation` in a Period lasting `periodDuration` (nil: unknown).
    /// `liveEdge`: for a dynamic MPD's `@duration` template, the seconds from the Period's start
    /// to now, and how far back segments stay available: the segments wholly available then.
    /// SegmentBase needs its sidx: `segments(of:sidx:indexEnd:)`.
    package static func segments(of representation: MPDRepresentation, periodDuration: Double?,
                                 liveEdge: (now: Double, depth: Double?)? = nil) throws(MPDError) -> [DASHSegment] {
        switch representation.segments {
        case let .template(template)?:
            let times = try segmentTimes(template.timing, periodDuration: periodDuration, count: nil, liveEdge: liveEdge, id: representation.id)
            var result: [DASHSegment] = []
            result.reserveCapacity(times.count)
            for time in times {
                let path = try SegmentTemplateURL.fill(template.media, .init(representationID: representation.id, bandwidth: representation.bandwidth,
                                                                             number: time.number, time: time.mediaTime),
                                                       representation: representation.id)
                result.append(DASHSegment(urls: resolve(path, representation), range: nil, start: time.start, duration: time.duration, number: time.number))
            }
            return result
        case let .list(list)?:
            let times = try segmentTimes(list.timing, periodDuration: periodDuration, count: list.segments.count, liveEdge: nil, id: representation.id)
            return zip(list.segments, times).map { resource, time in
                DASHSegment(urls: resolve(resource.url, representation), range: resource.range, start: time.start, duration: time.duration, number: time.number)
            }
        case .base?:
            throw MPDError("Representation \(representation.id): SegmentBase segments come from its sidx")
        case nil:
            // The BaseURL alone: one segment, the whole Period.
            return [DASHSegment(urls: representation.baseURLs, range: nil, start: 0, duration: periodDuration ?? 0, number: 1)]
        }
    }

    /// SegmentBase: the segments the `sidx` lists. `indexEnd` is the offset in the media just
    /// past the sidx box (its references count from there).
    package static func segments(of representation: MPDRepresentation, sidx: SidxBox, indexEnd: Int64) -> [DASHSegment] {
        var offset = indexEnd &+ Int64(sidx.firstOffset)
        let offsetTime: Int64
        if case let .base(base)? = representation.segments, base.timescale == sidx.timescale { offsetTime = base.presentationTimeOffset } else { offsetTime = 0 }
        var time = Int64(clamping: sidx.earliestPresentationTime) &- offsetTime
        var result: [DASHSegment] = []
        for (index, reference) in sidx.references.enumerated() {
            let size = Int64(reference.size)
            guard offset >= 0, offset <= Int64.max - size else { break }
            result.append(DASHSegment(urls: representation.baseURLs, range: offset...(offset + size - 1),
                                      start: Double(time) / Double(sidx.timescale),
                                      duration: Double(reference.duration) / Double(sidx.timescale), number: index + 1))
            offset += size
            time &+= Int64(reference.duration)
        }
        return result
    }

    struct SegmentTime: Equatable {
        var number: Int
        /// `$Time$`: in the media's timescale.
        var mediaTime: Int64
        /// Seconds from the Period's start.
        var start: Double
        var duration: Double
    }

    /// The segments' numbers and times, from a SegmentTimeline or a constant duration. `count`:
    /// a SegmentList's length, which bounds them. A manifest's numbers can be anything: times
    /// past Int64 are refused, never wrapped.
    static func segmentTimes(_ timing: MPDSegmentTiming, periodDuration: Double?, count: Int?, liveEdge: (now: Double, depth: Double?)?,
                             id: String) throws(MPDError) -> [SegmentTime] {
        let (duration, timeline, offset, startNumber) = (timing.duration, timing.timeline, timing.presentationTimeOffset, timing.startNumber)
        let scale = Double(timing.timescale)
        let tooLate = MPDError("Representation \(id): segment times past any presentation")
        var result: [SegmentTime] = []
        func add(_ index: Int, _ mediaTime: Int64, _ length: Int64) throws(MPDError) {
            guard result.count < segmentLimit else { throw MPDError("Representation \(id): more than \(segmentLimit) segments in a Period") }
            let (number, overflow) = startNumber.addingReportingOverflow(index)
            guard !overflow else { throw tooLate }
            result.append(SegmentTime(number: number, mediaTime: mediaTime, start: (Double(mediaTime) - Double(offset)) / scale, duration: Double(length) / scale))
        }
        /// `offset + index * length`, nil past Int64.
        func time(_ index: Int, _ length: Int64) -> Int64? {
            let (product, overflow) = Int64(index).multipliedReportingOverflow(by: length)
            guard !overflow else { return nil }
            let (sum, overflowed) = offset.addingReportingOverflow(product)
            return overflowed ? nil : sum
        }
        // Live: now, in media time; nothing after it is there yet.
        let now = liveEdge.map { offset.addingReportingOverflow(Int64(saturating: $0.now * scale, rounding: .down)).partialValue }
        if let timeline {
            // r="-1" repeats to the next S, else the Period's end, else (live) now.
            let periodEnd = periodDuration.map { offset.addingReportingOverflow(Int64(saturating: $0 * scale)).partialValue }
            let end = [periodEnd, now].compactMap { $0 }.min()
            var time: Int64 = timeline.first?.time ?? offset
            for (index, entry) in timeline.enumerated() {
                if let start = entry.time { time = start }
                var repeats = entry.repeatCount
                if repeats < 0 {
                    // Up to the next S's start, else the Period's end.
                    guard let until = index + 1 < timeline.count ? timeline[index + 1].time : end else {
                        throw MPDError("Representation \(id): a SegmentTimeline r=\"-1\" with no end to repeat to")
                    }
                    repeats = until > time ? Int(saturating: ((Double(until) - Double(time)) / Double(entry.duration)).rounded(.up)) - 1 : 0
                }
                guard repeats < segmentLimit else { throw MPDError("Representation \(id): more than \(segmentLimit) segments in a Period") }
                for _ in 0...repeats {
                    try add(result.count, time, entry.duration)
                    let (next, overflow) = time.addingReportingOverflow(entry.duration)
                    guard !overflow else { throw tooLate }
                    time = next
                }
            }
        } else if let duration {
            var total: Int
            var first = 0
            if let count {
                total = count
            } else if let liveEdge {
                // Wholly available: ended by now; and not yet out of the time-shift window (without
                // one, the last `liveWindowLimit` seconds: a player needs the live edge alone).
                total = max(0, Int(saturating: liveEdge.now * scale / Double(duration), rounding: .down))
                // A Period that has ended has no segment past its end.
                if let periodDuration { total = min(total, Int(saturating: periodDuration * scale / Double(duration), rounding: .up)) }
                let depth = min(liveEdge.depth ?? Self.liveWindowLimit, Self.liveWindowLimit)
                first = max(0, total - Int(saturating: depth * scale / Double(duration), rounding: .up))
            } else {
                guard let periodDuration else { throw MPDError("Representation \(id): segments of a duration in a Period of no known length") }
                total = Int(saturating: periodDuration * scale / Double(duration), rounding: .up)
            }
            guard total - first <= segmentLimit else { throw MPDError("Representation \(id): more than \(segmentLimit) segments in a Period") }
            for index in first..<max(first, total) {
                guard let mediaTime = time(index, duration) else { throw tooLate }
                guard result.count < segmentLimit else { throw MPDError("Representation \(id): more than \(segmentLimit) segments in a Period") }
                let (number, overflow) = startNumber.addingReportingOverflow(index)
                guard !overflow else { throw tooLate }
                result.append(SegmentTime(number: number, mediaTime: mediaTime, start: Double(index) * Double(duration) / scale, duration: Double(duration) / scale))
            }
            if liveEdge == nil, let periodDuration, let last = result.indices.last {
                // The last segment ends with the Period.
                result[last].duration = max(0, min(result[last].duration, periodDuration - result[last].start))
            }
        } else if let count {
            // A SegmentList of one: the whole Period.
            for _ in 0..<count { try add(result.count, offset, Int64(saturating: (periodDuration ?? 0) * scale)) }
        }
        if let now, timeline != nil {
            // Live: a timeline's segments that have not ended yet are not there.
            result.removeAll { $0.mediaTime.addingReportingOverflow(Int64(saturating: $0.duration * scale)).partialValue > now }
        }
        return result
    }

    /// A segment's path against each of the Representation's BaseURLs (nil: the BaseURLs themselves).
    static func resolve(_ path: String?, _ representation: MPDRepresentation) -> [String] {
        guard let path else { return representation.baseURLs }
        var result: [String] = []
        for base in representation.baseURLs {
            let url = HLSURL.resolve(path, against: base)
            if !result.contains(url) { result.append(url) }
        }
        return result
    }
}
