// Placeholder; replaced by the client library.
