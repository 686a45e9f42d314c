import Crypto
import Foundation

/// The page's files, compiled into the binary (`PackageResources`): a corkd serves its page with nothing beside it.
enum WebResources {
    struct File: Sendable {
        var bytes: [UInt8]
        var contentType: String
        var etag: String

        init(_ bytes: [UInt8], _ contentType: String) {
            self.bytes = bytes
            self.contentType = contentType
            let digest = SHA256.hash(data: bytes)
            etag = "\"" + digest.prefix(12).map { String(format: "%02x", $0) }.joined() + "\""
        }
    }

    static let files: [String: File] = [
        "/": File(PackageResources.index_html, "text/html; charset=utf-8"),
        "/index.html": File(PackageResources.index_html, "text/html; charset=utf-8"),
        "/app.js": File(PackageResources.app_js, "text/javascript; charset=utf-8"),
        "/style.css": File(PackageResources.style_css, "text/css; charset=utf-8"),
        "/icon.svg": File(PackageResources.icon_svg, "image/svg+xml"),
        "/favicon.ico": File(PackageResources.icon_svg, "image/svg+xml"),
    ]

    static func file(at path: String) -> File? { files[path] }
}
