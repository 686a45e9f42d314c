import BoardClient
import BoardCore
import BoardTesting
import BoardTransport
import BoardWire
import Foundation
import NIOCore
import NIOPosix
import NIOWebSocket
import Testing

/// The web listener of a real corkd (started as an unprivileged user): the page's files, the cookie exchange, the
/// protocol over WebSocket, and a page's live session beside a `cork`-style TLS client.
@Suite(.serialized, .startsProcesses(within: .minutes(3))) struct WebListenerTests {
    @Test func thePageIsServedWithItsSecurityHeaders() async throws {
        try await withCorkd { corkd in
            let port = try #require(corkd.webPort)
            let page = try await HTTPProbe.exchange("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", port: port)
            #expect(page.hasPrefix("HTTP/1.1 200"))
            #expect(page.contains("Content-Security-Policy: default-src 'self'; script-src 'self'"))
            #expect(page.contains("Referrer-Policy: no-referrer"))
            #expect(page.contains("<html"))
            let script = try await HTTPProbe.exchange("GET /app.js HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", port: port)
            #expect(script.contains("Content-Type: text/javascript"))
            let missing = try await HTTPProbe.exchange("GET /secret.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", port: port)
            #expect(missing.hasPrefix("HTTP/1.1 404"))
            // HTTP/1.0 without keep-alive is answered and closed too.
            let old = try await HTTPProbe.exchange("GET /style.css HTTP/1.0\r\n\r\n", port: port)
            #expect(old.hasPrefix("HTTP/1.0 200") && old.contains("text/css"))
        }
    }

    @Test func invitesAndTheFirstStartNameTheBrowserLink() async throws {
        try await withCorkd { corkd in
            let port = try #require(corkd.webPort)
            // The first start's banner.
            #expect(corkd.standardOutput.contains("owner in a browser: http://127.0.0.1:\(port)/#token=\(corkd.ownerToken)&board=main"))
            // corkd invite --json: web_url beside url; the text form keeps stdout to cork URLs and names the link on stderr.
            let json = try await corkd.admin(["invite", "--user", "wendy", "--json"])
            #expect(json.exit.isSuccess, "\(json.standardError)")
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
            let web = try #require(object["web_url"] as? String)
            let text0 = try #require(object["url"] as? String)
            let url = try #require(InviteURL(text0))
            #expect(web == "http://127.0.0.1:\(port)/#token=\(url.token)&board=main")
            let text = try await corkd.admin(["invite", "--user", "walt"])
            #expect(text.standardOutput.hasPrefix("cork://"))
            #expect(!text.standardOutput.contains("http://"))
            #expect(text.standardError.contains("walt in a browser: http://127.0.0.1:\(port)/#token="))
            // A later start names the link without the token, which would otherwise reach the journal every start.
            _ = try await corkd.terminate()
            try await corkd.restart()
            let later = ContinuousClock.now + .seconds(30)
            while !corkd.standardOutput.contains("owner in a browser"), ContinuousClock.now < later {
                try await Task.sleep(for: .milliseconds(50))
            }
            let restartedPort = try #require(corkd.webPort)
            #expect(corkd.standardOutput.contains(
                "owner in a browser: http://127.0.0.1:\(restartedPort)/#token=…&board=main (the token is in "))
            #expect(!corkd.standardOutput.contains(corkd.ownerToken))
        }
    }

    @Test func theTokenIsTradedForAnHttpOnlyCookie() async throws {
        try await withCorkd { corkd in
            let port = try #require(corkd.webPort)
            let body = #"{"token":"\#(corkd.ownerToken)"}"#
            let answer = try await HTTPProbe.exchange(
                "POST /session HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)",
                port: port)
            #expect(answer.hasPrefix("HTTP/1.1 204"))
            let cookie = try #require(Self.cookie(in: answer))
            #expect(answer.contains("HttpOnly") && answer.contains("SameSite=Strict"))
            #expect(!answer.contains(corkd.ownerToken))
            let good = try await HTTPProbe.exchange(
                "GET /session HTTP/1.1\r\nHost: x\r\nCookie: \(cookie)\r\nConnection: close\r\n\r\n", port: port)
            #expect(good.hasPrefix("HTTP/1.1 200"))
            let none = try await HTTPProbe.exchange("GET /session HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", port: port)
            #expect(none.hasPrefix("HTTP/1.1 401"))
            let foreign = try await HTTPProbe.exchange(
                "POST /session HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://evil.example\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)",
                port: port)
            #expect(foreign.hasPrefix("HTTP/1.1 403"))
            let bad = try await HTTPProbe.exchange(
                "POST /session HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}", port: port)
            #expect(bad.hasPrefix("HTTP/1.1 400"))
        }
    }

    @Test func theProtocolRunsOverAWebSocket() async throws {
        try await withCorkd { corkd in
            let port = try #require(corkd.webPort)
            let socket = try await WebPageProbe.open(port: port, path: "/v1")
            try await socket.send(#"{"type":"hello","version":1,"client":"ws-test","token":"\#(corkd.ownerToken)"}"#)
            _ = try await socket.next(where: { $0["type"] as? String == "welcome" })
            try await socket.send(#"{"type":"subscribe","req":1,"board":"main"}"#)
            _ = try await socket.next(where: { $0["type"] as? String == "subscribed" })
            try await socket.send(#"{"type":"op","board":"main","mut":1,"op":{"kind":"card.add","card":"cws","title":"over ws"}}"#)
            let ack = try await socket.next(where: { $0["type"] as? String == "ack" })
            #expect(ack["mut"] as? Int == 1)
            // Exactly-once holds on this transport too: the same mut again is answered with the same seq.
            try await socket.send(#"{"type":"op","board":"main","mut":1,"op":{"kind":"card.add","card":"cws","title":"over ws"}}"#)
            let again = try await socket.next(where: { $0["type"] as? String == "ack" })
            #expect(again["seq"] as? Int == ack["seq"] as? Int)
            // A malformed line gets the same error as over TLS.
            try await socket.send("{not json")
            let error = try await socket.next(where: { $0["type"] as? String == "error" })
            #expect(error["code"] as? String == "bad_json")
            await socket.close()
        }
    }

    @Test func aForeignOriginNoCookieOrUnknownPathIsRefusedBeforeTheUpgrade() async throws {
        try await withCorkd { corkd in
            let port = try #require(corkd.webPort)
            let origin = "http://127.0.0.1:\(port)"
            await #expect(throws: Transport.WebSocketUpgradeRefused.self) {
                _ = try await WebPageProbe.open(port: port, path: "/v1", headers: [("Origin", "http://evil.example")])
            }
            await #expect(throws: Transport.WebSocketUpgradeRefused.self) {
                _ = try await WebPageProbe.open(port: port, path: "/live", headers: [("Origin", origin)])
            }
            await #expect(throws: Transport.WebSocketUpgradeRefused.self) {
                _ = try await WebPageProbe.open(port: port, path: "/nope", headers: [("Origin", origin)])
            }
            // The answer a browser gets is a 403 with the reason.
            let raw = try await HTTPProbe.exchange(
                "GET /live HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://evil.example\r\nConnection: Upgrade\r\n"
                    + "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
                port: port)
            #expect(raw.hasPrefix("HTTP/1.1 403"), "\(raw.prefix(200))")
            #expect(raw.contains("WebSocket refused"))
            // From a program (no Origin) /v1 is open.
            let program = try await WebPageProbe.open(port: port, path: "/v1")
            await program.close()
        }
    }

    @Test func aPageAndATerminalClientSeeEachOthersChanges() async throws {
        try await withCorkd { corkd in
            let port = try #require(corkd.webPort)
            let page = try await WebPageProbe.live(port: port, token: corkd.ownerToken)
            try await page.send(#"{"t":"open","board":"main"}"#)
            let board = try await page.next(where: { $0["t"] as? String == "board" })
            #expect((board["board"] as? [String: Any])?["id"] as? String == "main")

            // The page adds a card (the server makes its id); a TLS client sees it.
            try await page.send(#"{"t":"op","op":{"kind":"card.add","column":"todo","title":"from the page"}}"#)
            // Another user in the terminal (the page's undo covers its own user's changes, from any client).
            var configuration = try ClientConfiguration(invite: try await corkd.invite("tess"))
            configuration.announcesPresence = false
            try await withClient(configuration) { client in
                let seen = try await Self.eventually { await client.board?.cards.values.contains { $0.title == "from the page" } == true }
                #expect(seen)
                let card = try #require(await client.board?.cards.values.first { $0.title == "from the page" })
                // The terminal side moves it; the page gets a diff with the move.
                _ = try await client.perform(.moveCard(card: card.id, column: "doing", placement: .bottom))
                let diff = try await page.next(where: { message in
                    guard message["t"] as? String == "diff", let moves = message["moves"] as? [[String: Any]] else { return false }
                    return moves.contains { $0["to_column"] as? String == "doing" }
                })
                #expect((diff["seq"] as? Int ?? 0) >= 2)
            }
            // Undo from the page: its add cannot be undone once someone moved the card, and the page is told why.
            try await page.send(#"{"t":"undo"}"#)
            let refused = try await page.next(where: { $0["t"] as? String == "rejected" })
            #expect(refused["code"] as? String == "undo_conflict")
            #expect(refused["op"] as? String == "undo")
            // It names the change and says what Ctrl-Z does now (the next one back would be undone unannounced).
            let reason = refused["reason"] as? String ?? ""
            #expect(reason.hasPrefix(#"Cannot undo added #1 "from the page""#), "\(reason)")
            #expect(reason.hasSuffix("There is nothing older to undo."), "\(reason)")
            // A change of the page's own that nobody touched since is undone (the card is archived) and redone.
            try await page.send(#"{"t":"op","op":{"kind":"card.add","column":"todo","title":"second"}}"#)
            _ = try await page.next(where: { message in
                guard message["t"] as? String == "feed", let items = message["items"] as? [[String: Any]] else { return false }
                return items.contains { $0["own"] as? Bool == true && ($0["text"] as? String ?? "").contains("second") }
            })
            try await page.send(#"{"t":"undo"}"#)
            _ = try await page.next(where: { Self.feedSays($0, "archived #2") })
            try await page.send(#"{"t":"redo"}"#)
            _ = try await page.next(where: { Self.feedSays($0, "restored #2") })
            await page.close()
        }
    }

    /// A board made while the page is open (here by the operator; `cork board create` in a terminal alike) reaches
    /// the page's board list when the page asks again (`boards`, sent when its window comes back to the front).
    @Test func thePageAsksForItsBoardsAgainAndHearsOfANewOne() async throws {
        try await withCorkd { corkd in
            let port = try #require(corkd.webPort)
            let page = try await WebPageProbe.live(port: port, token: corkd.ownerToken)
            try await page.send(#"{"t":"open","board":"main"}"#)
            let welcome = try await page.next(where: { $0["t"] as? String == "welcome" })
            let before = (welcome["boards"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(before == ["main"], "\(before)")
            let made = try await corkd.admin(["board", "create", "ops", "--name", "Ops rota"])
            #expect(made.exit.isSuccess, "\(made.standardError)")
            try await page.send(#"{"t":"boards"}"#)
            let boards = try await page.next(where: { $0["t"] as? String == "boards" })
            let listed = (boards["boards"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(Set(listed) == ["main", "ops"], "\(boards)")
            await page.close()
        }
    }

    @Test func thePageHearsListsAndReadsTheInbox() async throws {
        try await withCorkd { corkd in
            let port = try #require(corkd.webPort)
            let page = try await WebPageProbe.live(port: port, token: corkd.ownerToken)
            try await page.send(#"{"t":"open","board":"main"}"#)
            // The first page comes with the board, without being asked: nothing yet.
            let first = try await page.next(where: { $0["t"] as? String == "inbox" })
            #expect(first["unread"] as? Int == 0)
            #expect((first["entries"] as? [Any])?.count == 0)
            // A card of the page's user (so they watch it).
            try await page.send(#"{"t":"op","op":{"kind":"card.add","card":"cin","column":"todo","title":"Ship it"}}"#)

            var configuration = try ClientConfiguration(invite: try await corkd.invite("tess"))
            configuration.announcesPresence = false
            try await withClient(configuration) { client in
                // Another user mentions the page's user in chat: the page is told at once, with the count.
                _ = try await client.perform(.chat(text: "@owner standup <b>now</b>"))
                let pushed = try await page.next(where: { $0["t"] as? String == "inbox.entry" })
                #expect(pushed["unread"] as? Int == 1)
                let chat = try #require(pushed["entry"] as? [String: Any])
                #expect(chat["kind"] as? String == "mention")
                #expect(chat["actor"] as? String == "tess")
                #expect(chat["board"] as? String == "main")
                #expect(chat["card"] == nil)
                #expect(chat["read"] as? Bool == false)
                #expect(chat["sentence"] as? String == "tess mentioned you on main: @owner standup <b>now</b>")
                let chatID = try #require(chat["id"] as? Int)
                // A comment on the page's card: the sentence names the card by its number on the board shown.
                let seen = try await Self.eventually { await client.board?.cards["cin"] != nil }
                #expect(seen)
                _ = try await client.perform(.addComment(card: "cin", comment: "cmin", text: "@owner can you look?"))
                let second = try await page.next(where: { $0["t"] as? String == "inbox.entry" })
                #expect(second["unread"] as? Int == 2)
                let comment = try #require(second["entry"] as? [String: Any])
                #expect(comment["card"] as? String == "cin")
                #expect(comment["sentence"] as? String == "tess mentioned you on main #1: \"Ship it\": @owner can you look?")
                let commentID = try #require(comment["id"] as? Int)
                #expect(commentID > chatID)

                // Asked, a page: newest first, and paged with limit and before.
                try await page.send(#"{"t":"inbox"}"#)
                let all = try await page.next(where: { $0["t"] as? String == "inbox" })
                #expect((all["entries"] as? [[String: Any]])?.map { $0["id"] as? Int } == [commentID, chatID])
                #expect(all["unread"] as? Int == 2)
                #expect(all["more"] as? Bool == false)
                try await page.send(#"{"t":"inbox","limit":1}"#)
                let newest = try await page.next(where: { $0["t"] as? String == "inbox" })
                #expect((newest["entries"] as? [[String: Any]])?.map { $0["id"] as? Int } == [commentID])
                #expect(newest["more"] as? Bool == true)
                try await page.send(#"{"t":"inbox","limit":1,"before":\#(commentID)}"#)
                let older = try await page.next(where: { $0["t"] as? String == "inbox" })
                #expect((older["entries"] as? [[String: Any]])?.map { $0["id"] as? Int } == [chatID])
                #expect(older["before"] as? Int == commentID)

                // Read: by ids, then all; each time the server's count comes back.
                try await page.send(#"{"t":"inbox.read","ids":[\#(chatID)]}"#)
                let read = try await page.next(where: { $0["t"] as? String == "inbox.read" })
                #expect(read["ids"] as? [Int] == [chatID])
                #expect(read["unread"] as? Int == 1)
                try await page.send(#"{"t":"inbox.read"}"#)
                let refused = try await page.next(where: { $0["t"] as? String == "rejected" })
                #expect(refused["op"] as? String == "inbox.read")
                try await page.send(#"{"t":"inbox.read","all":true}"#)
                let rest = try await page.next(where: { $0["t"] as? String == "inbox.read" })
                #expect(rest["ids"] as? [Int] == [commentID])
                #expect(rest["unread"] as? Int == 0)
                try await page.send(#"{"t":"inbox","unread":true}"#)
                let unread = try await page.next(where: { $0["t"] as? String == "inbox" })
                #expect((unread["entries"] as? [Any])?.count == 0)
                #expect(unread["unread"] as? Int == 0)
            }
            await page.close()
        }
    }

    @Test func aRevokedTokenEndsTheWebSession() async throws {
        try await withCorkd { corkd in
            let port = try #require(corkd.webPort)
            let invite = try await corkd.invite("dana")
            let page = try await WebPageProbe.live(port: port, token: invite.token)
            try await page.send(#"{"t":"open","board":"main"}"#)
            _ = try await page.next(where: { $0["t"] as? String == "board" })
            let revoke = try await corkd.admin(["revoke", "--user", "dana"])
            #expect(revoke.exit.isSuccess, "\(revoke.standardError)")
            let error = try await page.next(where: { $0["t"] as? String == "error" }, timeout: .seconds(30))
            #expect(error["code"] as? String == "token_revoked")
            await page.close()
        }
    }

    static func feedSays(_ message: [String: Any], _ text: String) -> Bool {
        guard message["t"] as? String == "feed", let items = message["items"] as? [[String: Any]] else { return false }
        return items.contains { ($0["text"] as? String ?? "").contains(text) }
    }

    static func cookie(in response: String) -> String? { WebPageProbe.cookie(in: response) }

    static func eventually(_ condition: () async -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}

