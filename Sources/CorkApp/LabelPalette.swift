import BoardCore

/// Colours and ids for labels created by name, e.g. by `cork add --label bug` when the board has no label "bug".
///
/// Well-known names get GitHub's colours (bug is red, documentation blue, …); any other name gets a colour from
/// `palette`, picked by a stable hash of the name, so the same name always gets the same colour on every machine.
public enum LabelPalette {
    /// GitHub's default label colours, by lower-cased name.
    public static let knownColors: [String: HexColor] = [
        "bug": hex("#d73a4a"),
        "documentation": hex("#0075ca"),
        "docs": hex("#0075ca"),
        "duplicate": hex("#cfd3d7"),
        "enhancement": hex("#a2eeef"),
        "feature": hex("#a2eeef"),
        "good first issue": hex("#7057ff"),
        "help wanted": hex("#008672"),
        "invalid": hex("#e4e669"),
        "question": hex("#d876e3"),
        "wontfix": hex("#ffffff"),
        "security": hex("#b60205"),
        "performance": hex("#fbca04"),
        "test": hex("#0e8a16"),
        "tests": hex("#0e8a16"),
        "chore": hex("#c5def5"),
    ]

    /// The colours other names are spread over: distinct, and each readable with dark or light text.
    public static let palette: [HexColor] = [
        "#b60205", "#d93f0b", "#fbca04", "#0e8a16", "#006b75", "#1d76db",
        "#0052cc", "#5319e7", "#e99695", "#f9d0c4", "#fef2c0", "#c2e0c6",
        "#bfdadc", "#c5def5", "#bfd4f2", "#d4c5f9",
    ].map(hex)

    /// The colour for a new label called `name`: its GitHub colour when well known, else a stable palette pick.
    ///
    /// Names compare ignoring case and surrounding spaces.
    public static func color(forName name: String) -> HexColor {
        let key = name.trimmingSpaces.lowercased()
        if let known = knownColors[key] { return known }
        return palette[Int(stableHash(key) % UInt64(palette.count))]
    }

    /// The id for a new label called `name`: lower-cased, characters outside `[A-Za-z0-9_.-]` replaced by `-`,
    /// cut to `Limits.idMaxLength`; `label` when nothing is left.
    public static func labelID(forName name: String) -> LabelID {
        LabelID(identifier(from: name.trimmingSpaces.lowercased(), fallback: "label"))
    }

    /// `labelID(forName:)`, with `-2`, `-3`, … appended when `board` already has a label with that id.
    public static func newLabelID(forName name: String, on board: Board) -> LabelID {
        let taken = Set(board.labels.map(\.id.rawValue))
        return LabelID(uniqueIdentifier(labelID(forName: name).rawValue, taken: taken))
    }

    /// 64-bit FNV-1a of the UTF-8 bytes: the same on every run and machine, unlike `hashValue`.
    public static func stableHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    private static func hex(_ text: String) -> HexColor { HexColor(text)! }
}

/// `text` made into an identifier: characters outside `[A-Za-z0-9_.-]` become `-`, cut to `Limits.idMaxLength`;
/// `fallback` when `text` is empty.
func identifier(from text: String, fallback: String) -> String {
    var out = ""
    for character in text {
        guard out.utf8.count < Limits.idMaxLength else { break }
        if character.isASCII, let ascii = character.asciiValue,
            (ascii >= 0x30 && ascii <= 0x39) || (ascii >= 0x41 && ascii <= 0x5A) || (ascii >= 0x61 && ascii <= 0x7A)
                || ascii == 0x5F || ascii == 0x2D || ascii == 0x2E
        {
            out.append(character)
        } else {
            out.append("-")
        }
    }
    return out.isEmpty ? fallback : out
}

/// `base`, or `base-2`, `base-3`, … (cut so it stays within `Limits.idMaxLength`): the first not in `taken`.
func uniqueIdentifier(_ base: String, taken: Set<String>) -> String {
    if !taken.contains(base) { return base }
    var n = 2
    while true {
        let suffix = "-\(n)"
        let candidate = String(base.utf8.prefix(Limits.idMaxLength - suffix.utf8.count))! + suffix
        if !taken.contains(candidate) { return candidate }
        n += 1
    }
}
