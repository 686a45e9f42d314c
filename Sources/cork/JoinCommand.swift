import ArgumentParser
import CorkApp

/// `cork join URL`: checks that the URL works and saves it as the profile.
struct JoinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Connect once with an invite URL and save it as the default (mode 0600).",
        discussion: "The server's fingerprint is remembered for its address: a later URL with another one is refused.")

    @Argument(help: "The invite URL: cork://HOST:PORT/BOARD?token=…&fp=sha256:…")
    var url: String

    @Option(help: "Save this board instead of the URL's.")
    var board: String?

    func run() async throws {
        guard let directory = ConnectionOptions.directory else {
            throw CorkFailure(.failure, "neither XDG_CONFIG_HOME nor HOME is set; nowhere to save the profile")
        }
        let target = try ConnectionTarget.target(url, source: .argument, board: board)
        let session = CorkSession(target: target, directory: directory)
        let welcome = try await session.withConnection { _, welcome in welcome }
        try Profile(url: target.url.description).save(in: directory)
        Output.line(
            "joined \(KnownHosts.key(target.url)) as \(welcome.user), board \(target.board); "
                + "saved to \(directory.profileFile.path)")
    }
}
