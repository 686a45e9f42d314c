import BoardClient
import BoardCore
import Foundation
import TerminalUI

/// Runs the full-screen client: terminal events and client events go through ``TUIModel/update(_:)``, effects go to
/// the client, and each new frame is drawn by writing only the cells that changed.
///
/// The only impure part of the TUI: it owns the terminal, the client and `$EDITOR`. With nothing happening it waits
/// on its streams and uses no CPU (ticks run only while ``TUIModel/needsTicks``: a highlight is fading or the
/// reconnect countdown is shown).
public struct TUIRunner {
    let client: BoardClient
    let terminal: Terminal
    let environment: [String: String]

    /// A runner for `client` on the process's terminal.
    public init(client: BoardClient, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.client = client
        self.terminal = Terminal()
        self.environment = environment
    }

    /// Whether stdin and stdout are a terminal (the full-screen board needs one).
    public static var hasTerminal: Bool { Terminal().isTerminal }

    /// What to say when there is no terminal.
    public static let noTerminal = "the full-screen board needs a terminal; in scripts use a subcommand (cork --help)"

    /// Why the terminal `environment` describes cannot show the full-screen board, or nil when it can: one without
    /// cursor addressing (`TERM=dumb`, as Emacs shells and some CI logs set it, or no `TERM` at all) would get the
    /// alternate screen and cursor movements as garbage.
    public static func terminalProblem(_ environment: [String: String]) -> String? {
        let term = environment["TERM"] ?? ""
        guard term.isEmpty || term == "dumb" || term == "unknown" else { return nil }
        let named = term.isEmpty ? "TERM is not set" : "TERM=\(term)"
        return "the full-screen board needs a terminal that can move the cursor (\(named)); "
            + "`cork show` prints the board and `cork watch` follows the changes in any terminal"
    }

    /// Why a full-screen stretch ended.
    enum Pause {
        case quit
        case edit(String, EditorPurpose)
    }

