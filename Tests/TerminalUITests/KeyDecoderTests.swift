import Testing
import TerminalUI

/// Decodes `text`'s UTF-8 bytes in one read and flushes.
private func keys(_ text: String) -> [KeyEvent] {
    var decoder = KeyDecoder()
    return decoder.decode(Array(text.utf8)) + decoder.flush()
}

@Suite struct KeyDecoderTests {
    @Test(arguments: [
        ("a", KeyEvent.character("a")), ("Z", .character("Z")), (" ", .character(" ")), ("é", .character("é")),
        ("日", .character("日")), ("😀", .character("😀")),
        ("\r", KeyEvent(.enter)), ("\n", .ctrl("j")), ("\t", KeyEvent(.tab)), ("\u{1B}[Z", KeyEvent(.tab, .shift)),
        ("\u{7F}", KeyEvent(.backspace)), ("\u{8}", KeyEvent(.backspace)),
        ("\u{1}", .ctrl("a")), ("\u{3}", .ctrl("c")), ("\u{1A}", .ctrl("z")), ("\u{0}", .ctrl(" ")), ("\u{1F}", .ctrl("_")),
        ("\u{1B}[A", KeyEvent(.up)), ("\u{1B}[B", KeyEvent(.down)), ("\u{1B}[C", KeyEvent(.right)),
        ("\u{1B}[D", KeyEvent(.left)), ("\u{1B}OA", KeyEvent(.up)), ("\u{1B}OD", KeyEvent(.left)),
        ("\u{1B}[1;5A", KeyEvent(.up, .ctrl)), ("\u{1B}[1;2C", KeyEvent(.right, .shift)),
        ("\u{1B}[1;3D", KeyEvent(.left, .alt)), ("\u{1B}[1;6B", KeyEvent(.down, [.shift, .ctrl])),
        ("\u{1B}[H", KeyEvent(.home)), ("\u{1B}[F", KeyEvent(.end)), ("\u{1B}OH", KeyEvent(.home)),
        ("\u{1B}OF", KeyEvent(.end)), ("\u{1B}[1~", KeyEvent(.home)), ("\u{1B}[4~", KeyEvent(.end)),
        ("\u{1B}[7~", KeyEvent(.home)), ("\u{1B}[8~", KeyEvent(.end)),
        ("\u{1B}[5~", KeyEvent(.pageUp)), ("\u{1B}[6~", KeyEvent(.pageDown)), ("\u{1B}[2~", KeyEvent(.insert)),
        ("\u{1B}[3~", KeyEvent(.delete)), ("\u{1B}[3;5~", KeyEvent(.delete, .ctrl)),
        ("\u{1B}[5;3~", KeyEvent(.pageUp, .alt)),
        ("\u{1B}OP", KeyEvent(.function(1))), ("\u{1B}OQ", KeyEvent(.function(2))), ("\u{1B}OR", KeyEvent(.function(3))),
        ("\u{1B}OS", KeyEvent(.function(4))), ("\u{1B}[1;2P", KeyEvent(.function(1), .shift)),
        ("\u{1B}O5S", KeyEvent(.function(4), .ctrl)),
        ("\u{1B}[11~", KeyEvent(.function(1))), ("\u{1B}[15~", KeyEvent(.function(5))),
        ("\u{1B}[17~", KeyEvent(.function(6))), ("\u{1B}[21~", KeyEvent(.function(10))),
        ("\u{1B}[23~", KeyEvent(.function(11))), ("\u{1B}[24~", KeyEvent(.function(12))),
        ("\u{1B}[15;5~", KeyEvent(.function(5), .ctrl)), ("\u{1B}[[A", KeyEvent(.function(1))),
        ("\u{1B}[[E", KeyEvent(.function(5))), ("\u{1B}OM", KeyEvent(.enter)),
        ("\u{1B}x", .alt("x")), ("\u{1B}J", .alt("J")), ("\u{1B}é", .alt("é")), ("\u{1B}\u{7F}", KeyEvent(.backspace, .alt)),
        ("\u{1B}\r", KeyEvent(.enter, .alt)), ("\u{1B}\u{1}", KeyEvent(.character("a"), [.ctrl, .alt])),
        ("\u{1B}", KeyEvent(.escape)), ("\u{1B}[", .alt("[")), ("\u{1B}O", .alt("O")),
    ])
    func decodesOneKey(input: String, expected: KeyEvent) {
        #expect(keys(input) == [expected], "\(input.debugDescription)")
    }

    @Test func textIsOneEventPerScalar() {
        #expect(keys("hi 日") == [.character("h"), .character("i"), .character(" "), .character("日")])
    }

    @Test func aMultiByteCharacterSplitAcrossReadsWaitsForItsLastByte() {
        var decoder = KeyDecoder()
        let bytes = Array("日".utf8)
        #expect(decoder.decode(bytes[0..<1]) == [])
        #expect(decoder.hasPending)
        #expect(decoder.decode(bytes[1..<2]) == [])
        #expect(decoder.decode(bytes[2..<3]) == [.character("日")])
        #expect(!decoder.hasPending)
    }

