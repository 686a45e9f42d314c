import Foundation
import Testing

@testable import BoardWeb

@Suite struct WebCookieTests {
    let cookie = try! WebCookie(key: Data(repeating: 7, count: 32))

    @Test func aSealedTokenOpensWithTheSameKeyOnly() throws {
        let value = try #require(cookie.seal("ck_secret"))
        #expect(!value.contains("ck_secret"))
        #expect(cookie.open(value) == "ck_secret")
        let other = try WebCookie(key: Data(repeating: 8, count: 32))
        #expect(other.open(value) == nil)
    }

    @Test func anAlteredCookieDoesNotOpen() throws {
        var value = Array(try #require(cookie.seal("ck_secret")))
        value[value.count / 2] = value[value.count / 2] == "A" ? "B" : "A"
        #expect(cookie.open(String(value)) == nil)
        #expect(cookie.open("not base64 !") == nil)
        #expect(cookie.open("") == nil)
    }

    @Test func theCookieIsHttpOnlyStrictAndSecureUnderTLS() throws {
        let plain = try #require(cookie.setCookie("t", secure: false))
        #expect(plain.contains("HttpOnly") && plain.contains("SameSite=Strict") && !plain.contains("Secure;") && !plain.hasSuffix("Secure"))
        #expect(cookie.setCookie("t", secure: true)?.hasSuffix("; Secure") == true)
    }

    @Test func theValueIsFoundAmongOtherCookies() {
        #expect(WebCookie.value(inCookieHeader: "a=1; \(WebCookie.name)=xyz; b=2") == "xyz")
        #expect(WebCookie.value(inCookieHeader: "a=1") == nil)
    }

    @Test func aKeyIsMadeOnceWithModeOwnerOnly() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webkey-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent(WebCookie.keyFileName)
        let first = try WebCookie.loadOrCreate(at: url)
        let second = try WebCookie.loadOrCreate(at: url)
        #expect(second.open(try #require(first.seal("t"))) == "t")
        let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(throws: WebError.self) { try WebCookie(key: Data(count: 5)) }
    }
}
