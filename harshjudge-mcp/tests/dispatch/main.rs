//! The tools in process, through the dispatch the server and the CLI share: every tool and guard,
//! the store's neighbours confined, the context budget, judging, knowledge, output schemas, the
//! skill's texts, snapshots, hostile recordings, and a step's trace (`getStepTrace`).

mod confine;
mod context_budget;
mod hostile;
mod judge;
mod knowledge;
mod output_schemas;
mod skill;
mod snapshot;
mod tools;
mod trace;
#[path = "../shared/trace_fixture.rs"]
mod trace_fixture;
