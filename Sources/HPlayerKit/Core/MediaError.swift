/// What a user is told when media cannot be played: the input and the reason, one line.
/// Every error HPlayerKit throws or reports is one.
public struct MediaError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What failed: the path or URL of the media (or of a playlist, a subtitle file, a key), or
    /// the folder or device concerned.
    public let input: String
    /// Why, in a few words for a person ("No such file or directory", "HTTP 404").
    public let reason: String

    /// An error of `input`, for `reason`.
    public init(input: String, reason: String) {
        self.input = input
        self.reason = reason
    }

    /// "input: reason", the line to show.
    public var description: String { "\(input): \(reason)" }
}
