import Foundation

/// The share of each kind of op the publishers send (`--mix move=50,edit=30,add=15,chat=5`).
///
/// Weights are relative (they need not add up to 100). `next` is deterministic: it spreads the kinds evenly by
/// always picking the kind furthest behind its share, so a short run sends the mix it was asked for.
struct OpMix: Sendable, Equatable, CustomStringConvertible {
    enum Kind: String, CaseIterable, Sendable {
        case move, edit, add, chat
    }

    /// The weight of each kind, in `Kind.allCases` order.
    private(set) var weights: [Int]

    static let standard = OpMix(weights: [50, 30, 15, 5])

    private init(weights: [Int]) { self.weights = weights }

    /// Parses `kind=weight,…`; kinds left out weigh 0.
    init(parsing text: String) throws(LoadError) {
        var weights = [Int](repeating: 0, count: Kind.allCases.count)
        for part in text.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, let kind = Kind(rawValue: pair[0]), let weight = Int(pair[1]), weight >= 0 else {
                throw LoadError("invalid_mix", "--mix wants kind=weight pairs from move, edit, add, chat; got \(part)")
            }
            guard let index = Kind.allCases.firstIndex(of: kind) else { continue }
            weights[index] = weight
        }
        guard weights.reduce(0, +) > 0 else { throw LoadError("invalid_mix", "--mix needs at least one positive weight") }
        self.weights = weights
    }

    var description: String {
        zip(Kind.allCases, weights).filter { $0.1 > 0 }.map { "\($0.0.rawValue)=\($0.1)" }.joined(separator: ",")
    }

    /// Picks kinds in proportion to the weights, evenly spread; `sent` counts what was picked so far, by kind.
    func next(after sent: [Int]) -> Kind {
        let total = sent.reduce(0, +) + 1
        let sum = weights.reduce(0, +)
        var best = 0
        var bestLag = Double(-Int.max)
        for index in weights.indices where weights[index] > 0 {
            let lag = Double(total * weights[index]) / Double(sum) - Double(sent[index])
            if lag > bestLag {
                best = index
                bestLag = lag
            }
        }
        return Kind.allCases[best]
    }
}
