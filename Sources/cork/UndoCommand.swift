import ArgumentParser
import BoardClient
import BoardCore
import CorkApp

/// `cork undo [--seq N]` and `cork redo`: the caller's own changes, through the server's undo.
struct UndoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo", abstract: "Undo your newest change on the board that is not undone yet.",
        discussion: """
            cork reads the board's history (its last \(UndoCommand.historyPages * UndoCommand.pageSize) records) \
            and undoes your newest change that is not undone yet, as the full-screen client's u does; chat is \
            passed over. --seq N undoes your change N instead. It says what it undid, in words.

            Exit 5 when you have nothing to undo; exit 3 when the server refuses: undo_conflict (someone changed \
            the same thing since; nothing was changed), not_undoable (purges, deletions of labels, milestones, \
            comments and columns, member changes) or forbidden (someone else's change). A refused undo changes \
            nothing, so the next undo names the same change: undo an older one with --seq N (N from cork history).
            """)

    @OptionGroup var connection: ConnectionOptions
    @Option(help: "Undo your change with this seq instead of the newest.") var seq: UInt64?
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        try await Self.run(.undo, seq: seq, connection: connection, json: json)
    }

    /// How many history pages are read to find the change.
    static let historyPages = 4
    /// Records per page (the protocol's `history_page_max`).
    static let pageSize = 500

    /// Finds the change (`seq`, or the newest of `direction`'s side), asks the server to undo it and prints the
    /// outcome.
    static func run(_ direction: UndoStack.Direction, seq: UInt64?, connection: ConnectionOptions, json: Bool) async throws {
        let session = try connection.session()
        try await session.withBoard { client, board in
            guard let user = await client.user else { throw CorkFailure(.failure, "no user after welcome") }
            let activities = try await recentHistory(client)
            let target: UndoStack.Entry
            if let seq {
                let words = activities.first { $0.seq == seq }.map { FeedSentence.describe($0, after: board) } ?? "seq \(seq)"
                target = UndoStack.Entry(seq: seq, words: words)
            } else {
                let stack = UndoPlan.stack(for: user, activities: activities, board: board)
                guard let newest = (direction == .undo ? stack.undoable : stack.redoable).last else {
                    let what = direction == .undo ? "nothing of yours to undo" : "nothing of yours to redo"
                    throw CorkFailure(.notFound, "\(what) on board \(board.id)")
                }
                target = newest
            }
            let outcome: OpOutcome
            let mut: UInt64
            do {
                mut = try await client.undo(seq: target.seq)
            } catch {
                throw CorkFailure.from(error)
            }
            do {
                outcome = try await client.outcome(of: mut, timeout: session.timeout)
            } catch {
                throw CorkFailure(afterSending: error)
            }
            let newSeq: UInt64
            let noop: Bool
            switch outcome {
            case .applied(let seq):
                newSeq = seq
                noop = false
            case .noop(let seq):
                newSeq = seq
                noop = true
            case .rejected(let reject):
                var failure = CorkFailure(reject: reject)
                failure.message = "could not \(direction.verb) seq \(target.seq) (\(target.words)): \(failure.message)"
                throw failure
            }
            if json {
                Output.line(
                    CorkJSON.line(
                        CorkJSON.Undone(
                            board: board.id, action: direction.verb, seq: newSeq, undid: target.seq, change: target.words,
                            noop: noop)))
            } else {
                Output.line("\(direction.done) seq \(target.seq): \(target.words) (now seq \(newSeq))\(noop ? " (no change)" : "")")
            }
        }
    }

    /// The board's latest activity records, oldest first: up to `historyPages` × `pageSize` of them. A page of long
    /// comments holds fewer records than asked (the server bounds a reply's bytes), so it reads on until it has
    /// them, within a bound on the round trips.
    static func recentHistory(_ client: BoardClient) async throws(CorkFailure) -> [Activity] {
        var activities: [Activity] = []
        var before: UInt64?
        let wanted = historyPages * pageSize
        do {
            for _ in 0..<(historyPages * 16) where activities.count < wanted {
                let page = try await client.history(before: before, limit: min(pageSize, wanted - activities.count))
                activities.insert(contentsOf: page.activities.sorted { $0.seq < $1.seq }, at: 0)
                guard page.more, let first = activities.first?.seq else { break }
                before = first
            }
        } catch {
            throw CorkFailure.from(error)
        }
        return activities
    }
}

/// `cork redo`: undoes your newest undo.
struct RedoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "redo", abstract: "Redo the change your newest cork undo (or u) took back.",
        discussion: """
            A redo is an undo of your undo, through the server (Protocol.md, "Undo"). Another change of yours in \
            between leaves nothing to redo, as in an editor. Exit 5 when there is nothing to redo; exit 3 when the \
            server refuses (undo_conflict: someone changed the same thing since; not_undoable: the undo deleted \
            something, e.g. it took back a column or label you had created).
            """)

    @OptionGroup var connection: ConnectionOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        try await UndoCommand.run(.redo, seq: nil, connection: connection, json: json)
    }
}
