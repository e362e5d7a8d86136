//! The browser API called directly, in real headless browsers: the page API against the demo app,
//! launching, the three engines, a Selenium Grid, locators and their generation, pointer actions,
//! ARIA roles, names and snapshots, and the trace's snapshot renderer.

#[path = "../support/mod.rs"]
mod support;

mod aria_match;
mod aria_roles;
mod arriving;
mod auth;
mod clock;
mod emulation;
mod engines;
mod grid;
mod launch;
mod locator_generate;
mod locators;
mod page_api;
mod pointer_actions;
mod slow_mo;
mod trace;
mod trace_dom;
mod trace_images;
mod trace_render;
mod trace_shots;
