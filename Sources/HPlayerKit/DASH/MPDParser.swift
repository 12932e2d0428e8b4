/// Reads an MPD (ISO/IEC 23009-1) into `MPD`: libxml2 parses the XML (XMLTree), the rest is
/// pure. Inheritance is resolved here: BaseURLs (several at a level are failover copies),
/// segment descriptions (SegmentBase, SegmentList, SegmentTemplate at Period, AdaptationSet
/// and Representation, a lower level's attributes and children overriding a higher's), and the
/// AdaptationSet's attributes a Representation leaves out.
package enum MPDParser {
    /// BaseURLs kept per Representation: failover copies past these are not tried.
    static let baseURLLimit = 4

    /// The MPD in `bytes`, fetched from `url` (what relative BaseURLs resolve against).
    package static func parse(_ bytes: [UInt8], url: String) throws(MPDError) -> MPD {
        let root: XMLElement
        do { root = try XMLTree.parse(bytes) } catch { throw MPDError(error.reason) }
        return try parse(root, url: url)
    }

    package static func parse(_ root: XMLElement, url: String) throws(MPDError) -> MPD {
        guard root.name == "MPD" else { throw MPDError("the document is \(root.name), not an MPD") }
        var mpd = MPD()
        switch root["type"] ?? "static" {
        case "static": mpd.isDynamic = false
        case "dynamic": mpd.isDynamic = true
        case let other: throw MPDError("MPD type \"\(other)\", neither static nor dynamic")
        }
        mpd.mediaPresentationDuration = try duration(root, "mediaPresentationDuration")
        mpd.timeShiftBufferDepth = try duration(root, "timeShiftBufferDepth")
        mpd.suggestedPresentationDelay = try duration(root, "suggestedPresentationDelay")
        mpd.minimumUpdatePeriod = try duration(root, "minimumUpdatePeriod")
        mpd.minBufferTime = try duration(root, "minBufferTime")
        if let text = root["availabilityStartTime"] {
            guard let time = ISOTime.dateTime(text) else { throw MPDError("availabilityStartTime \"\(text)\" is not a date and time") }
            mpd.availabilityStartTime = time
        }
        if let target = root.element("ServiceDescription")?.element("Latency")?["target"], let milliseconds = Double(target) {
            mpd.latencyTarget = milliseconds / 1000
        }
        mpd.utcTimings = root.elements("UTCTiming").compactMap { timing in
            guard let scheme = timing["schemeIdUri"], let value = timing["value"] else { return nil }
            return MPDUTCTiming(scheme: scheme, value: value)
        }
        let bases = baseURLs(of: root, parents: [url])
        let periods = root.elements("Period")
        guard !periods.isEmpty else { throw MPDError("an MPD with no Period") }
        var start = 0.0
        for (index, element) in periods.enumerated() {
            if let own = try duration(element, "start") { start = own }
            var period = MPDPeriod(id: element["id"], start: start, duration: try duration(element, "duration"))
            if period.duration == nil {
                if index + 1 < periods.count, let next = try duration(periods[index + 1], "start") {
                    period.duration = next - start
                } else if index + 1 == periods.count, let total = mpd.mediaPresentationDuration {
                    period.duration = total - start
                }
            }
            let periodBases = baseURLs(of: element, parents: bases)
            let periodSegments = SegmentDescription(element)
            for set in element.elements("AdaptationSet") {
                period.adaptationSets.append(try adaptationSet(set, bases: periodBases, segments: periodSegments))
            }
            mpd.periods.append(period)
            start += period.duration ?? 0
        }
        return mpd
    }

    private static func adaptationSet(_ element: XMLElement, bases: [String], segments: SegmentDescription) throws(MPDError) -> MPDAdaptationSet {
        let setBases = baseURLs(of: element, parents: bases)
        let setSegments = segments.overridden(by: SegmentDescription(element))
        let protections = contentProtections(of: element)
        var set = MPDAdaptationSet(id: element["id"], contentType: .other, language: element["lang"],
                                   roles: element.elements("Role").compactMap { $0["value"] })
        for (index, child) in element.elements("Representation").enumerated() {
            var representation = MPDRepresentation(id: child["id"] ?? "\(index)", bandwidth: 0, baseURLs: baseURLs(of: child, parents: setBases))
            // At most 2^40 b/s: a variant's bandwidth is the sum of two.
            guard let bandwidth = (child["bandwidth"]).flatMap({ Int($0) }), bandwidth >= 0, bandwidth < 1 << 40 else {
                throw MPDError("Representation \(representation.id) has no bandwidth")
            }
            representation.bandwidth = bandwidth
            representation.width = (child["width"] ?? element["width"]).flatMap { Int($0) }
            representation.height = (child["height"] ?? element["height"]).flatMap { Int($0) }
            representation.frameRate = (child["frameRate"] ?? element["frameRate"]).flatMap(frameRate)
            representation.codecs = (child["codecs"] ?? element["codecs"]).map { $0.split(separator: ",").map { String(Substring($0).trimmingWhitespace()) } } ?? []
            representation.mimeType = child["mimeType"] ?? element["mimeType"]
            representation.protections = protections + contentProtections(of: child)
            representation.segments = try setSegments.overridden(by: SegmentDescription(child)).resolved(representation: representation.id)
            set.representations.append(representation)
        }
        set.contentType = contentType(element)
        set.label = element.element("Label").map { String(Substring($0.text).trimmingWhitespace()) }
        return set
    }

    /// The AdaptationSet's kind: `contentType`, else the MIME type's, else its codecs'.
    static func contentType(_ element: XMLElement) -> MPDAdaptationSet.ContentType {
        if let type = element["contentType"].flatMap(MPDAdaptationSet.ContentType.init(rawValue:)) { return type }
        let representation = element.element("Representation")
        let mime = element["mimeType"] ?? representation?["mimeType"] ?? ""
        let codecs = element["codecs"] ?? representation?["codecs"] ?? ""
        if mime.hasPrefix("video/") { return .video }
        if mime.hasPrefix("audio/") { return .audio }
        if mime.hasPrefix("text/") || mime.hasPrefix("application/ttml") || codecs.hasPrefix("stpp") || codecs.hasPrefix("wvtt") { return .text }
        return .other
    }

    private static func contentProtections(of element: XMLElement) -> [MPDContentProtection] {
        element.elements("ContentProtection").compactMap { child -> MPDContentProtection? in
            guard let scheme = child["schemeIdUri"] else { return nil }
            let licenseURL = child.children.first { $0.name == "Laurl" || $0.name == "laurl" }
                .map { String($0.text[...].trimmingWhitespace()) }.flatMap { $0.isEmpty ? nil : $0 }
            return MPDContentProtection(schemeIdUri: scheme, value: child["value"], defaultKID: child["default_KID"] ?? child["cenc:default_KID"],
                                        licenseURL: licenseURL)
        }
    }

    /// The element's BaseURLs resolved against each of its parent's (the parent's own when it
    /// names none), at most `baseURLLimit`.
    static func baseURLs(of element: XMLElement, parents: [String]) -> [String] {
        let own = element.elements("BaseURL").map { String(Substring($0.text).trimmingWhitespace()) }.filter { !$0.isEmpty }
        guard !own.isEmpty else { return parents }
        var result: [String] = []
        for reference in own {
            for parent in parents {
                let url = HLSURL.resolve(reference, against: parent)
                if !result.contains(url) { result.append(url) }
            }
        }
        return Array(result.prefix(baseURLLimit))
    }

    /// "25", "30000/1001".
    static func frameRate(_ text: String) -> Double? {
        let parts = text.split(separator: "/")
        guard let numerator = parts.first.flatMap({ Double($0) }) else { return nil }
        guard parts.count == 2 else { return parts.count == 1 ? numerator : nil }
        guard let denominator = Double(parts[1]), denominator > 0 else { return nil }
        return numerator / denominator
    }

    private static func duration(_ element: XMLElement, _ name: String) throws(MPDError) -> Double? {
        guard let text = element[name] else { return nil }
        guard let seconds = ISOTime.duration(text), seconds >= 0 else { throw MPDError("\(name) \"\(text)\" is not a duration") }
        return seconds
    }
}

