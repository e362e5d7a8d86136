//! Runs of the fixture and example suites (tests/fixtures/, examples/demo/) through their test
//! binaries run as `cargo test` runs them, real `cargo test` and `cargo nextest run`, checked by their console, exit code and
//! every file written: the harness, evidence, reports, JUnit, judging, healing, selection, setups,
//! secrets, web servers, resilience, processes left behind, shared and reused browsers.

#[path = "../support/mod.rs"]
mod support;

mod api;
mod bad_input;
mod engines_reuse;
mod evidence_blobs;
mod fixtures;
mod harness;
mod heal;
mod heal_demo;
mod judge;
mod judge_demo;
mod junit;
mod merge;
mod processes;
mod rejudge;
mod report;
mod resilience;
mod secrets;
mod selection;
mod setups;
mod shared_browser;
mod targets;
mod trace;
mod trace_aria;
mod trace_report;
mod video;
mod visual;
mod watch;
mod web_server;
