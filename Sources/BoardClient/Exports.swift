// The pure client core (replica, pending ops, journal model, connection machine, events) is part of this library's
// API: a UI imports `BoardClient` and `BoardCore` only.
@_exported import BoardClientCore
