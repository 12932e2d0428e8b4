/// What a user is told when media cannot be played: the input and the reason, one line.
public struct MediaError: Error, CustomStringConvertible, Equatable, Sendable {
    public let input: String
    public let reason: String

    public init(input: String, reason: String) {
        self.input = input
        self.reason = reason
    }

    public var description: String { "\(input): \(reason)" }
}
