import Testing
@Test func placeholderApp() { #expect(1 + 1 == 2) }
