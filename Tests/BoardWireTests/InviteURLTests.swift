import BoardCore
import Foundation
import Testing
@testable import BoardWire

@Suite struct InviteURLTests {
    let fp = "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

    @Test func parsesTheDocumentedExample() throws {
        let url = try #require(InviteURL("cork://127.0.0.1:7420/main?token=Jd8sK2v9QmX4tR7pL0wZ1cY6nB3hF5gA8eU2iO4kT9s&fp=\(fp)"))
        #expect(url.host == "127.0.0.1")
        #expect(url.port == 7420)
        #expect(url.board == "main")
        #expect(url.token == "Jd8sK2v9QmX4tR7pL0wZ1cY6nB3hF5gA8eU2iO4kT9s")
        #expect(url.fingerprint == fp)
    }

    @Test func roundTripsIncludingIPv6AndNoFingerprint() throws {
        for url in [
            InviteURL(host: "::1", port: 9000, board: "ops", token: "ck_abc-_1", fingerprint: fp),
            InviteURL(host: "corkd.example", port: 7420, board: nil, token: "t", fingerprint: nil),
        ] {
            #expect(InviteURL(url.description) == url, "\(url)")
        }
        #expect(InviteURL(host: "::1", port: 9000, board: "ops", token: "t", fingerprint: nil).description == "cork://[::1]:9000/ops?token=t")
    }

    @Test func defaultsThePortAndAcceptsUpperCaseFingerprints() throws {
        let url = try #require(InviteURL("cork://host/main?token=t&fp=\(fp.uppercased().replacingOccurrences(of: "SHA256", with: "sha256"))"))
        #expect(url.port == 7420)
        #expect(url.fingerprint == fp)
    }

    @Test(arguments: [
        "http://host/main?token=t", "cork://host/main", "cork://host/main?token=", "cork://:7420/main?token=t",
        "cork://host:0/main?token=t", "cork://host:99999/main?token=t", "cork://host/../etc?token=t",
        "cork://host/main?token=t&fp=sha256:abc", "cork://host/main?token=t&fp=md5:9f86", "cork://[::1/main?token=t",
        "cork://host/main?token=a b",
    ])
    func rejectsMalformedURLs(_ text: String) {
        #expect(InviteURL(text) == nil)
    }

    /// What is wrong is said, so that a URL cut short by a terminal's line wrap is recognised as such.
    @Test(arguments: [
        ("http://host/main?token=t", "it does not start with cork://"),
        ("cork://host/main", "it has no token="),
        ("cork://host:99999/main?token=t", "its port \"99999\" is not a number from 1 to 65535"),
        ("cork://host/main?token=t&fp=sha256:5fd85f6794", "its fp is not sha256: and 64 hex digits (was the URL cut short?)"),
        ("cork://host/main?token=t&fp=", "its fp is not sha256: and 64 hex digits (was the URL cut short?)"),
        ("cork://[::1/main?token=t", "its IPv6 address has no closing ]"),
        ("cork://host/../etc?token=t", "its board \"../etc\" is not a board id (1–64 characters of A–Z a–z 0–9 _ . -)"),
    ])
    func saysWhyAURLIsNotAnInvite(_ text: String, _ why: String) {
        guard case .failure(let problem) = InviteURL.parse(text) else {
            Issue.record("\(text) parsed")
            return
        }
        #expect(problem.description == why)
    }
}
