import BoardClient
import BoardCore

/// Which server and board a command talks to: `--url`, else `$CORK_URL`, else the profile saved by `cork join`;
/// `--board` overrides the URL's board, and a URL without one means `main`.
public struct ConnectionTarget: Hashable, Sendable {
    /// Where the URL came from, for messages.
    public enum Source: String, Hashable, Sendable {
        /// The `--url` option.
        case option = "--url"
        /// The `CORK_URL` environment variable.
        case environment = "$CORK_URL"
        /// The profile saved by `cork join`.
        case profile = "the saved profile"
        /// The URL given to `cork join`.
        case argument = "the URL"
    }

    /// The board used when neither the URL nor `--board` names one.
    public static let defaultBoard: BoardID = "main"

    /// The invite URL, with `board` set.
    public var url: InviteURL
    /// The board to open.
    public var board: BoardID
    /// Where the URL came from.
    public var source: Source

    /// Picks the URL and board. `profile` is only consulted when there is neither an option nor a variable.
    public static func resolve(
        option: String?, environment: [String: String], board: String?, profile: () throws(CorkFailure) -> Profile?
    ) throws(CorkFailure) -> ConnectionTarget {
        let text: String
        let source: Source
        if let option, !option.isEmpty {
            (text, source) = (option, .option)
        } else if let variable = environment["CORK_URL"], !variable.isEmpty {
            (text, source) = (variable, .environment)
        } else if let saved = try profile() {
            (text, source) = (saved.url, .profile)
        } else {
            throw CorkFailure.usage(
                "no server: pass --url cork://HOST:PORT/BOARD?token=…, set CORK_URL, or run cork join URL first")
        }
        return try target(text, source: source, board: board)
    }

    /// Parses `text` as an invite URL and applies the board override.
    public static func target(_ text: String, source: Source, board: String?) throws(CorkFailure) -> ConnectionTarget {
        var url: InviteURL
        // An invite URL never holds white space: what there is came with a copy across a terminal's line wrap.
        switch InviteURL.parse(String(text.unicodeScalars.filter { !$0.properties.isWhitespace })) {
        case .success(let parsed): url = parsed
        case .failure(let problem):
            throw CorkFailure.usage(
                "\(source.rawValue) is not an invite URL: \(problem); it should look like "
                    + "cork://HOST:PORT/BOARD?token=…&fp=sha256:…")
        }
        let chosen: BoardID
        if let board, !board.isEmpty {
            guard let id = BoardID(validating: board) else {
                throw CorkFailure.usage("\"\(board)\" is not a board id (1–64 characters of A–Z a–z 0–9 _ . -)")
            }
            chosen = id
        } else {
            chosen = url.board ?? defaultBoard
        }
        url.board = chosen
        return ConnectionTarget(url: url, board: chosen, source: source)
    }
}
