/// A simple buffer rule, the baseline the other policies are measured against (`hplayer
/// abr-sim`): a rung up when playback is fine and more than half the
/// maximum buffer is filled, a rung down when playback ran dry, and at least half the maximum
/// buffer's seconds between switches (a run dry aside: the common rules let that through).
package enum SeedPolicy {
    package static func decide(_ input: ABRInput) -> ABRDecision {
        guard let current = input.current else { return ABRDecision(rung: ABRRules.startingRung(input, share: 0.8)) }
        if input.isStarved { return ABRDecision(rung: max(0, current - 1)) }
        let spacing = input.maxBuffer / 2
        if let last = input.lastSwitchAt, input.now - last < spacing { return ABRDecision(rung: current) }
        if input.buffer > spacing { return ABRDecision(rung: min(input.bitrates.count - 1, current + 1)) }
        return ABRDecision(rung: current)
    }
}
