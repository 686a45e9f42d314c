import CorkApp
import TerminalUI
import Testing

/// The key help (`?`) in a small terminal: wrapped to its width and scrolled, so all of it can be read.
extension TUIModelTests {
    /// The words inside the help box, scrolled by `key` until the view stops moving (bounded).
    static func helpWords(in model: inout TUIModel, scrollingWith key: Key) -> (words: Set<String>, screens: [[String]]) {
        var words = Set<String>()
        var screens: [[String]] = []
        for _ in 0..<100 {
            let lines = model.render().lines
            if screens.last == lines { break }
            screens.append(lines)
            guard let top = lines.firstIndex(where: { $0.contains("keys") && $0.contains("┌") }),
                let bottom = lines.indices.dropFirst(top + 1).first(where: { lines[$0].contains("└") })
            else { break }
            for line in lines[(top + 1)..<bottom] {
                for word in line.split(separator: " ") where word != "│" { words.insert(String(word)) }
            }
            _ = model.update(Self.key(key))
        }
        return (words, screens)
    }

    @Test(arguments: [Key.down, .character("j"), .pageDown])
    func atSixtyByFifteenAllOfTheHelpCanBeScrolledTo(key: Key) {
        var model = Self.model(width: 60, height: 15)
        _ = model.update(Self.key(.character("?")))
        let first = model.render().lines
        #expect(first.contains { $0.contains("↓") }, "the first screen says there is more:\n\(first.joined(separator: "\n"))")
        let (seen, screens) = Self.helpWords(in: &model, scrollingWith: key)
        #expect(screens.count > 1)
        let all = Set(TUIModel.helpLines.flatMap { $0.split(separator: " ").map(String.init) })
        #expect(all.subtracting(seen).isEmpty, "never shown: \(all.subtracting(seen).sorted())")
        // At the end nothing more is below; up (k, PgUp, g) goes back to the top.
        #expect(!(screens.last ?? []).contains { $0.contains("↓") })
        _ = model.update(Self.key(.character("g")))
        #expect(model.render().lines == first)
        _ = model.update(Self.key(.pageDown))
        _ = model.update(Self.key(.pageUp))
        #expect(model.render().lines == first)
        // Esc still closes it.
        _ = model.update(Self.key(.escape))
        #expect(model.overlay == nil)
    }
}
