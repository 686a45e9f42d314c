/// How the terminal is asked to tell the person about a new inbox entry while the full-screen board runs.
///
/// Desktop notifications by escape sequence are not standard: OSC 9 is iTerm2's (`ESC ] 9 ; text BEL`), OSC 777 is
/// rxvt-unicode's (`ESC ] 777 ; notify ; title ; body BEL`), and a terminal that knows neither may show the text or
/// misread it (ConEmu and Windows Terminal give OSC 9 other meanings). So a sequence is sent only where the terminal is
/// known to turn it into a notification, and only one of the two (a terminal that takes both would show two):
///
/// - OSC 9: iTerm2 (`TERM_PROGRAM=iTerm.app`) and kitty (`TERM` containing `kitty`);
/// - OSC 777: WezTerm and Ghostty (`TERM_PROGRAM=WezTerm`, `ghostty`), foot and rxvt-unicode (`TERM` containing
///   `foot` or `rxvt`; urxvt shows it with its `notify` extension);
/// - anything else, and any terminal inside tmux or GNU screen (`TMUX` or `STY` set, or `TERM` starting `tmux` or
///   `screen`), which swallow these sequences unless passthrough is set up but pass a bell on: BEL.
///
/// `TERM_PROGRAM` does not cross `ssh` unless configured to, so over ssh most terminals get the bell.
public enum TerminalNotification: String, Hashable, Sendable, CaseIterable {
    /// `ESC ] 9 ; text BEL`.
    case osc9
    /// `ESC ] 777 ; notify ; Corkboard ; text BEL`.
    case osc777
    /// BEL only.
    case bell

    /// What the terminal `environment` describes takes.
    public static func detect(_ environment: [String: String]) -> TerminalNotification {
        let term = environment["TERM"] ?? ""
        let program = environment["TERM_PROGRAM"] ?? ""
        func set(_ name: String) -> Bool { !(environment[name] ?? "").isEmpty }
        let multiplexed = set("TMUX") || set("STY") || term.hasPrefix("tmux") || term.hasPrefix("screen")
            || program == "tmux"
        if multiplexed { return .bell }
        switch program {
        case "iTerm.app": return .osc9
        case "WezTerm", "ghostty": return .osc777
        default: break
        }
        if term.contains("kitty") { return .osc9 }
        if term.contains("foot") || term.contains("rxvt") { return .osc777 }
        return .bell
    }

    /// The notification's title where the sequence has one (OSC 777).
    public static let title = "Corkboard"
    /// The longest text sent, in characters (notification centres cut long ones anyway).
    public static let textMax = 200

    /// The bytes to write for `text`: its control characters (ESC, BEL, C1 controls, line breaks) become spaces, so
    /// that the text cannot end the sequence early or send sequences of its own.
    public func sequence(_ text: String) -> String {
        let safe = FeedText.truncate(text, max: TerminalNotification.textMax)
        switch self {
        case .osc9: return "\u{1B}]9;\(safe)\u{07}"
        case .osc777: return "\u{1B}]777;notify;\(TerminalNotification.title);\(safe)\u{07}"
        case .bell: return "\u{07}"
        }
    }

    /// How `/set notify` describes it.
    var description: String {
        switch self {
        case .osc9, .osc777: "a terminal notification"
        case .bell: "a bell (this terminal has no notification cork knows of)"
        }
    }
}

/// How the full-screen board tells the person about a new inbox entry (`/set notify`), besides its feed line and
/// the count in the status line.
public enum InboxNotify: String, Hashable, Sendable, CaseIterable {
    /// The terminal's own notification where it has one cork knows (``TerminalNotification``), else a bell (the
    /// default).
    case on
    /// A bell.
    case bell
    /// Nothing.
    case off
}
