import BoardClient
import BoardCore
import BoardWire
import Testing

/// The replica as Protocol.md's sync model describes it: confirmed board + pending ops, rebase, reject, gaps.
@Suite struct ReplicaTests {
    static let t0 = Timestamp(milliseconds: 1_767_225_600_000)
    static let me = ClientID("me-1")
    static let other = ClientID("other-1")

    /// A board with TODO/DOING/DONE owned by alice, bob an editor, and card c1 in TODO.
    static func board() -> Board {
        var board = Board(id: "main", name: "Main", owner: "alice")
        board.members["bob"] = Member(id: "bob", role: .editor)
        let context = ApplyContext(actor: "alice", role: .owner, now: t0, seq: 1)
        return try! board.applying(.addCard(AddCard(card: "c1", column: "todo", title: "First")), context: context)
            .get().board
    }

    static func loaded(user: UserID = "bob") -> Replica {
        var replica = Replica(board: "main", user: user)
        replica.clientID = me
        _ = replica.load(board(), seq: 1, epoch: "e1")
        return replica
    }

    /// The delta the server would broadcast for `op` at `seq`.
    static func delta(
        _ op: Op, seq: UInt64, actor: UserID = "alice", client: ClientID? = other, mut: UInt64? = 1, on base: Board
    ) -> ServerMessage.Delta {
        let change = try! base.applying(op, context: ApplyContext(actor: actor, role: .owner, now: t0, seq: seq)).get()
        return ServerMessage.Delta(
            board: "main", seq: seq, at: t0, actor: actor, clientID: client, mut: mut, op: op, activity: change.activity)
    }

    @Test func aForeignDeltaAppliesToConfirmedAndPendingOpsStayOnTop() throws {
        var replica = Self.loaded()
        replica.enqueue(
            PendingOp(board: "main", mut: 1, request: .op(.editCard(EditCard(card: "c1", title: "Mine")))), now: Self.t0)
        #expect(replica.view?.cards["c1"]?.title == "Mine")
        // Alice renames the card meanwhile (server order: before ours).
        let foreign = Self.delta(.editCard(EditCard(card: "c1", title: "Hers")), seq: 2, on: replica.confirmed!)
        let result = replica.receive(foreign)
        #expect(result.applied.count == 1)
        #expect(replica.confirmed?.cards["c1"]?.title == "Hers")
        // Figma's rule: the field the user changed keeps the user's value while the op is pending.
        #expect(replica.view?.cards["c1"]?.title == "Mine")
        // Our own delta arrives: pending clears, and the view is the confirmed board.
        let own = Self.delta(
            .editCard(EditCard(card: "c1", title: "Mine")), seq: 3, actor: "bob", client: Self.me, mut: 1,
            on: replica.confirmed!)
        let done = replica.receive(own)
        #expect(done.completed.map(\.op.mut) == [1])
        #expect(done.completed.map(\.seq) == [3])
        #expect(replica.pending.isEmpty)
        #expect(replica.view == replica.confirmed)
        #expect(replica.view?.cards["c1"]?.title == "Mine")
    }

    @Test func anotherClientsDeltaWithTheSameMutDoesNotCompleteMine() {
        var replica = Self.loaded()
        replica.enqueue(PendingOp(board: "main", mut: 1, request: .op(.closeCard(card: "c1"))), now: Self.t0)
        let theirs = Self.delta(.closeCard(card: "c1"), seq: 2, actor: "bob", client: Self.other, mut: 1, on: replica.confirmed!)
        let result = replica.receive(theirs)
        #expect(result.completed.isEmpty)
        #expect(replica.pending.count == 1)
    }

    @Test func aRejectDropsTheOpAndRollsTheViewBack() {
        var replica = Self.loaded()
        replica.enqueue(
            PendingOp(board: "main", mut: 1, request: .op(.moveCard(card: "c1", column: "done", placement: .bottom))),
            now: Self.t0)
        #expect(replica.view?.cards["c1"]?.column == "done")
        let dropped = replica.reject(mut: 1)
        #expect(dropped?.mut == 1)
        #expect(replica.view?.cards["c1"]?.column == "todo")
        #expect(replica.reject(mut: 1) == nil)
    }

