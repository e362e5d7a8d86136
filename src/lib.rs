//! The workspace's root package: it owns the end-to-end tests under `tests/`
//! and the example suites under `examples/`. It has no API of its own.
