import Testing

@testable import BoardWeb

/// A refusal of a change to a card names the card, once: a bulk move into a full column gave one
/// `DOING is at its WIP limit of 3` per card, none saying which card stayed.
@Suite struct LiveRefusalTests {
    @Test func aRefusalNamesItsCardOnce() {
        #expect(LiveSession.naming(5, in: "DOING is at its WIP limit of 3") == "#5: DOING is at its WIP limit of 3")
        #expect(LiveSession.naming(4, in: "#4 waits for #2 Fix login") == "#4 waits for #2 Fix login")
        #expect(LiveSession.naming(4, in: "#41 waits for #2") == "#4: #41 waits for #2")
        #expect(LiveSession.naming(4, in: "card #4") == "card #4")
    }
}
