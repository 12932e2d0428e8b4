/// mpv's playlist as a value: the entries in order, the one playing, and where playback goes
/// when it ends or is sent elsewhere. Pure: the front end applies what it decides (stopping the
/// file playing, starting the next), and tests go through it by table.
///
/// Each file started is a *turn*: a stop asked for while turn T plays stops turn T and no later
/// one, so a request racing the start of the next file never stops that file by mistake.
package struct PlaylistQueue: Equatable, Sendable {
    package struct Entry: Equatable, Sendable {
        /// mpv's playlist entry id: given once, never reused.
        package let id: Int
        package let url: String
    }

    /// How many times the whole list plays (mpv's --loop-playlist): nil forever.
    package enum Passes: Equatable, Sendable {
        case count(Int)
        case forever
    }

    package private(set) var entries: [Entry] = []
    /// The entry playing, or the last one that did; nil before the first.
    package private(set) var playing: Int?
    /// The turn of the file playing (0 before the first).
    package private(set) var turn = 0
    /// Where playback goes when the file playing stops, when a command said so; `entries.count`
    /// stops playback.
    private var pending: Int?
    private var passesLeft: Passes
    private var lastID = 0
    private var hasStarted = false
    /// Playback came to the end of the list (or was stopped): only a command that says where to
    /// play starts it again (mpv's idle, with --idle).
    package private(set) var isOver = false

    package init(_ urls: [String] = [], passes: Passes = .count(1), start: Int = 0) {
        passesLeft = passes
        for url in urls { append(url) }
        if start > 0, start < entries.count { pending = start }
    }

    // MARK: Playing

    /// The entry to play now that the one playing ended or stopped, as the next turn; nil when
    /// playback is over.
    package mutating func advance() -> Entry? {
        if isOver, pending == nil { return nil }
        var next: Int
        if let pending {
            next = pending
            self.pending = nil
        } else if !hasStarted {
            next = 0
        } else {
            next = (playing ?? -1) + 1
            if next >= entries.count {
                switch passesLeft {
                case .forever: next = 0
                case .count(let left) where left > 1:
                    passesLeft = .count(left - 1)
                    next = 0
                case .count: next = entries.count
                }
            }
        }
        hasStarted = true
        guard next < entries.count else {
            playing = nil
            isOver = true
            return nil
        }
        isOver = false
        playing = next
        turn += 1
        return entries[next]
    }

    // MARK: Commands
    // Those that send playback elsewhere return true when the file playing (turn `turn`) is to
    // stop for it; the front end stops it, and `advance` then goes where they said.

    /// mpv's playlist-next: the entry after the one playing (the first again when the list
    /// loops). At the end, `force` stops playback; otherwise nothing happens (false).
    package mutating func next(force: Bool) -> Bool {
        // Once playback is over there is no next (mpv's); the one before is the last.
        if isOver, pending == nil { return false }
        guard let target = step(by: 1, consumingAPass: true) else {
            guard force else { return false }
            pending = entries.count
            return true
        }
        pending = target
        return true
    }

    /// mpv's playlist-prev: the entry before the one playing (the last when the list loops).
    package mutating func previous(force: Bool) -> Bool {
        guard let target = step(by: -1, consumingAPass: false) else {
            guard force else { return false }
            pending = entries.count
            return true
        }
        pending = target
        return true
    }

    /// mpv's playlist-pos set: play entry `index`; an index of no entry (-1, say) stops
    /// playback, as mpv's.
    package mutating func play(at index: Int) {
        pending = entries.indices.contains(index) ? index : entries.count
    }

    /// Adds `url` at the end; its id. `startsWhenOver`: mpv's append-play, which plays it when
    /// playback is over.
    @discardableResult
    package mutating func append(_ url: String, startsWhenOver: Bool = false) -> Int {
        lastID += 1
        entries.append(Entry(id: lastID, url: url))
        if startsWhenOver, isOver, pending == nil { pending = entries.count - 1 }
        return lastID
    }

    /// mpv's loadfile and loadlist `replace`: these entries only, played from the first; the
    /// file playing stops. The first one's id.
    package mutating func replace(with urls: [String]) -> Int? {
        entries = []
        playing = nil
        pending = 0
        hasStarted = true
        for url in urls { append(url) }
        return urls.isEmpty ? nil : lastID - urls.count + 1
    }

    /// mpv's playlist-clear: every entry but the current one (the one a command sent playback
    /// to, else the one playing). A stop asked for stays asked for.
    package mutating func clear() {
        let stops = pending == entries.count
        guard let current = current else {
            entries = []
            playing = nil
            pending = stops ? 0 : nil
            return
        }
        let kept = entries[current]
        entries = [kept]
        if pending == current { pending = 0 } else if stops { pending = 1 } else { pending = nil }
        playing = playing == current ? 0 : nil
    }

    /// mpv's current entry: where a command sent playback, else the one playing.
    private var current: Int? {
        if let pending, entries.indices.contains(pending) { return pending }
        return playing.flatMap { entries.indices.contains($0) ? $0 : nil }
    }

    /// mpv's playlist-remove. Removing the entry playing stops it, and playback goes on with the
    /// entry after it (true: stop the file playing).
    package mutating func remove(at index: Int) -> (removed: Bool, stopsPlaying: Bool) {
        guard entries.indices.contains(index) else { return (false, false) }
        entries.remove(at: index)
        pending = pending.map { $0 > index ? $0 - 1 : $0 }
        guard let playing else { return (true, false) }
        if index < playing {
            self.playing = playing - 1
            return (true, false)
        }
        guard index == playing else { return (true, false) }
        // The entry after the removed one now has its index; playback goes on there. Nothing
        // plays until it does.
        pending = pending ?? index
        self.playing = nil
        return (true, true)
    }

    /// mpv's playlist-move: the entry at `from` takes the place of the entry at `to` (which moves
    /// after it); `to` may be the count, the end.
    package mutating func move(from: Int, to: Int) -> Bool {
        guard entries.indices.contains(from), (0...entries.count).contains(to) else { return false }
        guard from != to, from + 1 != to else { return true }
        let entry = entries.remove(at: from)
        let target = to > from ? to - 1 : to
        entries.insert(entry, at: target)
        func moved(_ index: Int) -> Int {
            if index == from { return target }
            var index = index
            if index > from { index -= 1 }
            if index >= target { index += 1 }
            return index
        }
        playing = playing.map(moved)
        pending = pending.map { $0 == entries.count ? $0 : moved($0) }
        return true
    }

    /// The list in another order (mpv's --shuffle, before playback starts).
    package mutating func shuffle(using generator: inout some RandomNumberGenerator) {
        entries.shuffle(using: &generator)
    }

    /// The index `offset` away from the current entry; past an end, round to the other end when
    /// the list plays again (forever, or with passes left: going forward takes one); nil otherwise.
    private mutating func step(by offset: Int, consumingAPass: Bool) -> Int? {
        guard !entries.isEmpty else { return nil }
        let target = (current ?? (offset > 0 ? -1 : entries.count)) + offset
        if entries.indices.contains(target) { return target }
        switch passesLeft {
        case .forever: break
        case .count(let left) where left > 1: if consumingAPass { passesLeft = .count(left - 1) }
        case .count: return nil
        }
        return (target + entries.count) % entries.count
    }
}