    @Test func aLoneEscapeIsPendingUntilFlushed() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B]) == [])
        #expect(decoder.hasPending)
        #expect(decoder.flush() == [KeyEvent(.escape)])
        #expect(!decoder.hasPending)
        #expect(decoder.flush() == [])
    }

    @Test func anEscapeFollowedByMoreBytesIsAnAltKeyOrASequence() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B]) == [])
        #expect(decoder.decode(Array("[A".utf8)) == [KeyEvent(.up)])
        #expect(decoder.decode([0x1B]) == [])
        #expect(decoder.decode(Array("q".utf8)) == [.alt("q")])
        #expect(keys("\u{1B}\u{1B}[A") == [KeyEvent(.escape), KeyEvent(.up)])
        #expect(keys("\u{1B}\u{1B}") == [KeyEvent(.escape), KeyEvent(.escape)])
    }

    @Test(arguments: [
        "\u{1B}[?1;2c", "\u{1B}[99~", "\u{1B}[<0;10;5M", "\u{1B}[12;40R", "\u{1B}[1$x", "\u{1B}OX", "\u{1B}[201~",
        "\u{1B}[[Z", "\u{85}", "\u{9B}",
    ])
    func unknownSequencesAreSwallowed(input: String) {
        #expect(keys(input + "k") == [.character("k")], "\(input.debugDescription)")
    }

    @Test func invalidUTF8IsSwallowed() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0xFF, 0x61, 0xC3, 0x28, 0xE0, 0x80, 0x80, 0xED, 0xA0, 0x80, 0x62]) == [
            .character("a"), .character("("), .character("b"),
        ])
        #expect(decoder.decode([0xE6, 0x97]) == [])
        #expect(decoder.flush() == [])
    }

    @Test func aMalformedSequenceDoesNotEatTheKeyAfterIt() {
        #expect(keys("\u{1B}[1;\u{1B}[B") == [KeyEvent(.down)])
        #expect(keys("\u{1B}[1\r") == [KeyEvent(.enter)])
    }

    @Test func anOverlongSequenceIsSwallowedWithoutWaitingForever() {
        var decoder = KeyDecoder()
        let long = [0x1B, 0x5B] + Array(repeating: UInt8(0x31), count: KeyDecoder.maximumSequenceLength)
        #expect(decoder.decode(long) == [])
        // Its rest would be swallowed as it arrives; the escape timeout's flush ends that, and keys are keys again.
        #expect(decoder.hasPending)
        #expect(decoder.flush() == [])
        #expect(!decoder.hasPending)
        #expect(decoder.decode(Array("A".utf8)) == [.character("A")])
    }

    @Test func anOverlongSequenceSplitAnywhereIsSwallowedWhole() {
        // ESC [ 2 0 0 1 1 … 1 ~ (far past the longest kept), then keys: found by the `keys` fuzz target, where a split
        // inside the sequence let its tail through as text.
        let digits = "2001" + String(repeating: "1", count: 115)
        let bytes = Array("\u{2}\u{1B}[\(digits)~p\\u".utf8) + [0x9C] + Array("e\u{1B}[20~p\\~".utf8)
        var whole = KeyDecoder()
        let expected = whole.decode(bytes) + whole.flush()
        #expect(!expected.contains(.character("1")), "\(expected)")
        #expect(expected.contains(.character("p")) && expected.contains(KeyEvent(.function(9))))
        for cut in 0...bytes.count {
            var split = KeyDecoder()
            let events = split.decode(bytes[..<cut]) + split.decode(bytes[cut...]) + split.flush()
            #expect(events == expected, "split at \(cut)")
            if events != expected { return }
        }
        // An SS3 and a CSI with intermediates, overlong, split in the middle: swallowed the same way.
        let others = ["\u{1B}O" + String(repeating: "3", count: 80) + "Pq", "\u{1B}[" + String(repeating: "1", count: 70) + "  Aq"]
        for text in others {
            let sequence = Array(text.utf8)
            var one = KeyDecoder()
            let once = one.decode(sequence) + one.flush()
            var two = KeyDecoder()
            let twice = two.decode(sequence[..<70]) + two.decode(sequence[70...]) + two.flush()
            #expect(once == [.character("q")] && twice == once, "\(once) \(twice)")
        }
    }

    @Test func aBracketedPasteIsOneEvent() {
        #expect(keys("\u{1B}[200~hello\r\nworld\rok\u{1B}[201~") == [KeyEvent(.paste("hello\nworld\nok"))])
        #expect(
            keys("a\u{1B}[200~\u{1B}[A\u{3}日\u{1B}[201~b") == [
                .character("a"), KeyEvent(.paste("\u{1B}[A\u{3}日")), .character("b"),
            ])
        #expect(keys("\u{1B}[200~\u{1B}[201~") == [KeyEvent(.paste(""))])
    }

    @Test func aPasteWaitsForItsEndEvenAcrossAFlush() {
        var decoder = KeyDecoder()
        #expect(decoder.decode(Array("\u{1B}[200~abc\u{1B}[20".utf8)) == [])
        #expect(decoder.isPasting)
        #expect(!decoder.hasPending)
        #expect(decoder.flush() == [])
        #expect(decoder.decode(Array("1~x".utf8)) == [KeyEvent(.paste("abc")), .character("x")])
        #expect(!decoder.isPasting)
    }

    @Test func aLargePasteInSmallReadsArrivesWhole() {
        let text = String(repeating: "line of pasted text 日本 😀\n", count: 5_000)
        let bytes = Array("\u{1B}[200~\(text)\u{1B}[201~".utf8)
        var decoder = KeyDecoder()
        var events: [KeyEvent] = []
        var offset = 0
        var chunk = 1
        while offset < bytes.count {
            let end = min(bytes.count, offset + chunk)
            events += decoder.decode(bytes[offset..<end])
            offset = end
            chunk = chunk % 997 + 7
        }
        #expect(events == [KeyEvent(.paste(text))])
    }
}
