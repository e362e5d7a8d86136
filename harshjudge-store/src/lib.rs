#![doc = include_str!("../README.md")]

pub mod event;
pub mod judge;
pub mod recorder;
pub mod report;
pub mod store;
