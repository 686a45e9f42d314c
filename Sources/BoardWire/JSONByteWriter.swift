import BoardCore

/// The byte writer behind `LineWriter` and `CompactJSONEncoder`: compact JSON written straight into one growing
/// buffer, and an `Encoder` on top of it that writes in the order the `Encodable` conformances encode (no
/// intermediate tree, no key sorting).
///
/// Containers are written as a stack. A container requested for a value opens `{` or `[` at once; writing into an
/// outer container again closes every container opened inside it since. Asking the same encoder for a second
/// container of the same kind reuses the first one (so `type` and a payload can share one object, as
/// `ServerMessage.encode(to:)` does); asking for a different kind, or writing through a container that was already
/// closed, is a misuse that makes the whole `encode` throw. `superEncoder` works when its value is encoded before
/// the next field of its parent (an untouched super encoder becomes `{}`, like JSONEncoder).
final class JSONByteWriter {
    /// One open container.
    struct Frame {
        /// Unique per container, so writes through a closed container can be told apart.
        var id: Int
        /// The value slot this container fills, or -1 for a nested container asked for by key or position.
        var slot: Int
        /// `{` (true) or `[` (false).
        var isObject: Bool
        /// Elements written so far.
        var count: Int
        /// The key of the element being written (objects only), for `codingPath`.
        var key: String?
    }

    // The state lives in raw buffers and unchecked properties: this is the per-delta hot path, and dynamic
    // exclusivity checks and array uniqueness checks on every byte cost more than the writing itself. The writer
    // is private to one `encode` call, so nothing else can reach it.

