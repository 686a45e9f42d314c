import Testing
@Test func placeholderExamples() { #expect(1 + 1 == 2) }
