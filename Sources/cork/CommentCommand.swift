import ArgumentParser
import BoardCore
import CorkApp

/// `cork comment CARD TEXT`.
struct CommentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "comment", abstract: "Comment on a card.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The card.") var card: String
    @Argument(help: "The comment.") var text: String
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let (card, text) = (card, text)
        guard !text.isEmpty else { throw CorkFailure.usage("the comment is empty") }
        try await CardChange.run(connection, json: json, verb: "commented on") { board throws(CorkFailure) in
            let found = try CardOps.card(card, on: board)
            return (found.id, [.addComment(card: found.id, comment: IDGenerator.commentID(), text: text)])
        }
    }
}

/// `cork say TEXT`: a chat message on the board.
struct SayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "say", abstract: "Send a chat message to the board.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The message.") var text: String
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        guard !text.isEmpty else { throw CorkFailure.usage("the message is empty") }
        let (text, json) = (text, json)
        let session = try connection.session()
        try await session.withBoard { client, board in
            let outcome = try await session.perform(.chat(text: text), on: client)
            Output.result(CorkJSON.ChangeResult(board: board.id, seq: outcome.seq), json: json, text: "said at seq \(outcome.seq)\n")
        }
    }
}
