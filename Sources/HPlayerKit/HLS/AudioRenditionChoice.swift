
/// The audio rendition the variant playing calls for: set by the variant's stream when it moves
/// to a variant of another AUDIO group, and followed by the rendition's stream from its next
/// segment boundary on.
package final class AudioRenditionChoice: Sendable {
    private let wantedURL = Locked<String?>(nil)

    package init() {}

    /// The media playlist URL of the rendition to play; nil before the first is chosen.
    var wanted: String? {
        get { wantedURL.withLock { $0 } }
        set { wantedURL.withLock { $0 = newValue } }
    }
}
