/// An input-line command as the `?` help and docs/terminal-client.md list it: how it is typed (the command, then its arguments) and
/// what it does. ``all`` is the list the input line takes, completes and documents.
public struct SlashCommand: Hashable, Sendable {
    /// How it is typed: `/due [CARD] YYYY-MM-DD|none` (CARD is `#12`, `12` or `ref:ID`; left out, the selected card).
    public var usage: String
    /// What it does, in a few words.
    public var summary: String

    /// The command itself: `/due`.
    public var name: String { String(usage.prefix { $0 != " " }) }

    /// Every command the input line takes, in the order the help lists them.
    public static let all = [
        SlashCommand(usage: AddCommandLine.usage, summary: "add a card to the selected column (options as in cork add; -- ends them)"),
        SlashCommand(usage: "/move CARD COLUMN", summary: "move a card to the bottom of a column"),
        SlashCommand(usage: "/edit [CARD] TITLE", summary: "retitle a card"),
        SlashCommand(usage: "/desc [CARD]", summary: "edit a card's description in $EDITOR"),
        SlashCommand(usage: "/due [CARD] YYYY-MM-DD|none", summary: "set or clear a card's due date (or today, tomorrow, +3, +2w, fri)"),
        SlashCommand(usage: "/label [CARD] +LABEL -LABEL…", summary: "add (+ or no sign; new labels are created) or remove labels; marked cards too"),
        SlashCommand(
            usage: "/labels [add NAME [COLOR] | color LABEL COLOR | rename LABEL NAME | remove LABEL]",
            summary: "the board's labels; add one, recolour (#RRGGBB or red, blue…), rename or remove one (it comes off every card)"),
        SlashCommand(usage: "/assign [CARD] USER", summary: "assign a member; marked cards too"),
        SlashCommand(
            usage: "/block [CARD] OTHER",
            summary: "the card waits for OTHER: it cannot enter an in-progress column (DOING) until OTHER is done"),
        SlashCommand(usage: "/unblock [CARD] OTHER", summary: "the card no longer waits for OTHER"),
        SlashCommand(
            usage: "/force REASON", summary: "move the card a blocked move was refused for anyway, giving the reason (editors)"),
        SlashCommand(
            usage: "/recur [CARD] day|weekday|week mon,thu|month N|after N|off",
            summary: "once done, the card comes back: every day, weekday, those days, day N of the month, or N days after; off stops it"),
        SlashCommand(usage: "/follow [CARD]", summary: "watch a card: its comments, moves and unblocking reach your inbox"),
        SlashCommand(usage: "/unfollow [CARD]", summary: "stop watching a card"),
        SlashCommand(usage: "/comment [CARD] TEXT", summary: "comment on a card"),
        SlashCommand(usage: "/close [CARD]", summary: "close a card; marked cards too"),
        SlashCommand(usage: "/reopen [CARD]", summary: "reopen a card; marked cards too"),
        SlashCommand(usage: "/archive [CARD | SEARCH]", summary: "archive a card (or the marked ones); else the archive view, searched"),
        SlashCommand(usage: "/restore [CARD]", summary: "restore an archived card"),
        SlashCommand(usage: "/undo [skip]", summary: "undo your newest change (as u); skip goes past one that is refused"),
        SlashCommand(usage: "/redo [skip]", summary: "redo what you undid (as U); skip goes past it"),
        SlashCommand(usage: "/filter [QUERY]", summary: "filter the board (label:bug @me due:overdue is:open \"words\"); none clears it"),
        SlashCommand(usage: "/who", summary: "who is here, and on which card"),
        SlashCommand(usage: "/away [MESSAGE]", summary: "say you are away; without a message, back"),
        SlashCommand(
            usage: "/board [ID | create ID [NAME] | remind HOURS|default]",
            summary: "the board picker (as b), or switch to a board, or create one; remind: how long before a due day reminders go out (owners)"),
        SlashCommand(
            usage: TUIModel.columnUsage,
            summary: "change the columns (a name with spaces in double quotes); progress: a blocked card cannot enter it"),
        SlashCommand(usage: "/milestones", summary: "the milestones (as M)"),
        SlashCommand(usage: "/members", summary: "members, roles, who is online; an owner sets roles with o e v b"),
        SlashCommand(usage: "/inbox", summary: "your inbox on every board (as I): Enter goes to the card; what it lists is marked read"),
        SlashCommand(usage: "/lastlog [WORDS]", summary: "the last 20 feed lines with WORDS in them"),
        SlashCommand(usage: "/keep", summary: "a description conflict: save yours over theirs"),
        SlashCommand(usage: "/theirs", summary: "a description conflict: keep theirs"),
        SlashCommand(usage: "/merge", summary: "a description conflict: merge both in $EDITOR"),
        SlashCommand(usage: "/set joins on|fold|off", summary: "joins and leaves each on a line, folded into one (default), or hidden"),
        SlashCommand(
            usage: "/set notify on|bell|off",
            summary: "a new inbox entry: the terminal's notification (default; a bell where it has none), a bell, or neither"),
        SlashCommand(usage: "/help", summary: "this help"),
        SlashCommand(usage: "/quit", summary: "quit (asks again while ops are queued)"),
    ]
}
