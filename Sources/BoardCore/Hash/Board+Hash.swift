import Crypto

/// The board's content as canonical text, and its hash, for convergence checks across replicas.
///
/// This is a protocol contract: `subscribed.hash` is `protocolHash`, and Protocol.md ("Board hash") specifies the
/// same bytes for clients in other languages (`Tests/Interop/board_hash.py`); change both together, or neither.
///
/// ## Canonical text
///
/// Compact JSON (no spaces, no newlines), written by hand so the bytes are a contract of this file alone.
/// Every object's keys appear in exactly this order; optional values are written as `null`, never left out, and
/// empty collections as `[]`, so an absent value and a default one cannot produce the same text:
///
/// - board: `id`, `name`, `columns`, `cards`, `labels`, `milestones`, `members`, `next_card_number`, `purged`,
///   then `remind_hours` (an integer) only when the board set one (absent: the server's default); no `seq`.
/// - column: `id`, `name`, `wip` (`null` or `{"limit":N,"hard":BOOL}`), then `in_progress` (BOOL) only when the
///   column was marked (absent: the default); columns in board order.
/// - card: `id`, `number`, `column`, `rank`, `title`, `description`, `description_seq`, `due`, `labels`,
///   `assignees`, `milestone`, `checklist`, `comments`, `closed`, `archived`, `ref`, `blocked_by` (only when the card
///   has blockers: sorted ids), `recur` (only when set: `{"every","days","day","after_done_days"}`, each `null` when
///   unset, `days` in the rule's order), `watchers` (only when someone pressed watch: sorted ids), `created_by`, `created_at`, `updated_by`, `updated_at`; cards sorted by their key in `cards` (the card id, byte-wise), each card's arrays
///   in their stored order.
/// - checklist item: `id`, `text`, `done`. Comment: `id`, `author`, `at`, `text`, `edited_at`.
/// - label: `id`, `name`, `color` (`"#rrggbb"`, lower case); labels in stored order.
/// - milestone: `id`, `title`, `description`, `due`, `closed`; milestones in stored order.
/// - member: `id`, `role`, `name`; members sorted by their key (the user name). `purged`: card ids sorted.
///
/// Strings are escaped exactly as `JSONValue.writeString` escapes them (Unicode scalars are kept as they are, not
/// normalized); days are `"YYYY-MM-DD"`, timestamps integer milliseconds, ranks and identifiers their raw text.
extension Board {
    /// The board's content (everything but `seq`) as canonical compact JSON; see the extension's documentation.
    ///
    /// Two boards that are equal apart from `seq` give the same text, whatever order their dictionaries and sets
    /// were filled in. Changing the layout changes every board's hash, so treat it as a versioned format.
    public func canonicalText() -> String {
        var out = ""
        out.reserveCapacity(256 + cards.count * 320)
        out += "{\"id\":"
        Board.writeJSONString(id.rawValue, into: &out)
        out += ",\"name\":"
        Board.writeJSONString(name, into: &out)
        out += ",\"columns\":"
        Board.writeArray(columns, into: &out) { column, out in
            out += "{\"id\":"
            Board.writeJSONString(column.id.rawValue, into: &out)
            out += ",\"name\":"
            Board.writeJSONString(column.name, into: &out)
            out += ",\"wip\":"
            if let wip = column.wip {
                out += "{\"limit\":"
                out += String(wip.limit)
                out += ",\"hard\":"
                out += wip.hard ? "true" : "false"
                out += "}"
            } else {
                out += "null"
            }
            if let inProgress = column.inProgress {
                out += ",\"in_progress\":"
                out += inProgress ? "true" : "false"
            }
            out += "}"
        }
        out += ",\"cards\":"
        Board.writeArray(cards.sorted { $0.key < $1.key }, into: &out) { entry, out in
            Board.writeCard(entry.value, into: &out)
        }
        out += ",\"labels\":"
        Board.writeArray(labels, into: &out) { label, out in
            out += "{\"id\":"
            Board.writeJSONString(label.id.rawValue, into: &out)
            out += ",\"name\":"
            Board.writeJSONString(label.name, into: &out)
            out += ",\"color\":"
            Board.writeJSONString(label.color.description, into: &out)
            out += "}"
        }
        out += ",\"milestones\":"
        Board.writeArray(milestones, into: &out) { milestone, out in
            out += "{\"id\":"
            Board.writeJSONString(milestone.id.rawValue, into: &out)
            out += ",\"title\":"
            Board.writeJSONString(milestone.title, into: &out)
            out += ",\"description\":"
            Board.writeJSONString(milestone.description, into: &out)
            out += ",\"due\":"
            Board.writeDay(milestone.due, into: &out)
            out += ",\"closed\":"
            out += milestone.closed ? "true" : "false"
            out += "}"
        }
        out += ",\"members\":"
        Board.writeArray(members.sorted { $0.key < $1.key }, into: &out) { entry, out in
            let member = entry.value
            out += "{\"id\":"
            Board.writeJSONString(member.id.rawValue, into: &out)
            out += ",\"role\":"
            Board.writeJSONString(member.role.rawValue, into: &out)
            out += ",\"name\":"
            Board.writeJSONString(member.name, into: &out)
            out += "}"
        }
        out += ",\"next_card_number\":"
        out += String(nextCardNumber)
        out += ",\"purged\":"
        Board.writeArray(purged.sorted(), into: &out) { id, out in
            Board.writeJSONString(id.rawValue, into: &out)
        }
        if let remindHours {
            out += ",\"remind_hours\":"
            out += String(remindHours)
        }
        out += "}"
        return out
    }