    @Test func aDeltaAfterAGapIsHeldUntilTheGapIsFilled() {
        var replica = Self.loaded()
        let base = replica.confirmed!
        let d2 = Self.delta(.closeCard(card: "c1"), seq: 2, on: base)
        let afterD2 = try! base.applying(d2.op, context: ApplyContext(actor: "alice", role: .owner, now: Self.t0, seq: 2)).get().board
        let d3 = Self.delta(.editCard(EditCard(card: "c1", title: "Three")), seq: 3, on: afterD2)
        let afterD3 = try! afterD2.applying(d3.op, context: ApplyContext(actor: "alice", role: .owner, now: Self.t0, seq: 3)).get().board
        let d4 = Self.delta(.reopenCard(card: "c1"), seq: 4, on: afterD3)

        let early = replica.receive(d4)
        #expect(early.gap == 2...3)
        #expect(early.applied.isEmpty)
        #expect(replica.seq == 1)
        let stillEarly = replica.receive(d3)
        #expect(stillEarly.gap == 2...2)
        let filled = replica.receive(d2)
        #expect(filled.applied.map(\.seq) == [2, 3, 4])
        #expect(filled.gap == nil)
        #expect(replica.seq == 4)
        #expect(replica.confirmed?.cards["c1"]?.title == "Three")
        #expect(replica.confirmed?.cards["c1"]?.closed == false)
        // A duplicate is ignored.
        #expect(replica.receive(d3).ignored)
        #expect(replica.heldCount == 0)
    }

    @Test func aNoopAckCompletesTheOpAndAnAckedOpWaitsForItsDelta() {
        var replica = Self.loaded()
        replica.enqueue(PendingOp(board: "main", mut: 1, request: .op(.reopenCard(card: "c1"))), now: Self.t0)
        replica.enqueue(PendingOp(board: "main", mut: 2, request: .op(.closeCard(card: "c1"))), now: Self.t0)
        #expect(replica.acknowledge(mut: 1, seq: 1, noop: true, subscribed: true)?.mut == 1)
        #expect(replica.acknowledge(mut: 2, seq: 2, noop: false, subscribed: true) == nil)
        #expect(replica.pending.map(\.ackedSeq) == [2])
        #expect(replica.view?.cards["c1"]?.closed == true)
    }

    @Test func aSnapshotDropsPendingOpsItAlreadyContains() {
        var replica = Self.loaded()
        replica.enqueue(PendingOp(board: "main", mut: 1, request: .op(.closeCard(card: "c1"))), now: Self.t0)
        replica.enqueue(PendingOp(board: "main", mut: 2, request: .op(.editCard(EditCard(card: "c1", title: "T")))), now: Self.t0)
        _ = replica.acknowledge(mut: 1, seq: 2, noop: false, subscribed: true)
        var server = replica.confirmed!
        _ = server.apply(.closeCard(card: "c1"), context: ApplyContext(actor: "bob", role: .owner, now: Self.t0, seq: 2))
        let done = replica.load(server, seq: 2, epoch: "e1")
        #expect(done.map(\.mut) == [1])
        #expect(replica.pending.map(\.mut) == [2])
        #expect(replica.view?.cards["c1"]?.title == "T")
        #expect(replica.view?.cards["c1"]?.closed == true)
    }

    @Test func aSnapshotOfAnotherEpochDropsHeldDeltasAndForgetsAcks() {
        var replica = Self.loaded()
        replica.enqueue(PendingOp(board: "main", mut: 1, request: .op(.closeCard(card: "c1"))), now: Self.t0)
        _ = replica.acknowledge(mut: 1, seq: 5, noop: false, subscribed: true)
        let early = Self.delta(.reopenCard(card: "c1"), seq: 4, on: replica.confirmed!)
        #expect(replica.receive(early).gap == 2...3)
        // The store was restored from a backup: epoch e2 at seq 1. Seq 4 of e1 means nothing in e2.
        let done = replica.load(Self.board(), seq: 1, epoch: "e2")
        #expect(done.isEmpty)
        #expect(replica.heldCount == 0)
        #expect(replica.pending.map(\.ackedSeq) == [nil])
        #expect(replica.gap == nil)
    }

    @Test func aDeltaThatDoesNotApplyReportsDivergence() {
        var replica = Self.loaded()
        let bogus = ServerMessage.Delta(
            board: "main", seq: 2, at: Self.t0, actor: "alice", op: .closeCard(card: "nope"),
            activity: Activity(seq: 2, at: Self.t0, actor: "alice", kind: "card.close", changes: [:]))
        let result = replica.receive(bogus)
        #expect(result.diverged?.code == .notFound)
        #expect(replica.seq == 1)
    }

