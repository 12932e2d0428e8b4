/// An A-B loop: playback repeats from A to B (seconds from the start) while both are set and A
/// comes first.
public struct ABLoop: Equatable, Sendable {
    /// Where the loop starts, in seconds from the start; nil: not set.
    public var a: Double?
    /// Where the loop ends and goes back to A; nil: not set.
    public var b: Double?

    /// A loop with these points; with none, no loop.
    public init(a: Double? = nil, b: Double? = nil) {
        self.a = a
        self.b = b
    }

    /// Both points set, A before B.
    public var isActive: Bool {
        guard let a, let b else { return false }
        return a < b
    }

    /// mpv's `l`: the first press sets A where playback stands, the second B, the third clears.
    public func cycled(at position: Double) -> ABLoop {
        switch (a, b) {
        case (nil, _): return ABLoop(a: position)
        case (let a?, nil): return ABLoop(a: a, b: position)
        case (_?, _?): return ABLoop()
        }
    }

    /// What the on-screen notice says after a change, in mpv's words.
    public var notice: String {
        switch (a, b) {
        case (let a?, nil): return "A-B loop start: " + TimeText.clock(a)
        case (let a?, let b?): return "A-B loop: " + TimeText.clock(a) + " - " + TimeText.clock(b)
        default: return "Clear A-B loop"
        }
    }
}
