import Testing

/// Every test that plays media, one at a time: several measure timing in milliseconds.
@Suite(.serialized) enum Playback {}

struct ClipCase: Sendable, CustomTestStringConvertible {
    var codec: String
    var size: String
    var testDescription: String { "\(codec) \(size)" }
}