/// A manifest that cannot be read, and why.
package struct MPDError: Error, Equatable, CustomStringConvertible, Sendable {
    package var reason: String
    package init(_ reason: String) { self.reason = reason }
    package var description: String { reason }
}

/// The segment descriptions one level of the tree gives, each kind apart, inherited level by
/// level: a lower level's attributes override, its children (Initialization, SegmentTimeline,
/// SegmentURLs, RepresentationIndex) replace.
struct SegmentDescription {
    var template: XMLElement?
    var list: XMLElement?
    var base: XMLElement?
    /// The lowest level's kinds: the one used (a template before a list before a base).
    var lowestKinds: [String] = []

    init(_ element: XMLElement) {
        template = element.element("SegmentTemplate")
        list = element.element("SegmentList")
        base = element.element("SegmentBase")
        lowestKinds = [template, list, base].compactMap { $0?.name }
    }

    private init(template: XMLElement?, list: XMLElement?, base: XMLElement?, lowestKinds: [String]) {
        self.template = template
        self.list = list
        self.base = base
        self.lowestKinds = lowestKinds
    }

    func overridden(by lower: SegmentDescription) -> SegmentDescription {
        SegmentDescription(template: Self.merge(template, lower.template), list: Self.merge(list, lower.list),
                           base: Self.merge(base, lower.base), lowestKinds: lower.lowestKinds.isEmpty ? lowestKinds : lower.lowestKinds)
    }

    private static func merge(_ upper: XMLElement?, _ lower: XMLElement?) -> XMLElement? {
        guard let upper else { return lower }
        guard var lower else { return upper }
        lower.attributes.merge(upper.attributes) { own, _ in own }
        for child in upper.children where lower.element(child.name) == nil { lower.children.append(child) }
        return lower
    }

