/// Decodes the bytes a terminal sends into key events: text, control keys, escape sequences and bracketed paste.
///
/// Feed bytes as they are read with `decode(_:)`; a sequence split across reads is kept until it is complete, so any
/// split of the same bytes gives the same events. Escape is also the first byte of every sequence, so a lone ESC stays
/// pending (`hasPending`) until more bytes arrive or the caller calls `flush()` after a short quiet time. Bytes of
/// unknown or malformed sequences are swallowed, never reported as text.
public struct KeyDecoder: Sendable {
    /// Bytes of an escape sequence, or of a UTF-8 character, that is not complete yet.
    private var pending: [UInt8] = []
    /// The bytes of a bracketed paste in progress (after `ESC[200~`), or `nil` outside a paste.
    private var paste: [UInt8]? = nil
    /// Where in `paste` the search for the paste terminator resumes.
    private var pasteScanned = 0
    /// The rest of an overlong escape sequence being swallowed as it arrives, or nil.
    private var skipping: Skip? = nil

    /// The longest escape sequence kept while waiting for its final byte; longer ones are swallowed.
    public static let maximumSequenceLength = 64

    /// Makes a decoder with nothing pending.
    public init() {}

    /// Whether bytes are held back waiting for more input: a lone ESC or an unfinished sequence (an overlong one being
    /// swallowed too). The caller flushes them with `flush()` when no more bytes arrive within its escape timeout. A
    /// paste in progress does not count.
    public var hasPending: Bool { paste == nil && (!pending.isEmpty || skipping != nil) }

    /// Whether a bracketed paste has started and its end marker has not arrived yet.
    public var isPasting: Bool { paste != nil }

    /// Decodes `bytes` (appended to anything pending) into the key events they complete.
    public mutating func decode(_ bytes: some Sequence<UInt8>) -> [KeyEvent] {
        if paste != nil {
            paste!.append(contentsOf: bytes)
        } else {
            pending.append(contentsOf: bytes)
        }
        return drain(final: false)
    }

    /// Decodes what is pending as if no more bytes will follow: a lone ESC becomes `.escape`, `ESC [` and `ESC O`
    /// become Alt-`[` and Alt-`O`, and an unfinished sequence or character is dropped. A paste in progress is kept.
    public mutating func flush() -> [KeyEvent] {
        // No more of an overlong sequence will come: the next bytes are keys again.
        defer { skipping = nil }
        return drain(final: true)
    }

    /// Decodes as many events as the pending bytes complete.
    private mutating func drain(final: Bool) -> [KeyEvent] {
        var events: [KeyEvent] = []
        while true {
            if paste != nil {
                guard finishPaste(into: &events) else { break }
                continue
            }
            var index = 0
            var startedPaste = false
            scan: while index < pending.count {
                if let phase = skipping {
                    let (next, swallowed) = phase.step(pending[index])
                    skipping = next
                    if swallowed { index += 1 }
                    continue
                }
                switch Self.parse(pending, at: index, final: final) {
                case .incomplete:
                    break scan
                case .event(let event, let length):
                    if let event { events.append(event) }
                    index += length
                case .pasteStart(let length):
                    index += length
                    startedPaste = true
                    break scan
                case .overlong(let length, let phase):
                    index += length
                    skipping = phase
                }
            }
            if startedPaste {
                paste = Array(pending[index...])
                pasteScanned = 0
                pending = []
                continue
            }
            pending.removeFirst(index)
            break
        }
        return events
    }

    /// The paste end marker, `ESC [ 2 0 1 ~`.
    private static let pasteEnd: [UInt8] = [0x1B, 0x5B, 0x32, 0x30, 0x31, 0x7E]

    /// If the paste in progress has ended, appends it as one `.paste` event, moves the bytes after the end marker back
    /// to `pending` and returns true.
    private mutating func finishPaste(into events: inout [KeyEvent]) -> Bool {
        guard let bytes = paste else { return false }
        let marker = Self.pasteEnd
        var start = pasteScanned
        while start + marker.count <= bytes.count {
            if bytes[start] == marker[0] && bytes[start..<(start + marker.count)].elementsEqual(marker) {
                events.append(KeyEvent(.paste(Self.pasteText(bytes[..<start]))))
                pending = Array(bytes[(start + marker.count)...])
                paste = nil
                pasteScanned = 0
                return true
            }
            start += 1
        }
        pasteScanned = max(0, bytes.count - marker.count + 1)
        return false
    }

    /// Pasted bytes as text, with CR LF and lone CR turned into LF (terminals send line breaks in a paste as CR).
    private static func pasteText(_ bytes: ArraySlice<UInt8>) -> String {
        var normalised: [UInt8] = []
        normalised.reserveCapacity(bytes.count)
        var previousCR = false
        for byte in bytes {
            if byte == 0x0A && previousCR {
                previousCR = false
                continue
            }
            previousCR = byte == 0x0D
            normalised.append(previousCR ? 0x0A : byte)
        }
        return String(decoding: normalised, as: UTF8.self)
    }
}