    /// The output bytes, `count` of `capacity` used.
    @exclusivity(unchecked) var base: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) var count = 0
    @exclusivity(unchecked) var capacity: Int
    /// Open containers, outermost first, `depth` of `frameCapacity` used.
    @exclusivity(unchecked) var frames: UnsafeMutablePointer<Frame>
    @exclusivity(unchecked) var depth = 0
    @exclusivity(unchecked) var frameCapacity = 0
    /// The slot waiting for a value (a value being encoded that has not asked for a container yet), or -1.
    @exclusivity(unchecked) var openSlot = -1
    /// `depth` when `openSlot` was made.
    @exclusivity(unchecked) var openSlotDepth = 0
    /// The last id handed out for a slot or a frame.
    @exclusivity(unchecked) var lastID = 0
    /// The first misuse seen (a container asked for after its value was written, a write through a closed one…).
    var failure: EncodingError?

    init(capacity: Int) {
        self.capacity = Swift.max(capacity, 16)
        base = .allocate(capacity: self.capacity)
        frames = .allocate(capacity: 0)  // grown on the first container: the hand-written delta path needs none
    }

    deinit {
        frames.deinitialize(count: depth)
        frames.deallocate()
        base.deallocate()
    }

    /// Calls `body` with the bytes written. The buffer is the writer's own: it is valid only during the call, as the
    /// writer could be freed right after its last use.
    func withWritten<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    /// A copy of the bytes written.
    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// The bytes written, as text.
    var text: String { String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self) }

    @inline(__always) func nextID() -> Int {
        lastID &+= 1
        return lastID
    }

    // MARK: Bytes

    /// Makes room for `n` more bytes.
    @inline(__always) func reserve(_ n: Int) {
        if capacity - count < n { grow(to: count + n) }
    }

    @inline(never) func grow(to needed: Int) {
        let newCapacity = Swift.max(capacity * 2, needed)
        let new = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        new.moveInitialize(from: base, count: count)
        base.deallocate()
        base = new
        capacity = newCapacity
    }

    @inline(__always) func put(_ b: UInt8) {
        reserve(1)
        base[count] = b
        count &+= 1
    }

    @inline(__always) func put(_ a: UInt8, _ b: UInt8) {
        reserve(2)
        base[count] = a
        base[count &+ 1] = b
        count &+= 2
    }

    @inline(__always) func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let from = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count)
        (base + count).initialize(from: from, count: bytes.count)
        count &+= bytes.count
    }

    /// Appends a literal's bytes (keys and punctuation).
    @inline(__always) func put(_ s: StaticString) {
        s.withUTF8Buffer { put($0) }
    }

    // MARK: Structure

    /// Closes containers until `count` remain open.
    func close(downTo target: Int) {
        while depth > target {
            if openSlot >= 0 && openSlotDepth >= depth { fillOpenSlotWithEmptyObject() }
            depth -= 1
            put(frames[depth].isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
            (frames + depth).deinitialize(count: 1)
        }
    }

    /// A super encoder that was never written to stands for `{}`, as in JSONEncoder.
    func fillOpenSlotWithEmptyObject() {
        put(UInt8(ascii: "{"), UInt8(ascii: "}"))
        openSlot = -1
    }

    /// Whether container `id` at `index` is still open; closes what was opened inside it. Records a misuse if not.
    @inline(__always) func reopen(_ index: Int, _ id: Int) -> Bool {
        guard index < depth, frames[index].id == id else {
            fail("a value was encoded through a container that was already closed", at: index)
            return false
        }
        if depth > index + 1 { close(downTo: index + 1) }
        if openSlot >= 0 && openSlotDepth > index { fillOpenSlotWithEmptyObject() }
        return true
    }

    /// Starts the next element of container `index`: a comma after the first.
    @inline(__always) func startElement(_ index: Int) {
        if frames[index].count > 0 { put(UInt8(ascii: ",")) }
        frames[index].count &+= 1
    }

    /// Starts a keyed element: `,"key":`.
    @inline(__always) func startKeyed(_ index: Int, _ key: some CodingKey) {
        startElement(index)
        let name = key.stringValue
        writeString(name)
        put(UInt8(ascii: ":"))
        frames[index].key = name
    }

    /// Opens a container as a fresh value (the element was started already).
    func push(object: Bool, slot: Int) -> Int {
        put(object ? UInt8(ascii: "{") : UInt8(ascii: "["))
        if depth == frameCapacity {
            let newCapacity = Swift.max(frameCapacity * 2, 8)
            let new = UnsafeMutablePointer<Frame>.allocate(capacity: newCapacity)
            new.moveInitialize(from: frames, count: depth)
            frames.deallocate()
            frames = new
            frameCapacity = newCapacity
        }
        let id = nextID()
        (frames + depth).initialize(to: Frame(id: id, slot: slot, isObject: object, count: 0, key: nil))
        depth += 1
        return id
    }

    /// The container a value's encoder hands out: opens one when the slot is still empty, reuses the one that
    /// already fills it, or records a misuse. Returns the container's frame index and id (id -1: a dead container).
    func container(object: Bool, slot: Int, at slotDepth: Int) -> (index: Int, id: Int) {
        if openSlot == slot {
            if depth > slotDepth { close(downTo: slotDepth) }
            openSlot = -1
            return (slotDepth, push(object: object, slot: slot))
        }
        if slotDepth < depth, frames[slotDepth].slot == slot, frames[slotDepth].isObject == object {
            close(downTo: slotDepth + 1)
            return (slotDepth, frames[slotDepth].id)
        }
        fail(
            "an encoder was asked for a \(object ? "keyed" : "unkeyed") container after its value was written",
            at: slotDepth)
        return (slotDepth, -1)
    }

    /// Claims the open slot for a single value; records a misuse (and returns false) when it is not open.
    @inline(__always) func claim(slot: Int, at slotDepth: Int) -> Bool {
        guard openSlot == slot else {
            fail("a single value was encoded after its value was written", at: slotDepth)
            return false
        }
        if depth > slotDepth { close(downTo: slotDepth) }
        openSlot = -1
        return true
    }

    /// Encodes `value` into a fresh slot at the current position (the element was started already).
    func encodeValue<T: Encodable>(_ value: T) throws {
        // Strings (the commonest leaf) skip the trip through a single-value container.
        if T.self == String.self { return writeString(unsafeBitCast(value, to: String.self)) }
        let slotDepth = depth
        let slot = nextID()
        openSlot = slot
        openSlotDepth = slotDepth
        try value.encode(to: CompactEncoder(writer: self, depth: slotDepth, slot: slot))
        if openSlot == slot { fillOpenSlotWithEmptyObject() }
        if depth > slotDepth { close(downTo: slotDepth) }
    }

    /// Encodes `value` as the whole output.
    func encodeTopLevel<T: Encodable>(_ value: T) throws {
        let slot = nextID()
        openSlot = slot
        openSlotDepth = 0
        try value.encode(to: CompactEncoder(writer: self, depth: 0, slot: slot))
        if openSlot == slot {
            throw EncodingError.invalidValue(
                value, .init(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
        }
        close(downTo: 0)
        if let failure { throw failure }
    }

    /// Records the first misuse.
    func fail(_ message: String, at slotDepth: Int) {
        if failure == nil {
            failure = .invalidValue((), .init(codingPath: codingPath(depth: slotDepth), debugDescription: message))
        }
    }

    /// The keys from the top down to a container at `depth` (exclusive).
    func codingPath(depth pathDepth: Int) -> [any CodingKey] {
        var path: [any CodingKey] = []
        for i in 0..<Swift.min(pathDepth, depth) {
            if frames[i].isObject {
                if let key = frames[i].key { path.append(PathKey(stringValue: key)) }
            } else {
                path.append(PathKey(intValue: frames[i].count - 1))
            }
        }
        return path
    }

    // MARK: Scalars

    func writeNull() { put("null") }

    func writeBool(_ b: Bool) { put(b ? "true" : "false") }

    func writeUnsigned(_ value: UInt64) {
        var digits = 1
        var limit: UInt64 = 10
        while digits < 20 && value >= limit {
            digits &+= 1
            limit &*= 10
        }
        reserve(digits)
        var p = base + (count &+ digits)
        var v = value
        repeat {
            let (q, r) = v.quotientAndRemainder(dividingBy: 10)
            p -= 1
            p.pointee = UInt8(truncatingIfNeeded: r) &+ 0x30
            v = q
        } while v != 0
        count &+= digits
    }

    func writeSigned(_ value: Int64) {
        if value < 0 { put(UInt8(ascii: "-")) }
        writeUnsigned(value.magnitude)
    }

    /// `value` as decimal digits (the types beyond 64 bits, which are rare).
    func writeDecimal(_ value: some BinaryInteger) {
        var text = String(value)
        text.withUTF8 { put($0) }
    }

    /// Writes `s` as a JSON string literal: `"`, `\\` and bytes below 0x20 escaped, all else raw UTF-8.
    func writeString(_ s: String) {
        // Native and small strings are contiguous UTF-8 already; only a bridged one needs a copy.
        if s.utf8.withContiguousStorageIfAvailable({ writeString(utf8: $0) }) == nil {
            var s = s
            s.withUTF8 { writeString(utf8: $0) }
        }
    }

    /// Writes UTF-8 bytes as a JSON string literal; runs that need no escape are copied whole (`JSONEscaping`).
    func writeString(utf8: UnsafeBufferPointer<UInt8>) {
        put(UInt8(ascii: "\""))
        JSONEscaping.escape(utf8) { put($0) }
        put(UInt8(ascii: "\""))
    }

    func floatError(_ value: Any, depth pathDepth: Int, key: (any CodingKey)?) -> EncodingError {
        var path = codingPath(depth: pathDepth)
        if let key { path.append(key) }
        return .invalidValue(
            value,
            .init(
                codingPath: path,
                debugDescription: "floating-point values are not part of the protocol and cannot be encoded"))
    }
}