    /// The description a Representation uses; nil when none is given (its BaseURL is then one segment).
    func resolved(representation id: String) throws(MPDError) -> MPDSegmentInfo? {
        let kind = lowestKinds.first ?? [template, list, base].compactMap { $0?.name }.first
        switch kind {
        case "SegmentTemplate": return .template(try templateInfo(template!, id))
        case "SegmentList": return .list(try listInfo(list!, id))
        case "SegmentBase": return .base(try baseInfo(base!, id))
        default: return nil
        }
    }

    private func templateInfo(_ element: XMLElement, _ id: String) throws(MPDError) -> MPDSegmentTemplate {
        guard let media = element["media"] else { throw MPDError("Representation \(id): a SegmentTemplate with no media") }
        try SegmentTemplateURL.validate(media, representation: id)
        let initialization = element["initialization"] ?? element.element("Initialization")?["sourceURL"]
        if let initialization { try SegmentTemplateURL.validate(initialization, representation: id) }
        var info = MPDSegmentTemplate(media: media, initialization: initialization)
        info.timing = try timing(element, id)
        guard info.timing.duration != nil || info.timing.timeline != nil else {
            throw MPDError("Representation \(id): a SegmentTemplate with neither duration nor SegmentTimeline")
        }
        return info
    }

    private func listInfo(_ element: XMLElement, _ id: String) throws(MPDError) -> MPDSegmentList {
        var info = MPDSegmentList(initialization: try resource(element.element("Initialization"), urlAttribute: "sourceURL", rangeAttribute: "range", id),
                                  segments: [])
        for url in element.elements("SegmentURL") {
            info.segments.append(try resource(url, urlAttribute: "media", rangeAttribute: "mediaRange", id)!)
        }
        info.timing = try timing(element, id)
        guard info.timing.duration != nil || info.timing.timeline != nil || info.segments.count <= 1 else {
            throw MPDError("Representation \(id): a SegmentList of several segments with neither duration nor SegmentTimeline")
        }
        return info
    }

    private func baseInfo(_ element: XMLElement, _ id: String) throws(MPDError) -> MPDSegmentBase {
        var info = MPDSegmentBase(initialization: try resource(element.element("Initialization"), urlAttribute: "sourceURL", rangeAttribute: "range", id))
        if let text = element["indexRange"] {
            guard let range = Self.byteRange(text) else { throw MPDError("Representation \(id): indexRange \"\(text)\" is not a byte range") }
            info.indexRange = range
        }
        let timing = try timing(element, id)
        (info.timescale, info.presentationTimeOffset) = (timing.timescale, timing.presentationTimeOffset)
        return info
    }

    private func resource(_ element: XMLElement?, urlAttribute: String, rangeAttribute: String, _ id: String) throws(MPDError) -> MPDResource? {
        guard let element else { return nil }
        var resource = MPDResource(url: element[urlAttribute])
        if let text = element[rangeAttribute] {
            guard let range = Self.byteRange(text) else { throw MPDError("Representation \(id): \(rangeAttribute) \"\(text)\" is not a byte range") }
            resource.range = range
        }
        return resource
    }

    private func timing(_ element: XMLElement, _ id: String) throws(MPDError) -> MPDSegmentTiming {
        var timing = MPDSegmentTiming()
        func number(_ name: String) throws(MPDError) -> Int64? {
            guard let text = element[name] else { return nil }
            guard let value = Int64(text), value >= 0 else { throw MPDError("Representation \(id): \(name) \"\(text)\" is not a whole number") }
            return value
        }
        if let value = try number("timescale") {
            guard value > 0 else { throw MPDError("Representation \(id): timescale 0") }
            timing.timescale = value
        }
        if let value = try number("duration") {
            guard value > 0 else { throw MPDError("Representation \(id): a segment duration of 0") }
            timing.duration = value
        }
        if let value = try number("startNumber") {
            // Segment numbers stay under 2^40: a Period's are told apart above that.
            guard value < 1 << 40 else { throw MPDError("Representation \(id): startNumber \(value) past any stream") }
            timing.startNumber = Int(value)
        }
        if let value = try number("presentationTimeOffset") { timing.presentationTimeOffset = value }
        if let entries = element.element("SegmentTimeline")?.elements("S") {
            var result: [MPDTimelineEntry] = []
            for entry in entries {
                guard let text = entry["d"], let d = Int64(text), d > 0 else { throw MPDError("Representation \(id): a SegmentTimeline S with no duration") }
                let repeatCount = entry["r"].flatMap { Int($0) } ?? 0
                guard repeatCount >= -1 else { throw MPDError("Representation \(id): a SegmentTimeline S repeated \(repeatCount) times") }
                result.append(MPDTimelineEntry(time: entry["t"].flatMap { Int64($0) }, duration: d, repeatCount: repeatCount))
            }
            timing.timeline = result
        }
        return timing
    }

    /// "834-64332", both ends in, under 2^48 (256 TiB: past any file, and far from Int64's end,
    /// so that a range's length and end are always sums that fit).
    static func byteRange(_ text: String) -> ClosedRange<Int64>? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let first = Int64(parts[0].trimmingWhitespace()), let last = Int64(parts[1].trimmingWhitespace()),
              first >= 0, last >= first, last < 1 << 48 else { return nil }
        return first...last
    }
}
