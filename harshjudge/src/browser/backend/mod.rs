//! Backends: the code that speaks one protocol for one kind of browser
//! session (`docs/design/backends.md` §2). Each session will speak exactly one:
//! the DevTools protocol directly to a local Chromium ([`cdp`]), WebDriver
//! BiDi to Firefox and to remote ends that offer it, classic WebDriver to the
//! rest (WebKitGTK); this module will hold the traits they implement and
//! `open`, the one place that picks a backend for a session.
//!
//! So far only the DevTools-protocol client exists, not yet used by pages.

pub(crate) mod cdp;
