/// The kinds of stream the player plays (subtitles are read, not played as tracks).
public enum MediaKind: String, Sendable {
    case video
    case audio
}
