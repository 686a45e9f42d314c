import BoardCore
import TerminalUI

extension TUIModel {
    /// A key while an overlay is shown: each overlay has its own keys; Esc (and `q`) closes any of them.
    mutating func overlayKey(_ overlay: Overlay, _ event: KeyEvent) -> [TUIEffect] {
        switch overlay {
        case .help: return helpKey(event)
        case .detail(let card): return detailKey(card, event)
        case .milestones: return milestoneKey(event)
        case .boards: return boardPickerKey(event)
        case .members: return memberKey(event)
        case .archive: return archiveKey(event)
        case .inbox: return inboxKey(event)
        }
    }

    /// Closes the overlay; the others see this user viewing the selected card again.
    mutating func closeOverlay() -> [TUIEffect] {
        overlay = nil
        overlayRow = 0
        return presenceViewing()
    }

    /// Moves ``overlayRow`` for a navigation key in a list of `count` rows; false when `event` is not one.
    mutating func moveOverlayRow(_ event: KeyEvent, count: Int) -> Bool {
        let page = max(1, height - 8)
        let target: Int
        switch event.key {
        case .down, .character("j"): target = overlayRow + 1
        case .up, .character("k"): target = overlayRow - 1
        case .pageDown: target = overlayRow + page
        case .pageUp: target = overlayRow - page
        case .home, .character("g"): target = 0
        case .end, .character("G"): target = count - 1
        default: return false
        }
        overlayRow = max(0, min(count - 1, target))
        return true
    }
}