    @Test func anUndoRequestIsNotShownUntilItsDelta() {
        var replica = Self.loaded()
        let before = replica.view
        replica.enqueue(PendingOp(board: "main", mut: 1, request: .undo(seq: 1)), now: Self.t0)
        #expect(replica.view == before)
        #expect(replica.pending.count == 1)
    }

    // MARK: - What changed (per-delta work in proportion to the change)

    @Test func aDeltaReportsTheCardsAndColumnsItChanged() throws {
        var replica = Self.loaded()
        let move = Self.delta(
            .moveCard(card: "c1", column: "doing", placement: Placement()), seq: 2, on: replica.confirmed!)
        let moved = replica.receive(move)
        #expect(moved.changes == .parts(cards: ["c1"], columns: ["todo", "doing"]))
        let chat = Self.delta(.chat(text: "hi"), seq: 3, on: replica.confirmed!)
        #expect(replica.receive(chat).changes.isEmpty)
        let label = Self.delta(
            .createLabel(label: "l1", name: "bug", color: HexColor("#ff0000")!), seq: 4, on: replica.confirmed!)
        #expect(replica.receive(label).changes == .everything)
        // A duplicate changes nothing.
        #expect(replica.receive(move).changes.isEmpty)
    }

    @Test func aRebaseReportsThePendingOpsSubjectsToo() throws {
        var replica = Self.loaded()
        var second = Self.board()
        let context = ApplyContext(actor: "alice", role: .owner, now: Self.t0, seq: 2)
        second = try second.applying(.addCard(AddCard(card: "c2", column: "done", title: "Two")), context: context)
            .get().board
        _ = replica.load(second, seq: 2, epoch: "e1")
        let mine = PendingOp(board: "main", mut: 1, request: .op(.editCard(EditCard(card: "c2", title: "Mine"))))
        replica.enqueue(mine, now: Self.t0)
        #expect(replica.changes(removing: mine) == .parts(cards: ["c2"], columns: ["done"]))
        let foreign = Self.delta(.editCard(EditCard(card: "c1", title: "Hers")), seq: 3, on: replica.confirmed!)
        #expect(replica.receive(foreign).changes == .parts(cards: ["c1", "c2"], columns: ["todo", "done"]))
        #expect(replica.view?.cards["c2"]?.title == "Mine")
    }

    @Test func applyingInPlaceLeavesBoardsHeldElsewhereAsTheyWere() throws {
        var replica = Self.loaded()
        let heldView = try #require(replica.view)
        let heldConfirmed = try #require(replica.confirmed)
        let edit = Self.delta(.editCard(EditCard(card: "c1", title: "New")), seq: 2, on: heldConfirmed)
        _ = replica.receive(edit)
        #expect(replica.view?.cards["c1"]?.title == "New")
        #expect(replica.view == replica.confirmed)
        #expect(heldView.cards["c1"]?.title == "First")
        #expect(heldConfirmed.cards["c1"]?.title == "First" && heldConfirmed.seq == 1)
        // An optimistic op changes the view only.
        replica.enqueue(
            PendingOp(board: "main", mut: 1, request: .op(.editCard(EditCard(card: "c1", title: "Mine")))), now: Self.t0)
        #expect(replica.view?.cards["c1"]?.title == "Mine")
        #expect(replica.confirmed?.cards["c1"]?.title == "New")
    }

    /// The address of a board's card table (a Dictionary is one pointer to its storage).
    static func cardStorage(_ board: Board?) -> Int {
        withUnsafeBytes(of: board?.cards ?? [:]) { $0.load(as: Int.self) }
    }

    @Test func aForeignDeltaAppliesInPlaceWithoutCopyingTheCardTable() throws {
        var replica = Self.loaded()
        var seq: UInt64 = 1
        func edit(_ title: String) -> ServerMessage.Delta {
            seq += 1
            return Self.delta(.editCard(EditCard(card: "c1", title: title)), seq: seq, on: replica.confirmed!)
        }
        // The first delta may copy the table the test's fixture shares; after that the replica owns it.
        _ = replica.receive(edit("one"))
        let before = Self.cardStorage(replica.confirmed)
        let next = edit("two")
        _ = replica.receive(next)
        #expect(Self.cardStorage(replica.confirmed) == before, "the delta copied the card table")
        #expect(Self.cardStorage(replica.view) == before, "with nothing pending the view is the confirmed board")
        #expect(replica.view?.cards["c1"]?.title == "two")
    }
}
