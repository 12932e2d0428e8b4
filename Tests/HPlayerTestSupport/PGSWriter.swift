/// A Blu-ray PGS subtitle stream as a `.sup` file (what ffmpeg's sup demuxer reads), written
/// from pictures of palette indices: each display set is a presentation composition (PCS), a
/// window (WDS), a palette (PDS), the picture run-length coded (ODS) and an end segment; a
/// display set with no picture clears the screen.
public enum PGSWriter {
    /// A palette entry as PGS stores it: BT.601 limited-range YCrCb and an alpha.
    public struct Colour: Sendable {
        public var y: UInt8, cr: UInt8, cb: UInt8, alpha: UInt8

        public init(y: UInt8, cr: UInt8, cb: UInt8, alpha: UInt8) {
            (self.y, self.cr, self.cb, self.alpha) = (y, cr, cb, alpha)
        }
    }

    /// A picture placed at (x, y) of the video: `width * height` palette indices, row by row;
    /// index 0 is transparent unless the palette says otherwise.
    public struct Picture: Sendable {
        public var x: Int, y: Int, width: Int, height: Int
        public var indices: [UInt8]
        /// Entry i is palette index i + 1.
        public var palette: [Colour]

        public init(x: Int, y: Int, width: Int, height: Int, indices: [UInt8], palette: [Colour]) {
            (self.x, self.y, self.width, self.height, self.indices, self.palette) = (x, y, width, height, indices, palette)
        }
    }

    /// The stream: at each time (seconds), the picture shown from then, or nil to clear.
    public static func sup(videoWidth: Int, videoHeight: Int, displaySets: [(time: Double, picture: Picture?)]) -> [UInt8] {
        var out: [UInt8] = []
        for (number, set) in displaySets.enumerated() {
            let pts = UInt32((set.time * 90_000).rounded())
            func segment(_ type: UInt8, _ body: [UInt8]) {
                out += [0x50, 0x47] + be32(pts) + be32(0) + [type] + be16(body.count) + body
            }
            // PCS: the video's size, 25 fps (code 0x10), its number, epoch start for a picture
            // (everything before it forgotten), normal for a clear; no palette-only update.
            var composition = be16(videoWidth) + be16(videoHeight) + [0x10] + be16(number)
            composition += [set.picture == nil ? 0x00 : 0x80, 0x00, 0x00, set.picture == nil ? 0 : 1]
            if let picture = set.picture {
                composition += be16(0) + [0, 0x00] + be16(picture.x) + be16(picture.y)  // object 0 in window 0, uncropped
            }
            segment(0x16, composition)
            let window = set.picture.map { [UInt8(0)] + be16($0.x) + be16($0.y) + be16($0.width) + be16($0.height) } ?? []
            segment(0x17, [set.picture == nil ? 0 : 1] + window)
            if let picture = set.picture {
                var palette: [UInt8] = [0, 0]  // palette 0, version 0
                for (index, colour) in picture.palette.enumerated() {
                    palette += [UInt8(index + 1), colour.y, colour.cr, colour.cb, colour.alpha]
                }
                segment(0x14, palette)
                let data = be16(picture.width) + be16(picture.height) + runLengthCoded(picture)
                // Object 0, version 0, first and last in sequence; the length counts the size fields.
                segment(0x15, be16(0) + [0, 0xC0] + be24(data.count) + data)
            }
            segment(0x80, [])
        }
        return out
    }

    /// PGS's run-length code, line by line: a non-zero index alone is one pixel; 00 then a
    /// flag byte gives a run (its top two bits: colour given, long length); 00 00 ends a line.
    static func runLengthCoded(_ picture: Picture) -> [UInt8] {
        var out: [UInt8] = []
        for row in 0..<picture.height {
            let line = picture.indices[(row * picture.width)..<((row + 1) * picture.width)]
            var at = line.startIndex
            while at < line.endIndex {
                let colour = line[at]
                var run = 1
                while at + run < line.endIndex, line[at + run] == colour, run < 16383 { run += 1 }
                at += run
                switch (colour, run) {
                case (0, ..<64): out += [0, UInt8(run)]
                case (0, _): out += [0, 0x40 | UInt8(run >> 8), UInt8(run & 0xFF)]
                case (_, 1...2): out += Array(repeating: colour, count: run)
                case (_, ..<64): out += [0, 0x80 | UInt8(run), colour]
                default: out += [0, 0xC0 | UInt8(run >> 8), UInt8(run & 0xFF), colour]
                }
            }
            out += [0, 0]
        }
        return out
    }

    private static func be16(_ value: Int) -> [UInt8] { [UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)] }
    private static func be24(_ value: Int) -> [UInt8] { [UInt8((value >> 16) & 0xFF)] + be16(value) }
    private static func be32(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)] }
}
