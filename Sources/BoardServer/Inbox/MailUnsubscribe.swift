import BoardCore
import BoardStore
import Foundation

/// The link in every digest mail that stops a user's mail without a terminal: `BASE/unsubscribe?user=U&token=T`,
/// where T is the secret kept in the user's settings. Opening it shows a button; the button (or a mail program's
/// one-click POST, RFC 8058) turns the user's mail off, as `cork notify --mail off` does.
public enum MailUnsubscribe {
    /// What following the link did.
    public enum Outcome: Sendable, Equatable {
        /// Mail is off now; it went to this address.
        case stopped(address: String)
        /// The secret is right and mail was already off.
        case alreadyStopped
        /// No such user, or not their secret.
        case refused
        /// The store could not be read or written; nothing changed.
        case failed
    }

    /// The web page's address ending in `/`.
    static func base(_ url: String) -> String { url.hasSuffix("/") ? url : url + "/" }

    /// The link for `user`.
    static func link(base: String, user: UserID, token: String) -> String {
        let name = user.rawValue.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? user.rawValue
        return "\(base)unsubscribe?user=\(name)&token=\(token)"
    }

    /// Checks `token` against `user`'s secret and, when it matches, turns their mail off (the secret stays, so the
    /// link keeps answering).
    public static func apply(user: UserID, token: String, store: any BoardStore) async -> Outcome {
        do {
            guard var settings = try await store.notifySettings(user: user), settings.unsubscribes(with: token) else {
                return .refused
            }
            guard let address = settings.email else { return .alreadyStopped }
            settings.email = nil
            try await store.setNotifySettings(settings, user: user)
            return .stopped(address: address)
        } catch {
            return .failed
        }
    }
}
