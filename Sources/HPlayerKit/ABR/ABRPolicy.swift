/// The bitrate policies `--hls-abr` names: each a pure function from plain values (and the
/// memory it keeps between decisions) to the rung of the next segment. The rules every policy
/// obeys are applied after it (`ABRRules`). Set it as `NetworkOptions.hlsABR`.
public enum ABRPolicy: Equatable, Sendable {
    /// A simple buffer rule, the baseline the others are measured against (SeedPolicy).
    case seed
    /// hls.js's throughput rule (ThroughputPolicy).
    case throughput
    /// BOLA-BASIC with dash.js's placeholder buffer (BolaPolicy).
    case bola
    /// Ours, the default (AutoPolicy).
    case auto
    /// Always this rung: what `--hls-bitrate` pins.
    case fixed(Int)

    /// The policies the simulator compares, by name.
    package static let compared: [ABRPolicy] = [.seed, .throughput, .bola, .auto]

    /// "seed", "throughput", "bola" or "auto"; nil for anything else.
    public init?(_ name: String) {
        guard let policy = Self.compared.first(where: { $0.name == name }) else { return nil }
        self = policy
    }

    /// What `--hls-abr` calls it, and `init?(_:)` takes: "fixed(N)" for `fixed`.
    public var name: String {
        switch self {
        case .seed: "seed"
        case .throughput: "throughput"
        case .bola: "bola"
        case .auto: "auto"
        case let .fixed(rung): "fixed(\(rung))"
        }
    }

    package var isFixed: Bool {
        if case .fixed = self { true } else { false }
    }

    /// The next segment's rung, and any wait before fetching it, under the common rules.
    package func decide(_ input: ABRInput, memory: inout ABRMemory) -> ABRDecision {
        guard input.bitrates.count > 1 else { return ABRDecision(rung: 0) }
        let proposed: ABRDecision = switch self {
        case .seed: SeedPolicy.decide(input)
        case .throughput: ThroughputPolicy.decide(input)
        case .bola: BolaPolicy.decide(input, memory: &memory)
        case .auto: AutoPolicy.decide(input, memory: &memory)
        case let .fixed(rung): ABRDecision(rung: rung)
        }
        var decision = proposed
        decision.rung = min(max(0, proposed.rung), input.bitrates.count - 1)
        if isFixed { return decision }
        decision.rung = ABRRules.constrain(decision.rung, input)
        return decision
    }
}

/// The rules every policy obeys (ours, not one player's): no switch too soon after the last,
/// but for a switch down when the buffer is nearly empty. (No switch with one variant, and none
/// after the last segment has been read, hold by construction: no decision is asked then.)
package enum ABRRules {
    /// Seconds between two switches at least.
    package static let minimumSwitchInterval = 4.0
    /// Below this many seconds buffered, a switch down is an emergency, allowed at any time.
    package static let emergencyBuffer = 2.0

    /// The rung `proposed` becomes under the rules.
    package static func constrain(_ proposed: Int, _ input: ABRInput) -> Int {
        guard let current = input.current, proposed != current else { return proposed }
        if proposed < current, input.buffer < emergencyBuffer { return proposed }
        if let last = input.lastSwitchAt, input.now - last < minimumSwitchInterval { return current }
        return proposed
    }

    /// The first segment's rung, for policies that start from an estimate: the highest whose
    /// bit rate fits in `share` of the initial estimate (the lowest without one).
    package static func startingRung(_ input: ABRInput, share: Double) -> Int {
        guard let estimate = input.initialEstimate else { return 0 }
        return input.highestRung(within: estimate * share)
    }
}
