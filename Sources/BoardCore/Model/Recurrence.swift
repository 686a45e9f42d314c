/// How a card comes back once it is done: on a schedule (every day, every weekday, given days of the week, a day
/// of the month) or a number of days after it was done. When a recurring card is done (closed or moved to the last
/// column), the server adds its next occurrence at once: the same title, description, labels, assignees, milestone
/// and checklist (unticked), due on the next day the rule gives, recurring the same way.
public struct Recurrence: Hashable, Sendable, Codable, CustomStringConvertible {
    /// A schedule.
    public enum Every: String, Hashable, Sendable, Codable {
        case day, weekday, week, month
    }

    /// The schedule; nil with `afterDoneDays`.
    public var every: Every?
    /// `week`: the days of the week, as `mon` … `sun`.
    public var days: [String]?
    /// `month`: the day of the month (1–31; the last day of a shorter month).
    public var day: Int?
    /// Days after the card is done (1–365), instead of a schedule.
    public var afterDoneDays: Int?

    /// Makes a rule.
    public init(every: Every? = nil, days: [String]? = nil, day: Int? = nil, afterDoneDays: Int? = nil) {
        self.every = every
        self.days = days
        self.day = day
        self.afterDoneDays = afterDoneDays
    }

    enum CodingKeys: String, CodingKey {
        case every, days, day
        case afterDoneDays = "after_done_days"
    }

    /// The day names, Sunday first (as `Day.weekday` counts).
    public static let dayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    /// Days as a person writes them (`thu, Mon,mon`, any case, names cut to three letters) as a rule keeps them: each
    /// once, in the week's order; a word that is no day stays, after them, for ``problem`` to name.
    public static func days(_ written: [String]) -> [String] {
        let named = Set(written.map { String($0.trimmingCharacters(in: .whitespaces).lowercased().prefix(3)) }.filter { !$0.isEmpty })
        return dayNames.filter(named.contains) + named.subtracting(dayNames).sorted()
    }

    /// What is wrong with the rule, or nil.
    public var problem: String? {
        switch (every, afterDoneDays) {
        case (nil, nil): return "give every (day, weekday, week or month) or after_done_days"
        case (.some, .some): return "give every or after_done_days, not both"
        case (nil, let n?): return (1...365).contains(n) ? nil : "after_done_days must be 1–365"
        case (.week?, nil):
            guard let days, !days.isEmpty, days.allSatisfy(Self.dayNames.contains) else {
                return "every week needs days, each one of mon, tue, wed, thu, fri, sat, sun"
            }
            return nil
        case (.month?, nil):
            guard let day, (1...31).contains(day) else { return "every month needs day, 1–31" }
            return nil
        case (.day?, nil), (.weekday?, nil): return nil
        }
    }

    /// The due day of the next occurrence, for a card due on `due` (nil: none) that was done on `done`: the first
    /// day of the schedule after both, or `done` plus the days.
    public func next(due: Day?, done: Day) -> Day {
        if let afterDoneDays { return done.adding(days: afterDoneDays) }
        let from = max(due ?? done, done)
        var candidate = from.adding(days: 1)
        for _ in 0..<400 {
            if matches(candidate) { return candidate }
            candidate = candidate.adding(days: 1)
        }
        return from.adding(days: 1)
    }

    func matches(_ day: Day) -> Bool {
        switch every {
        case .day?: return true
        case .weekday?: return (1...5).contains(day.weekday)
        case .week?: return (days ?? []).contains(Self.dayNames[day.weekday])
        case .month?:
            let wanted = min(self.day ?? 1, Day.daysIn(month: day.month, year: day.year))
            return day.day == wanted
        case nil: return false
        }
    }

    /// `every week on mon, thu`, `3 days after done`, …
    public var description: String {
        if let afterDoneDays { return "\(afterDoneDays) day\(afterDoneDays == 1 ? "" : "s") after done" }
        switch every {
        case .day?: return "every day"
        case .weekday?: return "every weekday"
        case .week?: return "every week on " + (days ?? []).joined(separator: ", ")
        case .month?: return "every month on day \(day ?? 1)"
        case nil: return "never"
        }
    }

    /// The rule in the board hash's canonical text: every key, in this order, `null` when unset.
    var canonicalText: String {
        var out = "{\"every\":"
        if let every { Board.writeJSONString(every.rawValue, into: &out) } else { out += "null" }
        out += ",\"days\":"
        if let days {
            out += "[" + days.map { day -> String in
                var text = ""
                Board.writeJSONString(day, into: &text)
                return text
            }.joined(separator: ",") + "]"
        } else {
            out += "null"
        }
        out += ",\"day\":" + (day.map(String.init) ?? "null")
        out += ",\"after_done_days\":" + (afterDoneDays.map(String.init) ?? "null") + "}"
        return out
    }

    /// The rule a JSON value holds (an activity's change), or nil.
    public init?(json: JSONValue) {
        guard case .object(let object) = json else { return nil }
        func int(_ key: String) -> Int? { if case .int(let n)? = object[key] { Int(n) } else { nil } }
        self.init(
            every: object["every"]?.stringValue.flatMap(Every.init(rawValue:)),
            days: { if case .array(let values)? = object["days"] { values.compactMap(\.stringValue) } else { nil } }(),
            day: int("day"), afterDoneDays: int("after_done_days"))
    }

    /// The rule as a JSON value (activity changes, the wire).
    public var json: JSONValue {
        var object: [String: JSONValue] = [:]
        if let every { object["every"] = .string(every.rawValue) }
        if let days { object["days"] = .strings(days) }
        if let day { object["day"] = .int(Int64(day)) }
        if let afterDoneDays { object["after_done_days"] = .int(Int64(afterDoneDays)) }
        return .object(object)
    }
}

extension Day {
    /// The day of the week, 0 for Sunday to 6 for Saturday.
    public var weekday: Int { ((daysSinceEpoch % 7) + 7 + 4) % 7 }
}
