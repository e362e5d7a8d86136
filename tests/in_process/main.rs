//! Scenarios of this binary run by the harness inside the test process (`harness::run`,
//! `support::InProcessRuns`) in real browsers, against loopback servers of the tests: routes,
//! network and console evidence, dialogs, held browsers, commands per step. Each module's runs are
//! made once and checked by one test (`support::facts`); `support::in_process` keeps two modules'
//! runs and their environment apart under `cargo test`.

#[path = "../support/mod.rs"]
mod support;

mod bidi;
mod emulated;
mod engines_network;
mod held_browser;
mod reach;
mod routed_input;
mod routed_reads;
mod routed_state;
mod slow_launch;
mod soft;
mod step_commands;
