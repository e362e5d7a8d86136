//! Execution contexts by frame: events of a fake browser, and an iframe of a
//! real Chromium.