    /// Runs until the user quits (or a signal ends it); the terminal is restored on every path.
    public func run(board: Board) async throws {
        guard terminal.isTerminal else {
            throw TUIFailure(TUIRunner.noTerminal)
        }
        let size = terminal.size() ?? TerminalSize(width: 80, height: 24)
        var model = TUIModel(boardID: board.id, width: size.width, height: size.height, today: CardOps.utcToday)
        model.journalKept = client.configuration.journal != nil
        // As any later size: a terminal too small for the board is laid out at the minimum and asks for more room.
        _ = model.update(.resize(width: size.width, height: size.height))
        model.board = board
        model.user = await client.user
        model.connection = await client.state
        model.limits = await client.welcome?.limits ?? .defaults
        model.inbox.available = await client.offersInbox
        model.terminalNotification = TerminalNotification.detect(environment)
        let renderer = Renderer(colorMode: ColorMode.detect(environment: environment))
        let (messages, sink) = AsyncStream.makeStream(of: TUIMessage.self)
        let (ticks, tickSink) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let (fetches, fetchSink) = AsyncStream.makeStream(of: CardID.self, bufferingPolicy: .bufferingNewest(1))
        let (requests, requestSink) = AsyncStream.makeStream(of: TUIEffect.self, bufferingPolicy: .bufferingNewest(4))
        // Inbox pages and reads, in order; none dropped (a read dropped would leave entries unread).
        let (inboxRequests, inboxSink) = AsyncStream.makeStream(of: TUIEffect.self)
        // A feed that starts empty shows what happened lately on the board (the answer comes as `.backlog`).
        requestSink.yield(.fetchBacklog(board.id))
        let client = self.client
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in client.events { sink.yield(.client(event)) }
            }
            group.addTask {
                for await _ in ticks {
                    try await Task.sleep(for: .milliseconds(TUIModel.tickMilliseconds))
                    sink.yield(.tick)
                }
            }
            // Card histories for the detail, one at a time, off the screen's loop (which stays live meanwhile).
            group.addTask {
                for await card in fetches {
                    do throws(ClientError) {
                        let page = try await client.history(
                            card: card, limit: CardHistory.fetchLimit, timeout: CardHistory.fetchTimeout)
                        sink.yield(.history(card, page))
                    } catch {
                        sink.yield(.historyFailed(card, error.message))
                    }
                }
            }
            // Board lists and creations (the picker), one at a time, off the screen's loop too.
            group.addTask {
                for await request in requests {
                    await TUIRunner.answer(request, client: client, sink: sink)
                }
            }
            // The inbox's requests, one at a time, off the screen's loop too.
            group.addTask {
                for await request in inboxRequests {
                    await TUIRunner.inbox(request, client: client, sink: sink)
                }
            }
            var iterator = messages.makeAsyncIterator()
            defer { group.cancelAll() }
            while true {
                let pause = try await terminal.withFullScreen {
                    try await terminal.withEvents { events in
                        try await loop(
                            &model, &iterator, events: events, sink: sink, ticks: tickSink, fetches: fetchSink,
                            requests: requestSink, inbox: inboxSink, renderer: renderer)
                    }
                }
                switch pause {
                case .quit:
                    sink.finish()
                    tickSink.finish()
                    fetchSink.finish()
                    requestSink.finish()
                    inboxSink.finish()
                    return
                case .edit(let text, let purpose):
                    let result = await runEditor(text)
                    sink.yield(.edited(purpose, result))
                }
            }
        }
    }

    /// One full-screen stretch: forwards terminal events into `sink`, updates, performs effects and draws, until a
    /// quit or an editor is wanted.
    func loop(
        _ model: inout TUIModel, _ iterator: inout AsyncStream<TUIMessage>.Iterator, events: AsyncStream<TerminalEvent>,
        sink: AsyncStream<TUIMessage>.Continuation, ticks: AsyncStream<Void>.Continuation,
        fetches: AsyncStream<CardID>.Continuation, requests: AsyncStream<TUIEffect>.Continuation,
        inbox: AsyncStream<TUIEffect>.Continuation, renderer: Renderer
    ) async throws -> Pause {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in events {
                    switch event {
                    case .key(let key): sink.yield(.key(key))
                    case .resize(let size): sink.yield(.resize(width: size.width, height: size.height))
                    case .signal(SIGTSTP): sink.yield(.key(.ctrl("z")))  // `kill -TSTP`: as Ctrl-Z
                    case .signal(SIGCONT): sink.yield(.continued)
                    case .signal, .endOfInput:
                        sink.yield(.key(.ctrl("c")))
                        return
                    }
                }
            }
            defer { group.cancelAll() }
            var previous: ScreenBuffer?
            try draw(model, previous: &previous, renderer: renderer)
            while let message = await iterator.next() {
                // Whether this server has an inbox is known with each welcome (a reconnect may reach another one).
                if case .client(.connection(.connected)) = message { model.inbox.available = await client.offersInbox }
                let effects = model.update(message)
                for effect in effects {
                    switch effect {
                    case .quit: return .quit
                    case .edit(let text, let purpose): return .edit(text, purpose)
                    case .fetchHistory(let card): fetches.yield(card)
                    case .listBoards, .createBoard, .fetchBacklog: requests.yield(effect)
                    case .fetchInbox, .markInboxRead: inbox.yield(effect)
                    case .notify(let sequence):
                        // Between frames: an OSC or a bell moves no cursor, so the next frame draws as planned.
                        try terminal.write(sequence)
                    case .repaint: previous = nil
                    case .suspend, .redraw:
                        if effect == .suspend { try terminal.suspend() } else { try terminal.resumeFullScreen() }
                        // The shell wrote over the screen, and the window may have changed size meanwhile.
                        previous = nil
                        if let size = terminal.size() { _ = model.update(.resize(width: size.width, height: size.height)) }
                    default: await perform(effect, on: &model)
                    }
                }
                model.pendingCount = await client.pendingOps.count
                if case .client(.connection(.connected)) = message, let limits = await client.welcome?.limits {
                    model.limits = limits
                }
                if model.needsTicks { ticks.yield() }
                try draw(model, previous: &previous, renderer: renderer)
            }
            return .quit
        }
    }

    /// Writes the cells that changed since `previous`.
    func draw(_ model: TUIModel, previous: inout ScreenBuffer?, renderer: Renderer) throws {
        let next = model.render()
        let bytes = renderer.render(from: previous, to: next)
        if !bytes.isEmpty { try terminal.write(bytes) }
        previous = next
    }

    /// Does what an effect asks; failures land in the feed.
    func perform(_ effect: TUIEffect, on model: inout TUIModel) async {
        do {
            switch effect {
            case .submit(let op): model.submitted(op, mut: try await client.submit(op))
            case .undo(let seq): try await client.undo(seq: seq)
            case .presence(let state, let card, let column, let index, let away):
                // While away (`/away`), every update says so, with the note: an update without `away` would tell
                // the others the person is back.
                let away = away ?? (model.away != nil ? true : nil)
                await client.setPresence(
                    state, card: card, column: column, index: index, away: away, awayNote: away == true ? model.away : nil)
            case .switchBoard(let board): await client.switchBoard(to: board)
            case .reconnectNow: await client.reconnectNow()
            case .edit, .quit, .fetchHistory, .suspend, .redraw, .repaint, .listBoards, .createBoard, .fetchBacklog,
                .fetchInbox, .markInboxRead, .notify:
                break
            }
        } catch {
            model.post(FeedEntry("\(error.message)", kind: .error))
        }
    }

    /// Asks the server what the board picker needs (the board list, a new board) and reports the answer to `sink`.
    static func answer(_ request: TUIEffect, client: BoardClient, sink: AsyncStream<TUIMessage>.Continuation) async {
        do throws(ClientError) {
            switch request {
            case .listBoards:
                sink.yield(.boards(try await client.boards(timeout: boardRequestTimeout)))
            case .createBoard(let id, let name):
                try await client.createBoard(id, name: name, timeout: boardRequestTimeout)
                sink.yield(.boardCreated(id))
            case .fetchBacklog(let board):
                // Best effort: a feed without its backlog is still a feed.
                if let page = try? await client.history(limit: TUIModel.backlogLines, timeout: boardRequestTimeout) {
                    sink.yield(.backlog(board, page))
                }
            default:
                break
            }
        } catch {
            sink.yield(.boardsFailed(error.message))
        }
    }

    /// Reads or marks the user's inbox and reports the page (or why it failed) to `sink`.
    static func inbox(_ request: TUIEffect, client: BoardClient, sink: AsyncStream<TUIMessage>.Continuation) async {
        do throws(ClientError) {
            switch request {
            case .fetchInbox:
                let page = try await client.inbox(limit: TUIModel.inboxPageSize, timeout: boardRequestTimeout)
                sink.yield(.inbox(page.entries, unread: page.unread))
            case .markInboxRead(let ids):
                try await client.markInboxRead(ids: ids, all: false, timeout: boardRequestTimeout)
            default:
                break
            }
        } catch {
            sink.yield(.inboxFailed(error.message))
        }
    }

    /// How long the board picker waits for the server to list or create boards.
    static let boardRequestTimeout = Duration.seconds(10)

    /// Opens `$VISUAL` / `$EDITOR` (else `vi`) on `text` in a temporary file; the new text, or nil if unchanged.
    func runEditor(_ text: String) async -> String? {
        await TUIRunner.runEditor(text, environment: environment)
    }

    /// Opens `$VISUAL` / `$EDITOR` from `environment` (else `vi`) on `text` in a temporary file; the new text, or nil
    /// if unchanged or the editor failed.
    static func runEditor(_ text: String, environment: [String: String]) async -> String? {
        let editor = environment["VISUAL"] ?? environment["EDITOR"] ?? "vi"
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("cork-\(UUID().uuidString).md")
        defer { try? FileManager.default.removeItem(at: file) }
        do {
            // A text file ends in a newline (editors expect it, and some flag or add it); the text does not need one.
            let contents = text.isEmpty || text.hasSuffix("\n") ? text : text + "\n"
            try contents.write(to: file, atomically: true, encoding: .utf8)
            guard await Self.runInForeground(["/bin/sh", "-c", "\(editor) \"$1\"", "cork-editor", file.path]) == 0 else {
                return nil
            }
            let edited = try String(contentsOf: file, encoding: .utf8)
            let trimmed = edited.hasSuffix("\n") && !text.hasSuffix("\n") ? String(edited.dropLast()) : edited
            return trimmed == text ? nil : trimmed
        } catch {
            return nil
        }
    }
}