    /// The lowercase hex SHA-256 of the UTF-8 of `canonicalText()`: the board's content, for convergence checks.
    ///
    /// Equal for equal boards; `seq` is not part of it; compare `(seq, contentHash)` for convergence. It is finer
    /// than `==` in one way: strings count by their Unicode scalars, so canonically equivalent but differently
    /// encoded text (`"é"` vs `"e\u{301}"`) hashes differently, which is what byte-for-byte replicas should show.
    public var contentHash: String {
        var text = canonicalText()
        let digest = text.withUTF8 { Crypto.SHA256.hash(data: UnsafeRawBufferPointer($0)) }
        return Board.hex(digest)
    }

    /// `contentHash` as the protocol writes it (`subscribed.hash`): `sha256:` and the 64 lower-case hex digits.
    public var protocolHash: String { "sha256:" + contentHash }

    /// Lower-case hex of a digest's bytes.
    static func hex(_ digest: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: Writers

    /// Appends one card's object.
    private static func writeCard(_ card: Card, into out: inout String) {
        out += "{\"id\":"
        writeJSONString(card.id.rawValue, into: &out)
        out += ",\"number\":"
        out += String(card.number)
        out += ",\"column\":"
        writeJSONString(card.column.rawValue, into: &out)
        out += ",\"rank\":"
        writeJSONString(card.rank.rawValue, into: &out)
        out += ",\"title\":"
        writeJSONString(card.title, into: &out)
        out += ",\"description\":"
        writeJSONString(card.description, into: &out)
        out += ",\"description_seq\":"
        out += String(card.descriptionSeq)
        out += ",\"due\":"
        writeDay(card.due, into: &out)
        out += ",\"labels\":"
        writeArray(card.labels, into: &out) { id, out in writeJSONString(id.rawValue, into: &out) }
        out += ",\"assignees\":"
        writeArray(card.assignees, into: &out) { id, out in writeJSONString(id.rawValue, into: &out) }
        out += ",\"milestone\":"
        writeOptionalString(card.milestone?.rawValue, into: &out)
        out += ",\"checklist\":"
        writeArray(card.checklist, into: &out) { item, out in
            out += "{\"id\":"
            writeJSONString(item.id.rawValue, into: &out)
            out += ",\"text\":"
            writeJSONString(item.text, into: &out)
            out += ",\"done\":"
            out += item.done ? "true" : "false"
            out += "}"
        }
        out += ",\"comments\":"
        writeArray(card.comments, into: &out) { comment, out in
            out += "{\"id\":"
            writeJSONString(comment.id.rawValue, into: &out)
            out += ",\"author\":"
            writeJSONString(comment.author.rawValue, into: &out)
            out += ",\"at\":"
            out += String(comment.at.milliseconds)
            out += ",\"text\":"
            writeJSONString(comment.text, into: &out)
            out += ",\"edited_at\":"
            if let edited = comment.editedAt { out += String(edited.milliseconds) } else { out += "null" }
            out += "}"
        }
        out += ",\"closed\":"
        out += card.closed ? "true" : "false"
        out += ",\"archived\":"
        out += card.archived ? "true" : "false"
        out += ",\"ref\":"
        writeOptionalString(card.ref, into: &out)
        if !card.blockedBy.isEmpty {
            out += ",\"blocked_by\":"
            writeArray(card.blockedBy, into: &out) { id, out in writeJSONString(id.rawValue, into: &out) }
        }
        if let recur = card.recur {
            out += ",\"recur\":"
            out += recur.canonicalText
        }
        if !card.watchers.isEmpty {
            out += ",\"watchers\":"
            writeArray(card.watchers, into: &out) { id, out in writeJSONString(id.rawValue, into: &out) }
        }
        out += ",\"created_by\":"
        writeJSONString(card.createdBy.rawValue, into: &out)
        out += ",\"created_at\":"
        out += String(card.createdAt.milliseconds)
        out += ",\"updated_by\":"
        writeJSONString(card.updatedBy.rawValue, into: &out)
        out += ",\"updated_at\":"
        out += String(card.updatedAt.milliseconds)
        out += "}"
    }

    /// Appends `[e1,e2,…]`, writing each element with `write`.
    private static func writeArray<C: Collection>(
        _ elements: C, into out: inout String, _ write: (C.Element, inout String) -> Void
    ) {
        out += "["
        var first = true
        for element in elements {
            if !first { out += "," }
            first = false
            write(element, &out)
        }
        out += "]"
    }

    /// Appends `"YYYY-MM-DD"`, or `null`.
    private static func writeDay(_ day: Day?, into out: inout String) {
        writeOptionalString(day?.description, into: &out)
    }

    /// Appends a JSON string, or `null`.
    private static func writeOptionalString(_ s: String?, into out: inout String) {
        if let s { writeJSONString(s, into: &out) } else { out += "null" }
    }

    /// Appends `s` as a JSON string, byte-for-byte as `JSONValue.writeString` would (`JSONEscaping`).
    static func writeJSONString(_ s: String, into out: inout String) { JSONEscaping.append(s, to: &out) }
}
