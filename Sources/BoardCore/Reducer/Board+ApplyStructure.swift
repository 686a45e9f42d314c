extension Board {
    // MARK: Board and members

    mutating func renameBoard(_ name: String) -> Result<Outcome, Rejection> {
        if let r = Validate.boardName(name) { return .failure(r) }
        let old = self.name
        self.name = name
        return .success(Outcome(inverse: .renameBoard(name: old)))
    }

    mutating func setRemindHours(_ hours: Int?) -> Result<Outcome, Rejection> {
        if let hours, !Limits.remindHoursRange.contains(hours) {
            return .failure(Rejection(.invalid, "hours must be \(Limits.remindHoursRange.lowerBound)–\(Limits.remindHoursRange.upperBound) (or null for the default), not \(hours)"))
        }
        let old = remindHours
        remindHours = hours
        return .success(Outcome(inverse: .setRemindHours(hours: old)))
    }

    mutating func setMember(_ user: UserID, role: Role, name: String?, max: Int) -> Result<Outcome, Rejection> {
        if let r = Validate.id(user, "user") { return .failure(r) }
        if let name, !name.isEmpty, let r = Validate.line(name, "member name", max: Limits.memberNameMaxCharacters) {
            return .failure(r)
        }
        if members[user] == nil && members.count >= max {
            return .failure(Rejection(.tooLarge, "a board has at most \(max) members"))
        }
        if members[user]?.role == .owner && role != .owner && ownerCount == 1 {
            return .failure(Rejection(.invalid, "the board needs at least one owner"))
        }
        var member = members[user] ?? Member(id: user, role: role)
        member.role = role
        if let name { member.name = name }
        members[user] = member
        return .success(Outcome())
    }

    mutating func removeMember(_ user: UserID) -> Result<Outcome, Rejection> {
        guard let member = members[user] else {
            return .failure(Rejection(.notFound, "\(user) is not a member of this board"))
        }
        if member.role == .owner && ownerCount == 1 {
            return .failure(Rejection(.invalid, "the board needs at least one owner"))
        }
        members[user] = nil
        for card in cards.values where card.assignees.contains(user) {
            cardTable[card.id]!.assignees.removeAll { $0 == user }
        }
        return .success(Outcome())
    }

    private var ownerCount: Int { members.values.reduce(0) { $0 + ($1.role == .owner ? 1 : 0) } }

    // MARK: Columns

    mutating func addColumn(_ id: ColumnID, name: String, index: Int?) -> Result<Outcome, Rejection> {
        if let r = Validate.id(id, "column id") { return .failure(r) }
        if let r = Validate.line(name, "column name", max: Limits.columnNameMaxCharacters) { return .failure(r) }
        if column(id) != nil { return .failure(Rejection(.duplicateID, "column id \(id) is already used")) }
        if let r = nameTaken(name, except: nil) { return .failure(r) }
        if columns.count >= Limits.columnsMax {
            return .failure(Rejection(.tooLarge, "a board has at most \(Limits.columnsMax) columns"))
        }
        if let index, index < 0 { return .failure(Rejection(.invalid, "index must not be negative")) }
        columns.insert(Column(id: id, name: name), at: min(index ?? columns.count, columns.count))
        return .success(Outcome(inverse: .removeColumn(column: id)))
    }

    mutating func renameColumn(_ id: ColumnID, name: String) -> Result<Outcome, Rejection> {
        guard let i = columnIndex(id) else { return .failure(Rejection(.notFound, "no column \(id) on this board")) }
        if let r = Validate.line(name, "column name", max: Limits.columnNameMaxCharacters) { return .failure(r) }
        if let r = nameTaken(name, except: id) { return .failure(r) }
        let old = columns[i].name
        columns[i].name = name
        return .success(Outcome(inverse: .renameColumn(column: id, name: old)))
    }

    mutating func moveColumn(_ id: ColumnID, to index: Int) -> Result<Outcome, Rejection> {
        guard let i = columnIndex(id) else { return .failure(Rejection(.notFound, "no column \(id) on this board")) }
        guard index >= 0 else { return .failure(Rejection(.invalid, "index must not be negative")) }
        let column = columns.remove(at: i)
        columns.insert(column, at: min(index, columns.count))
        return .success(Outcome(inverse: .moveColumn(column: id, index: i)))
    }

    mutating func removeColumn(_ id: ColumnID) -> Result<Outcome, Rejection> {
        guard let i = columnIndex(id) else { return .failure(Rejection(.notFound, "no column \(id) on this board")) }
        if cards.values.contains(where: { $0.column == id }) {
            return .failure(Rejection(.notEmpty, "column \(columns[i].name) still holds cards (archived ones count)"))
        }
        if columns.count == 1 { return .failure(Rejection(.invalid, "a board needs at least one column")) }
        columns.remove(at: i)
        return .success(Outcome())
    }

    mutating func setWIPLimit(_ id: ColumnID, _ limit: WIPLimit?) -> Result<Outcome, Rejection> {
        guard let i = columnIndex(id) else { return .failure(Rejection(.notFound, "no column \(id) on this board")) }
        if let limit, !(1...Limits.wipLimitMax).contains(limit.limit) {
            return .failure(Rejection(.invalid, "a WIP limit is 1...\(Limits.wipLimitMax)"))
        }
        let old = columns[i].wip
        columns[i].wip = limit
        return .success(Outcome(inverse: .setWIPLimit(column: id, limit: old)))
    }

    private func nameTaken(_ name: String, except id: ColumnID?) -> Rejection? {
        let lower = name.lowercased()
        guard columns.contains(where: { $0.id != id && $0.name.lowercased() == lower }) else { return nil }
        return Rejection(.invalid, "a column named \(name) already exists")
    }
}
