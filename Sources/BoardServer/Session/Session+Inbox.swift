import BoardCore
import BoardStore
import BoardWire

extension Session {
    /// The most entry ids one relayed `inbox.read` carries (a presence message holds at most about 6,000 bytes).
    static let relayedReadIDsMax = 300

    /// `inbox`, `inbox.read` and `notify`: the user's own inbox and mail settings, whatever board the session is on.
    static func inboxRequest(_ message: ClientMessage, as ref: SessionRef, context: SessionContext, outbox: Outbox) async {
        do throws(StoreError) {
            switch message {
            case .inbox(let request):
                let entries = try await context.store.inbox(
                    user: ref.user, unreadOnly: request.unread ?? false, before: request.before, limit: request.limit ?? 50)
                let unread = try await context.store.unreadCount(user: ref.user)
                outbox.send(Lines.line(.inbox(ServerMessage.InboxPage(req: request.req, entries: entries, unread: unread))))
            case .readInbox(let request):
                let marked = try await context.store.markInboxRead(
                    user: ref.user, ids: request.all == true ? nil : request.ids, at: context.clock.now())
                let unread = try await context.store.unreadCount(user: ref.user)
                outbox.send(Lines.line(.ok(ServerMessage.Ok(req: request.req))))
                guard !marked.isEmpty else { return }
                // Every session of the user learns it, on whichever client it was read.
                let line = Lines.line(.inboxRead(ServerMessage.InboxMarked(ids: marked, unread: unread)))
                for session in await context.directory.sessions(of: ref.user) { session.outbox.send(line) }
                // Several nodes: the user's sessions on the others hear it through the presence channel, in pieces
                // that fit its messages (`all` can mark thousands).
                if let outbound = context.configuration.presenceOutbound {
                    for start in stride(from: 0, to: marked.count, by: Self.relayedReadIDsMax) {
                        let ids = Array(marked[start..<min(marked.count, start + Self.relayedReadIDsMax)])
                        outbound.send(.inboxRead(user: ref.user, ids: ids, unread: unread))
                    }
                }
            case .notify(let request):
                // A level is set only for a board the user can read (`not_found` otherwise, as for `subscribe`); one
                // already set can always be removed, also after the board went away.
                if let board = request.board, case .set? = request.boardLevel,
                    await member(board, ref, req: request.req, context: context, outbox: outbox) == nil
                {
                    return
                }
                var settings = try await context.store.notifySettings(user: ref.user) ?? NotifySettings()
                if let email = request.email {
                    let address = email.isEmpty ? nil : email
                    // A new address gets a new unsubscribe secret: a link in mail sent to the old one stops working.
                    if let address, address != settings.email { settings.unsubscribeToken = NotifySettings.newUnsubscribeToken() }
                    settings.email = address
                }
                if settings.email != nil, settings.unsubscribeToken == nil {
                    settings.unsubscribeToken = NotifySettings.newUnsubscribeToken()
                }
                if let level = request.level { settings.level = level }
                if let delay = request.delayMs { settings.delayMs = delay }
                if let board = request.board, let level = request.boardLevel {
                    switch level {
                    case .set(let value): settings.boards[board] = value
                    case .clear: settings.boards[board] = nil
                    }
                }
                if request.email != nil || request.level != nil || request.delayMs != nil || request.boardLevel != nil {
                    try await context.store.setNotifySettings(settings, user: ref.user)
                }
                outbox.send(Lines.line(.notify(ServerMessage.NotifyReply(req: request.req, settings: settings.shown))))
            default:
                return
            }
        } catch {
            var wire = WireError(error.wireCode(during: .write), "the inbox could not be read or changed; nothing was changed")
            wire.req = message.req
            outbox.send(Lines.error(wire))
        }
    }
}
