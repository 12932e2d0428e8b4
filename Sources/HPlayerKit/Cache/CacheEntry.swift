/// What the disk cache knows of one URL: the response's description and validators, which say
/// whether the bytes kept for it are still the server's.
package struct CacheEntry: Equatable, Sendable {
    package var url: String
    package var contentLength: Int64?
    package var mimeType: String?
    package var entityTag: String?
    package var lastModified: String?
    package var acceptsRanges: Bool
    /// Unix seconds.
    package var lastUsed: Double
    /// Unix seconds: when the server last confirmed the validators.
    package var checkedAt: Double

    package init(url: String, contentLength: Int64? = nil, mimeType: String? = nil, entityTag: String? = nil,
                lastModified: String? = nil, acceptsRanges: Bool = true, lastUsed: Double = 0, checkedAt: Double = 0) {
        self.url = url
        self.contentLength = contentLength
        self.mimeType = mimeType
        self.entityTag = entityTag
        self.lastModified = lastModified
        self.acceptsRanges = acceptsRanges
        self.lastUsed = lastUsed
        self.checkedAt = checkedAt
    }

    /// What a server's response at `now` says of `url`.
    init(url: String, response: ByteSourceInfo, at now: Double) {
        self.init(url: url, contentLength: response.contentLength, mimeType: response.mimeType, entityTag: response.entityTag,
                  lastModified: response.lastModified, acceptsRanges: response.acceptsRanges, lastUsed: now, checkedAt: now)
    }

    /// Whether `other` describes the same bytes (same length, ETag and Last-Modified where either
    /// side knows them).
    ///
    /// A validator one side has and the other lacks counts as a change: the bytes cannot be shown
    /// to be the same, and mixing two versions of a file would corrupt playback.
    package func hasSameContent(as other: CacheEntry) -> Bool {
        contentLength == other.contentLength && entityTag == other.entityTag && lastModified == other.lastModified
    }
}

/// A run of a URL's bytes kept in one file of the disk cache.
package struct CachedFragment: Equatable, Sendable {
    package var offset: Int64
    package var length: Int64
    /// The absolute path of the fragment file.
    package var path: String
    package var end: Int64 { offset + length }

    package init(offset: Int64, length: Int64, path: String) {
        self.offset = offset
        self.length = length
        self.path = path
    }
}
