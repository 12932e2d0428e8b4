import HPlayerKit
import HPlayerTestSupport
import Testing

/// mpv's playlist, decided by table: where playback goes at each end and command.
@Suite struct PlaylistQueueTests {
    /// What a queue does as a script of steps: each advance's url (nil at the end), each
    /// command's answer.
    enum Step: Sendable, CustomStringConvertible {
        case advance(String?)
        case next(force: Bool, Bool)
        case previous(force: Bool, Bool)
        case play(Int)
        case remove(Int, removed: Bool, stops: Bool)
        case move(Int, Int, Bool)
        case clear
        case append(String)
        case appendPlay(String)
        case replace([String])
        case entries([String])
        case playing(Int?)

        var description: String { "\(self)" }
    }

    static func run(_ queue: inout PlaylistQueue, _ steps: [Step]) {
        for (index, step) in steps.enumerated() {
            switch step {
            case .advance(let url): #expect(queue.advance()?.url == url, "step \(index)")
            case .next(let force, let done): #expect(queue.next(force: force) == done, "step \(index)")
            case .previous(let force, let done): #expect(queue.previous(force: force) == done, "step \(index)")
            case .play(let at): queue.play(at: at)
            case .remove(let at, let removed, let stops):
                let result = queue.remove(at: at)
                #expect(result.removed == removed && result.stopsPlaying == stops, "step \(index)")
            case .move(let from, let to, let done): #expect(queue.move(from: from, to: to) == done, "step \(index)")
            case .clear: queue.clear()
            case .append(let url): queue.append(url)
            case .appendPlay(let url): queue.append(url, startsWhenOver: true)
            case .replace(let urls): _ = queue.replace(with: urls)
            case .entries(let urls): #expect(queue.entries.map(\.url) == urls, "step \(index)")
            case .playing(let playing): #expect(queue.playing == playing, "step \(index)")
            }
        }
    }

    @Test("Plays in order, once, then ends")
    func inOrder() {
        var queue = PlaylistQueue(["a", "b", "c"])
        Self.run(&queue, [.advance("a"), .advance("b"), .advance("c"), .advance(nil), .playing(nil)])
    }

    @Test("--loop-playlist: N passes, or forever")
    func passes() {
        var twice = PlaylistQueue(["a", "b"], passes: .count(2))
        Self.run(&twice, [.advance("a"), .advance("b"), .advance("a"), .advance("b"), .advance(nil)])
        var forever = PlaylistQueue(["a"], passes: .forever)
        Self.run(&forever, [.advance("a"), .advance("a"), .advance("a")])
    }

    @Test("--playlist-start, and a start past the end plays from the first")
    func start() {
        var queue = PlaylistQueue(["a", "b", "c"], start: 2)
        Self.run(&queue, [.advance("c"), .advance(nil)])
        var past = PlaylistQueue(["a", "b"], start: 5)
        Self.run(&past, [.advance("a")])
    }

    @Test("Each file started is a turn of its own")
    func turns() {
        var queue = PlaylistQueue(["a", "b"], passes: .count(2))
        #expect(queue.turn == 0)
        _ = queue.advance()
        #expect(queue.turn == 1)
        _ = queue.advance()
        _ = queue.advance()
        #expect(queue.turn == 3)
    }

    @Test("playlist-next and -prev: weak does nothing at an end, force stops playback; a looping list goes round")
    func nextAndPrevious() {
        var queue = PlaylistQueue(["a", "b", "c"])
        Self.run(&queue, [
            .advance("a"), .previous(force: false, false), .next(force: false, true), .advance("b"),
            .next(force: false, true), .advance("c"), .next(force: false, false), .previous(force: false, true), .advance("b"),
            .next(force: true, true), .advance("c"), .next(force: true, true), .advance(nil),
        ])
        var looping = PlaylistQueue(["a", "b"], passes: .forever)
        Self.run(&looping, [.advance("a"), .previous(force: false, true), .advance("b"), .next(force: false, true), .advance("a")])
        // A pass left: next at the end starts it, and it is the last.
        var twice = PlaylistQueue(["a", "b"], passes: .count(2))
        Self.run(&twice, [.advance("a"), .advance("b"), .next(force: false, true), .advance("a"), .advance("b"), .advance(nil)])
    }

    @Test("playlist-pos: any entry; an index of none stops playback, as mpv's")
    func play() {
        var queue = PlaylistQueue(["a", "b", "c"])
        Self.run(&queue, [.advance("a"), .play(2), .advance("c"), .play(0), .advance("a"), .play(-1), .advance(nil)])
        var past = PlaylistQueue(["a", "b"])
        Self.run(&past, [.advance("a"), .play(7), .advance(nil)])
    }

    @Test("playlist-remove: before the entry playing, after it, and the entry playing itself (play goes on with the one after)")
    func remove() {
        var queue = PlaylistQueue(["a", "b", "c", "d"])
        Self.run(&queue, [
            .advance("a"), .advance("b"), .remove(0, removed: true, stops: false), .playing(0), .entries(["b", "c", "d"]),
            .remove(2, removed: true, stops: false), .entries(["b", "c"]),
            .remove(0, removed: true, stops: true), .entries(["c"]), .advance("c"), .advance(nil),
            .remove(5, removed: false, stops: false),
        ])
        // The last entry removed while it plays: playback ends.
        var last = PlaylistQueue(["a", "b"])
        Self.run(&last, [.advance("a"), .advance("b"), .remove(1, removed: true, stops: true), .advance(nil)])
    }