extension TUIRunner {
    /// Runs `arguments` (a path and its arguments) in this process's group, which holds the terminal, and returns its
    /// exit status (nil when it could not start or was killed by a signal).
    ///
    /// Not Foundation's `Process`: on Linux it starts the child in a process group of its own, which the terminal
    /// treats as a background job, so an editor is stopped (SIGTTIN) the moment it reads a key. Here the editor shares
    /// cork's group, the terminal's foreground. While it runs cork ignores SIGINT and SIGQUIT, as git does around its
    /// editor: a Ctrl-C that the editor leaves to the terminal ends the editor, not cork and its queued changes. The
    /// child starts with both at their defaults. The wait is on a thread of its own, not a concurrency thread: the
    /// client must keep answering the server meanwhile.
    static func runInForeground(_ arguments: [String]) async -> Int32? {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGQUIT)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))

        let previousInterrupt = signal(SIGINT, SIG_IGN)
        let previousQuit = signal(SIGQUIT, SIG_IGN)
        defer {
            signal(SIGINT, previousInterrupt)
            signal(SIGQUIT, previousQuit)
        }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid = pid_t()
        guard posix_spawn(&pid, arguments[0], nil, &attributes, &argv, environ) == 0 else { return nil }
        let child = pid
        return await withCheckedContinuation { (done: CheckedContinuation<Int32?, Never>) in
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(child, &status, 0) == -1 && errno == EINTR {}
                // WIFEXITED / WEXITSTATUS, which Swift does not import from the C macros.
                done.resume(returning: status & 0x7f == 0 ? (status >> 8) & 0xff : nil)
            }
        }
    }
}

/// The full-screen client could not run.
public struct TUIFailure: Error, CustomStringConvertible {
    /// Why.
    public var description: String
    init(_ description: String) { self.description = description }
}
