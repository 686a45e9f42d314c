import ArgumentParser
import BoardClient
import BoardCore
import CorkApp

/// `cork hook add|list|remove|test`: the board's outgoing webhooks (the board's owner only).
struct HookCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hook",
        abstract: "Manage the board's webhooks: corkd POSTs each committed change to a URL, signed.",
        discussion: """
            Only the board's owner manages its webhooks. corkd POSTs one JSON body per committed change that the \
            hook's events match, signed with HMAC-SHA256 (X-Corkboard-Signature: sha256=HEX), in seq order, and \
            retries failed deliveries with backoff for about 24 hours before it marks the hook failing; its \
            changes stay queued until it recovers or is removed. Examples/webhook_receiver.py verifies deliveries.

            Exit codes: 0 done; 1 the test delivery failed (or another failure); 2 a bad URL, events or secret \
            (the server says why); 3 you are not the board's owner; 4 cannot connect; 5 no such board or webhook.
            """,
        subcommands: [Add.self, List.self, Remove.self, Test.self])

    /// `cork hook add URL --events card.*,comment.add [--query Q] [--secret S]`.
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a webhook; prints its id, and the secret when corkd made it (shown only this once).",
            discussion: """
                URL must be https:// (http:// only to 127.0.0.1, ::1 or localhost, when corkd runs with \
                --hooks-allow-http-loopback). Targets that resolve to private or loopback addresses are refused \
                unless the operator allows them. --events takes op kinds (comment.add), families (card.*) or *. \
                --query takes a search query (as cork search does, e.g. "label:incident"): then only changes about \
                a card that matches it, on the board as it is at delivery, are sent (never chat or column changes); \
                @me in it is you, the hook's creator.
                """)

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "Where to POST the changes.")
        var url: String

        @Option(help: ArgumentHelp("The changes to send: op kinds, families or *, comma-separated.", valueName: "card.*,comment.add"))
        var events: String

        @Option(help: ArgumentHelp("Only changes about a card that matches this search query.", valueName: "label:incident"))
        var query: String?

        @Option(help: "The signing secret, 16-256 printable characters (default: corkd makes one and prints it once).")
        var secret: String?

        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            guard let entries = HookText.events(events) else { throw CorkFailure.usage("--events: name op kinds, families like card.* or *, comma-separated") }
            let (board, added) = try await HookCommand.request(connection) { client, board in
                try await client.addHook(board: board, url: url, events: entries, query: query, secret: secret)
            }
            var text = "added webhook \(added.hook) on \(board)\n"
            if let made = added.secret { text += "secret (shown only now; give it to the receiver): \(made)\n" }
            Output.result(CorkJSON.HookResult(board: board, hook: added.hook, secret: added.secret), json: json, text: text)
        }
    }

    /// `cork hook list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the board's webhooks: state, URL, events, query, how far delivered, the last error.")

        @OptionGroup var connection: ConnectionOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let (board, hooks) = try await HookCommand.request(connection) { client, board in try await client.hooks(board: board) }
            Output.result(CorkJSON.Hooks(board: board, hooks: hooks), json: json, text: HookText.list(hooks, board: board))
        }
    }

    /// `cork hook remove HOOK`.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a webhook; its queued changes are dropped.")

        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The webhook's id (from cork hook list).") var hook: String
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let (board, _) = try await HookCommand.request(connection) { client, board in
                try await client.removeHook(board: board, hook: hook)
            }
            Output.result(CorkJSON.HookResult(board: board, hook: hook), json: json, text: "removed webhook \(hook) from \(board)\n")
        }
    }

    /// `cork hook test HOOK`.
    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send a signed hook.test delivery now; exit 0 when the receiver answers 2xx, else 1.",
            discussion: "A failing webhook whose receiver answers the test is tried again at once.")

        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The webhook's id (from cork hook list).") var hook: String
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let (board, result) = try await HookCommand.request(connection) { client, board in
                try await client.testHook(board: board, hook: hook)
            }
            if json {
                Output.line(
                    CorkJSON.line(
                        CorkJSON.HookResult(
                            board: board, hook: hook, delivered: result.delivered, status: result.status,
                            detail: result.detail)))
            } else if result.delivered {
                Output.line("delivered: the receiver answered HTTP \(result.status ?? 200)")
            }
            guard result.delivered else {
                throw CorkFailure(.failure, "not delivered: \(result.detail ?? "the receiver did not answer 2xx")")
            }
        }
    }

    /// Connects (without following a board) and makes one hook request about the chosen board, errors mapped as
    /// ``mapped(_:)`` maps them; returns the board and the answer.
    static func request<T: Sendable>(
        _ connection: ConnectionOptions, _ body: (BoardClient, BoardID) async throws -> T
    ) async throws -> (board: BoardID, answer: T) {
        let session = try connection.session()
        let board = session.target.board
        let answer = try await session.withConnection { client, _ in try await mapped { try await body(client, board) } }
        return (board, answer)
    }

    /// Runs a hook request; the server's `bad_request` (a bad URL, events or secret) is a usage error (exit 2).
    static func mapped<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as ClientError {
            if let refusal = error.server, refusal.code == .badRequest { throw CorkFailure(.usage, refusal.message) }
            throw error
        }
    }
}
