/// The HLS front end of the segment stream: a playlist (RFC 8216) is already the stream's model.
final class HLSManifests: ManifestFrontEnd {
    /// libavformat 5.1 reads SAMPLE-AES and encrypted fMP4, which this client does not yet.
    var leavesUnreadToLibavformat: Bool { true }
    var publishesSegmentsByClock: Bool { false }

    func read(_ url: String, isReload: Bool, through stream: SegmentStream) throws(MediaError) -> HLSPlaylist {
        let bytes = try stream.fetchDocument(url, isLive: isReload) { cached in !Self.isLive(cached) }
        do {
            return try HLSPlaylistParser.parse(String(decoding: bytes, as: UTF8.self))
        } catch {
            throw MediaError(input: url, reason: error.description)
        }
    }

    /// Whether `bytes` are a live media playlist, which the cache must not answer for.
    private static func isLive(_ bytes: [UInt8]) -> Bool {
        guard case let .media(media)? = try? HLSPlaylistParser.parse(String(decoding: bytes, as: UTF8.self)) else { return false }
        return media.isLive
    }
}
