import BoardCore
import BoardServer
import Foundation
import NIOCore
import NIOHTTP1

extension WebPages {
    /// `/unsubscribe?user=U&token=T`, the link in every digest mail. GET shows a page with one button and changes
    /// nothing (mail scanners and link previews open links); POST, from that button or from a mail program's
    /// one-click unsubscribe (RFC 8058), turns the user's mail off.
    func unsubscribe(_ request: HTTPRequestHead) async -> Response {
        guard let follow = configuration.unsubscribe else { return .json(.notFound, ["error": "no such page"]) }
        let query = URLComponents(string: request.uri)?.queryItems ?? []
        guard let name = query.first(where: { $0.name == "user" })?.value, !name.isEmpty,
            let token = query.first(where: { $0.name == "token" })?.value, !token.isEmpty
        else {
            return Self.page(.badRequest, "This link is incomplete", "Open the whole link from the mail, or run <code>cork notify --mail off</code>.")
        }
        let user = UserID(name)
        guard request.method == .POST else {
            let action = Self.escaped("unsubscribe?" + (URLComponents(string: request.uri)?.percentEncodedQuery ?? ""))
            return Self.page(
                .ok, "Stop Corkboard mail for \(Self.escaped(name))?",
                "Your inbox keeps every notification; only the mails stop.</p>"
                    + "<form method=\"post\" action=\"\(action)\"><button type=\"submit\">Stop the mails</button></form><p>",
                formAction: true)
        }
        switch await follow(user, token) {
        case .stopped(let address):
            return Self.page(
                .ok, "No more mail", "Corkboard mails nothing more to \(Self.escaped(Self.masked(address))). Turn it back on with "
                    + "<code>cork notify --email ADDRESS</code>.")
        case .alreadyStopped:
            return Self.page(.ok, "No more mail", "Mail was already off. Turn it back on with <code>cork notify --email ADDRESS</code>.")
        case .refused:
            return Self.page(
                .forbidden, "This link does not work", "It is not a link Corkboard sent, or it was copied wrongly. "
                    + "Run <code>cork notify --mail off</code> instead.")
        case .failed:
            return Self.page(.serviceUnavailable, "Try again", "The server could not change your settings just now; nothing changed.")
        }
    }

    /// A small HTML page (no script); `formAction` lets its form post back to this server.
    static func page(_ status: HTTPResponseStatus, _ title: String, _ text: String, formAction: Bool = false) -> Response {
        let html = """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">\
            <title>\(title) · Corkboard</title><link rel="stylesheet" href="/style.css"></head>\
            <body class="notice"><main><h1>\(title)</h1><p>\(text)</p></main></body></html>
            """
        var response = Response(status: status, body: ByteBuffer(string: html), contentType: "text/html; charset=utf-8")
        response.headers.append(("Cache-Control", "no-store"))
        if formAction {
            response.headers.append((
                "Content-Security-Policy",
                "default-src 'self'; script-src 'none'; style-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
            ))
        }
        return response
    }

    /// An address as the page shows it to whoever holds the link: its first character and its domain
    /// (`a…@example.com`).
    static func masked(_ address: String) -> String {
        guard let at = address.firstIndex(of: "@"), let first = address.first else { return "…" }
        return "\(first)…\(address[at...])"
    }

    /// `text` safe inside HTML text and attribute values.
    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
