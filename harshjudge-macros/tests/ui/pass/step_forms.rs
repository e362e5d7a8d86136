//! Less common but valid forms: a step as the body's value, a step whose body is
//! not a block, `?` in a step, `mut` parameter, raw identifier, statements after
//! the last step, braces.
#![deny(warnings)]
use harshjudge::{scenario, step, Scenario};

fn parse(text: &str) -> Result<u32, std::num::ParseIntError> {
    text.parse()
}

#[scenario]
async fn r#async(mut s: Scenario) -> harshjudge::Result {
    s = s.clone();
    let n = step!("Parse", { parse("42")? });
    let m = step!("Not a block", n + 1);
    step! {"Braces", { harshjudge::ensure!(m == 43) }}
    step!("Last, as the value", {
        let _ = &s;
        Ok(())
    })
}

#[scenario]
async fn after_last_step(s: Scenario) -> harshjudge::Result {
    step!("Only step", {});
    // Belongs to the last step.
    harshjudge::ensure!(s.current_step().is_some());
    Ok(())
}

harshjudge::main!();
