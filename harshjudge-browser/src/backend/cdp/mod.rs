//! The DevTools protocol (CDP) spoken directly to a local Chromium, as
//! Playwright and chromiumoxide do, without chromedriver: [`launch`] starts
//! the browser (pipe or port), [`transport`] carries its messages,
//! [`connection`] matches answers to commands and routes events by session,
//! [`protocol`] types the commands and events this side uses. The pieces of
//! the page backend: [`input`] (keyboard and mouse from W3C action lists, a
//! US key table), [`events`] (console and network, live, into the generic
//! `StepLog`), [`frames`] (each frame's default execution context),
//! [`elements`] (engine calls answering elements, frame scopes, other
//! origins' storage), [`screenshot`] (and the viewport), [`fetch`] (routes),
//! [`dialog`] (dialogs), [`emulate`] (the page's emulation), [`auth`] (its HTTP credentials), [`popups`], [`downloads`], [`screencast`] (the
//! painted frames, for the run's video); assembled: [`context`] (the browser, its contexts)
//! and [`page`] (a page).
//!
//! Not used by pages yet: step 9 of `docs/design/backends.md` (the CDP
//! backend) uses it, hence the `dead_code` allowance.
#![allow(dead_code)]

pub(crate) mod action_wait;
pub(crate) mod auth;
pub(crate) mod backend;
pub(crate) mod connection;
pub(crate) mod context;
pub(crate) mod dialog;
pub(crate) mod downloads;
pub(crate) mod elements;
pub(crate) mod emulate;
pub(crate) mod events;
pub(crate) mod fetch;
pub(crate) mod frames;
pub(crate) mod input;
pub(crate) mod intercept;
pub(crate) mod launch;
pub(crate) mod load_wait;
pub(crate) mod page;
pub(crate) mod popups;
pub(crate) mod protocol;
pub(crate) mod readers;
pub mod screencast;
pub(crate) mod screenshot;
pub(crate) mod shared;
pub(crate) mod transport;

#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;