    @Test("After the entry playing is removed, nothing is current until the next starts, and < counts from where play goes")
    func removeThenPrevious() {
        var queue = PlaylistQueue(["a", "b", "c"])
        Self.run(&queue, [.advance("a"), .advance("b"), .remove(1, removed: true, stops: true), .playing(nil),
                          .previous(force: false, true), .advance("a")])
    }

    @Test("playlist-clear keeps where a command sent playback: a replaced list's new entry, or a stop")
    func clearKeepsWherePlayGoes() {
        var replaced = PlaylistQueue(["a", "b"])
        Self.run(&replaced, [.advance("a"), .replace(["x", "y"]), .clear, .entries(["x"]), .advance("x"), .advance(nil)])
        var over = PlaylistQueue(["a", "b"])
        Self.run(&over, [.advance("a"), .advance("b"), .advance(nil), .next(force: false, false), .next(force: true, false),
                         .advance(nil), .previous(force: false, true), .advance("b")])
        var stopped = PlaylistQueue(["a", "b"])
        Self.run(&stopped, [.advance("a"), .advance("b"), .next(force: true, true), .clear, .entries(["b"]), .advance(nil)])
    }

    @Test("With passes left, < at the first goes round to the last without taking one; > from where a > sent play, not from the entry playing")
    func passesAndSteps() {
        var back = PlaylistQueue(["a", "b"], passes: .count(3))
        Self.run(&back, [.advance("a"), .previous(force: false, true), .advance("b"), .advance("a"), .advance("b"), .advance("a"),
                         .advance("b"), .advance(nil)])
        var twice = PlaylistQueue(["a", "b"], passes: .count(3))
        Self.run(&twice, [.advance("a"), .advance("b"), .next(force: false, true), .next(force: false, true), .advance("b"),
                          .advance("a"), .advance("b"), .advance(nil)])
    }

    @Test("playlist-move: the entry takes the place of the one at the target (which follows it); the one playing stays the one playing")
    func move() {
        var queue = PlaylistQueue(["a", "b", "c", "d"])
        Self.run(&queue, [
            .advance("a"), .move(0, 2, true), .entries(["b", "a", "c", "d"]), .playing(1),
            .move(3, 0, true), .entries(["d", "b", "a", "c"]), .playing(2),
            .move(1, 4, true), .entries(["d", "a", "c", "b"]), .playing(1),
            .move(2, 3, true), .entries(["d", "a", "c", "b"]),
            .move(4, 0, false), .move(0, 5, false),
            .advance("c"),
        ])
    }

    @Test("playlist-clear keeps only the entry playing; loadfile replace plays the new entries from the first; append adds at the end")
    func clearReplaceAppend() {
        var queue = PlaylistQueue(["a", "b", "c"])
        Self.run(&queue, [
            .advance("a"), .advance("b"), .clear, .entries(["b"]), .playing(0), .advance(nil),
        ])
        var replaced = PlaylistQueue(["a", "b"])
        Self.run(&replaced, [.advance("a"), .replace(["x", "y"]), .advance("x"), .append("z"), .advance("y"), .advance("z"), .advance(nil)])
    }

    @Test("Once playback is over (mpv's idle): nothing plays again until a command says where; append waits, append-play plays the entry it adds, loadfile replace, playlist-pos and playlist-prev (the last) play, playlist-next has none")
    func overUntilACommand() {
        var empty = PlaylistQueue([])
        Self.run(&empty, [.advance(nil), .append("a"), .advance(nil), .appendPlay("b"), .advance("b"), .advance(nil), .advance(nil)])
        #expect(empty.isOver)
        var ended = PlaylistQueue(["a", "b"])
        Self.run(&ended, [.advance("a"), .advance("b"), .advance(nil), .advance(nil), .play(0), .advance("a"), .appendPlay("c"),
                          .advance("b"), .advance("c"), .advance(nil), .replace(["x"]), .advance("x"), .advance(nil)])
        var stopped = PlaylistQueue(["a", "b"])
        Self.run(&stopped, [.advance("a"), .next(force: true, true), .advance("b"), .next(force: true, true), .advance(nil), .advance(nil)])
    }

    @Test("Entry ids are given once: a replaced list's entries get new ones")
    func ids() {
        var queue = PlaylistQueue(["a", "b"])
        #expect(queue.entries.map(\.id) == [1, 2])
        #expect(queue.replace(with: ["c"]) == 3)
        #expect(queue.append("d") == 4)
    }

    @Test("--shuffle: every entry once, in the generator's order")
    func shuffle() {
        var queue = PlaylistQueue((1...20).map { "\($0)" })
        var generator = SplitMix(seed: 7)
        queue.shuffle(using: &generator)
        #expect(queue.entries.map(\.url).sorted() == (1...20).map { "\($0)" }.sorted())
        #expect(queue.entries.map(\.url) != (1...20).map { "\($0)" })
        var again = PlaylistQueue((1...20).map { "\($0)" })
        var same = SplitMix(seed: 7)
        again.shuffle(using: &same)
        #expect(again.entries == queue.entries)
    }
}
