import PropertyBased
import Testing
import TerminalUI

/// Pieces of terminal input: text, controls, CSI and SS3 keys with modifiers, Alt keys, pastes, escapes followed by
/// sequences, unknown sequences and invalid UTF-8.
private let pieces: [[UInt8]] = [
    "a", "Z", "é", "日", "😀", "👩‍👩‍👧", "\r", "\t", "\u{7F}", "\u{3}", "\u{1B}[Z", "\u{1B}[A", "\u{1B}OB",
    "\u{1B}[1;5C", "\u{1B}[3~", "\u{1B}[15;2~", "\u{1B}OP", "\u{1B}[1;2Q", "\u{1B}[[C", "\u{1B}x", "\u{1B}é",
    "\u{1B}\u{1B}[D", "\u{1B}\u{7F}", "\u{1B}[200~pa\u{1B}[Aste\r\n日\u{1B}[201~", "\u{1B}[200~\u{1B}[201~",
    "\u{1B}[?1;2c", "\u{1B}[<0;3;4M", "\u{1B}[1;", "\u{1B}O\u{1}",
].map { Array($0.utf8) } + [[0xFF], [0xE6, 0x97, 0x61], [0xED, 0xA0, 0x80]]

/// Everything `bytes` decodes to when fed in reads that end at `cuts`, then flushed.
private func decode(_ bytes: [UInt8], cuttingAt cuts: [Int]) -> [KeyEvent] {
    var decoder = KeyDecoder()
    var events: [KeyEvent] = []
    var start = 0
    for cut in cuts.sorted() + [bytes.count] where cut >= start {
        events += decoder.decode(bytes[start..<cut])
        start = cut
    }
    return events + decoder.flush()
}

@Suite struct KeyDecoderSplitTests {
    /// All the pieces one after another.
    let corpus = pieces.flatMap { $0 }

    @Test func everySplitOfTheCorpusDecodesLikeTheWhole() {
        let whole = decode(corpus, cuttingAt: [])
        #expect(whole.count > pieces.count / 2)
        for cut in 0...corpus.count {
            let split = decode(corpus, cuttingAt: [cut])
            #expect(split == whole, "split at \(cut)")
            if split != whole { return }
        }
    }

    @Test func oneByteAtATimeDecodesLikeTheWhole() {
        #expect(decode(corpus, cuttingAt: Array(0...corpus.count)) == decode(corpus, cuttingAt: []))
    }

    @Test func theCorpusDecodesToTheExpectedKeys() {
        let events = decode(corpus, cuttingAt: [])
        #expect(events.contains(KeyEvent(.paste("pa\u{1B}[Aste\n日"))))
        #expect(events.contains(KeyEvent(.right, .ctrl)))
        #expect(events.contains(KeyEvent(.function(5), .shift)))
        #expect(events.contains(KeyEvent(.function(3))))
        #expect(!events.contains(.character("[")))
        #expect(!events.contains(.character("?")))
        #expect(!events.contains(.character("M")))
    }

    @Test func randomInputsSplitAnywhereDecodeLikeTheWhole() async {
        let input = zip(
            Gen.int(in: 0...(pieces.count - 1)).array(of: 0...20), Gen.int(in: 0...400).array(of: 0...12))
        await propertyCheck(count: 500, input: input) { picks, cuts in
            let bytes = picks.flatMap { pieces[$0] }
            let whole = decode(bytes, cuttingAt: [])
            #expect(decode(bytes, cuttingAt: cuts.map { $0 % (bytes.count + 1) }) == whole)
        }
    }
}
