import BoardCore

/// Trello's label colour names and the hex colours Corkboard gives them.
///
/// The ten base names use Trello's classic colours; the `_dark` and `_light` variants that Trello has emitted since
/// 2022 get a darker and a lighter shade of the same hue. A label with no colour (`null`) is grey.
public enum TrelloColor {
    /// Hex colours by Trello colour name.
    public static let hex: [String: HexColor] = [
        "green": "#61bd4f", "yellow": "#f2d600", "orange": "#ff9f1a", "red": "#eb5a46", "purple": "#c377e0",
        "blue": "#0079bf", "sky": "#00c2e0", "lime": "#51e898", "pink": "#ff78cb", "black": "#344563",
        "green_dark": "#519839", "yellow_dark": "#d9b51c", "orange_dark": "#cd8313", "red_dark": "#b04632",
        "purple_dark": "#89609e", "blue_dark": "#055a8c", "sky_dark": "#0098b7", "lime_dark": "#4bbf6b",
        "pink_dark": "#cd5a91", "black_dark": "#091e42",
        "green_light": "#d6ecd2", "yellow_light": "#faf3c0", "orange_light": "#fce6c6", "red_light": "#f5d3ce",
        "purple_light": "#eddbf4", "blue_light": "#bcd9ea", "sky_light": "#bdecf3", "lime_light": "#b3f1d0",
        "pink_light": "#f9d2e5", "black_light": "#c1c7d0",
    ].mapValues { HexColor($0)! }

    /// The colour of labels without one, and of colour names Corkboard does not know.
    public static let grey = HexColor("#b3bac5")!

    /// The hex colour for a Trello colour name (`nil` or unknown: grey).
    public static func color(named name: String?) -> HexColor {
        name.flatMap { hex[$0.lowercased()] } ?? grey
    }

    /// The name an unnamed label gets from its colour: `green`, `dark green`, `light sky`, or `grey` for none.
    public static func labelName(forColor name: String?) -> String {
        guard let name = name?.lowercased(), !name.isEmpty else { return "grey" }
        if name.hasSuffix("_dark") { return "dark " + name.dropLast(5) }
        if name.hasSuffix("_light") { return "light " + name.dropLast(6) }
        return name.replacingOccurrences(of: "_", with: " ")
    }
}
