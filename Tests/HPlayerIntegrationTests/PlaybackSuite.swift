import HPlayerTestSupport
import Testing

/// Every test that plays media, one at a time in each test process. The test command runs several
/// processes at once for the tests that may share the machine, then those that may not, alone
/// (`.phased`: several measure timing in milliseconds).
@Suite(.serialized, .phased) enum Playback {}

struct ClipCase: Sendable, CustomTestStringConvertible {
    var codec: String
    var size: String
    var testDescription: String { "\(codec) \(size)" }
}
