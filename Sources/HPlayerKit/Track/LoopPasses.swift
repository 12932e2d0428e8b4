/// Which pass of a looped file a decoded timestamp belongs to.
///
/// When a file loops, the source adds the length of the passes before to every packet's
/// timestamps so the timeline keeps rising. Frames leave the decoder a few packets late (B-frame
/// reordering), so a frame is placed by its own timestamp: pass k begins at startTicks + offset_k.
struct LoopPasses {
    struct Pass: Equatable {
        var number: Int
        var offset: Int64
    }

    private var previous = Pass(number: 0, offset: 0)
    private var current = Pass(number: 0, offset: 0)
    private let startTicks: Int64

    init(startTicks: Int64) {
        self.startTicks = startTicks
    }

    /// Notes the pass a packet was read in.
    mutating func noteReading(pass number: Int, offset: Int64) {
        guard number != current.number else { return }
        previous = current
        current = Pass(number: number, offset: offset)
    }

    /// The pass a frame with timeline timestamp `ticks` belongs to.
    func pass(containing ticks: Int64) -> Pass {
        ticks >= startTicks + current.offset ? current : previous
    }

    mutating func reset() {
        previous = Pass(number: 0, offset: 0)
        current = previous
    }
}
