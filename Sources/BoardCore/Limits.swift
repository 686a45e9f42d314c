/// The size limits the reducer enforces. Each is documented in Protocol.md.
public enum Limits {
    /// Longest identifier, in bytes.
    public static let idMaxLength = 64
    /// Longest card title, in characters.
    public static let titleMaxCharacters = 200
    /// A board's reminder lead time, in hours (`board.remind`): from the due day itself to 30 days ahead.
    public static let remindHoursRange: ClosedRange<Int> = 0...720
    /// Longest card description, in UTF-8 bytes (16 KiB).
    public static let descriptionMaxBytes = 16 * 1024
    /// Longest label name, in characters.
    public static let labelNameMaxCharacters = 40
    /// Longest column name, in characters.
    public static let columnNameMaxCharacters = 40
    /// Longest board name, in characters.
    public static let boardNameMaxCharacters = 80
    /// Longest milestone title, in characters.
    public static let milestoneTitleMaxCharacters = 100
    /// Longest member display name, in characters.
    public static let memberNameMaxCharacters = 80
    /// Longest comment, in UTF-8 bytes.
    public static let commentMaxBytes = 8 * 1024
    /// Longest chat message, in UTF-8 bytes.
    public static let chatMaxBytes = 4 * 1024
    /// Longest checklist item, in characters.
    public static let checklistTextMaxCharacters = 200
    /// Longest external reference, in characters.
    public static let refMaxCharacters = 64
    /// Most columns on a board.
    public static let columnsMax = 20
    /// Most cards on a board, archived ones included.
    public static let cardsMax = 10_000
    /// Most labels on a board.
    public static let labelsMax = 100
    /// Most milestones on a board.
    public static let milestonesMax = 100
    /// Most members a board may ever have: the largest `members_max` a server may be configured with (the default
    /// is `membersDefault`). 100,000 members make a snapshot of about 4 MB, far below `server_line_max`.
    public static let membersMax = 100_000
    /// The default `members_max`: enough for a load test's 1,000 subscribers of distinct users plus publishers and
    /// an owner, or a large organisation's board.
    public static let membersDefault = 5_000
    /// Most labels on one card.
    public static let labelsPerCardMax = 20
    /// Most assignees of one card.
    public static let assigneesPerCardMax = 20
    /// Most members who pressed watch on one card.
    public static let watchersPerCardMax = 100
    /// Most cards one card waits for (`card.block`).
    public static let blockersPerCardMax = 20
    /// Longest reason for moving a blocked card into an in-progress column, in UTF-8 bytes.
    public static let forceReasonMaxBytes = 500
    /// Most checklist items on one card.
    public static let checklistItemsMax = 100
    /// Most comments on one card.
    public static let commentsPerCardMax = 1_000
    /// Largest WIP limit.
    public static let wipLimitMax = 1_000
}
