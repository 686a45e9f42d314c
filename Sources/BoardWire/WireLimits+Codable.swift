extension WireLimits {
    /// Every limit's wire name (its key in `welcome.limits`) and field, in the order Protocol.md lists them.
    public static let fields: [(name: String, keyPath: WritableKeyPath<WireLimits, Int> & Sendable)] = [
        ("line_max", \.lineMax), ("preauth_line_max", \.preauthLineMax), ("server_line_max", \.serverLineMax),
        ("line_timeout_ms", \.lineTimeoutMs), ("json_depth", \.jsonDepth), ("json_keys", \.jsonKeys),
        ("string_max", \.stringMax),
        ("outbox_bytes", \.outboxBytes), ("write_timeout_ms", \.writeTimeoutMs),
        ("preauth_output_bytes", \.preauthOutputBytes),
        ("rate_ops_per_s", \.rateOpsPerS), ("rate_burst", \.rateBurst), ("rate_close_ms", \.rateCloseMs),
        ("error_budget", \.errorBudget), ("error_window_ms", \.errorWindowMs),
        ("connections_max", \.connectionsMax), ("connections_per_user", \.connectionsPerUser),
        ("preauth_per_ip", \.preauthPerIP),
        ("heartbeat_ms", \.heartbeatMs), ("handshake_timeout_ms", \.handshakeTimeoutMs),
        ("auth_timeout_ms", \.authTimeoutMs),
        ("history_max", \.historyMax), ("history_age_ms", \.historyAgeMs), ("history_bytes", \.historyBytes),
        ("history_page_max", \.historyPageMax),
        ("fetch_max", \.fetchMax), ("presence_timeout_ms", \.presenceTimeoutMs),
        ("presence_rate_per_s", \.presenceRatePerS),
        ("id_max", \.idMax), ("title_max", \.titleMax), ("description_max_bytes", \.descriptionMaxBytes),
        ("label_name_max", \.labelNameMax), ("column_name_max", \.columnNameMax),
        ("board_name_max", \.boardNameMax), ("milestone_title_max", \.milestoneTitleMax),
        ("member_name_max", \.memberNameMax), ("comment_max_bytes", \.commentMaxBytes),
        ("chat_max_bytes", \.chatMaxBytes), ("checklist_text_max", \.checklistTextMax), ("ref_max", \.refMax),
        ("columns_max", \.columnsMax), ("cards_max", \.cardsMax), ("labels_max", \.labelsMax),
        ("milestones_max", \.milestonesMax), ("members_max", \.membersMax),
        ("labels_per_card_max", \.labelsPerCardMax), ("assignees_per_card_max", \.assigneesPerCardMax),
        ("checklist_items_max", \.checklistItemsMax), ("comments_per_card_max", \.commentsPerCardMax),
        ("wip_limit_max", \.wipLimitMax),
    ]

    /// The value of the limit named `name` (its key in `welcome.limits`), or nil for an unknown name.
    public subscript(name name: String) -> Int? {
        WireLimits.fields.first { $0.name == name }.map { self[keyPath: $0.keyPath] }
    }
}

extension WireLimits: Codable {
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Decodes `welcome.limits`; a missing limit keeps its default and unknown keys are ignored.
    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.container(keyedBy: Key.self)
        for field in WireLimits.fields {
            if let value = try c.decodeIfPresent(Int.self, forKey: Key(field.name)) {
                self[keyPath: field.keyPath] = value
            }
        }
    }

    /// Encodes every limit under its wire name.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        for field in WireLimits.fields {
            try c.encode(self[keyPath: field.keyPath], forKey: Key(field.name))
        }
    }
}
