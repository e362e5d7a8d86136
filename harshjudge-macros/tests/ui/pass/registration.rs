#![deny(warnings)]

//! The registered `ScenarioDef` (the contract with the runtime), checked from a step.
use harshjudge::__private::{inventory, ScenarioDef};
use harshjudge::{ensure, scenario, step, Scenario};
use std::time::Duration;

fn def(fn_name: &str) -> &'static ScenarioDef {
    inventory::iter::<ScenarioDef>.into_iter().find(|d| d.fn_name == fn_name).expect("registered")
}

/// Registration.
#[scenario(tags = ["smoke", "contract"], timeout = "2m", step_timeout = 30)]
async fn registered(
    _s: Scenario,
) -> harshjudge::Result {
    let n = step!("Single line", { 1 + 1 });
    step!(
        "Multi-line",
        timeout = "1500ms",
        {
            let m = n * 2;
            ensure!(m == 4);
        }
    );
    let sum = harshjudge::step!("Not a block", n + 1);
    step!("Check the registration", {
        let d = def("registered");
        ensure!(d.slug == "registered" && d.title == "Registration.", "{d:?}");
        ensure!(d.tags == ["smoke", "contract"], "{:?}", d.tags);
        ensure!(d.timeout == Some(Duration::from_secs(120)), "{:?}", d.timeout);
        ensure!(d.step_timeout == Some(Duration::from_secs(30)), "{:?}", d.step_timeout);
        ensure!(d.file.ends_with("registration.rs"), "{}", d.file);
        ensure!(d.line == 14, "scenario line {}", d.line);
        ensure!(!d.module_path.is_empty(), "{}", d.module_path);
        let titles: Vec<&str> = d.steps.iter().map(|s| s.title).collect();
        ensure!(titles == ["Single line", "Multi-line", "Not a block", "Check the registration"], "{titles:?}");
        let lines: Vec<u32> = d.steps.iter().map(|s| s.line).collect();
        ensure!(lines == [17, 18, 26, 27], "step lines {lines:?}");
        ensure!(d.steps[0].source == "{ 1 + 1 }", "{:?}", d.steps[0].source);
        ensure!(
            d.steps[1].source == "{\n            let m = n * 2;\n            ensure!(m == 4);\n        }",
            "{:?}",
            d.steps[1].source
        );
        ensure!(d.steps[2].source.replace(' ', "") == "n+1", "{:?}", d.steps[2].source);
        let timeouts: Vec<Option<Duration>> = d.steps.iter().map(|s| s.timeout).collect();
        ensure!(timeouts == [None, Some(Duration::from_millis(1500)), None, None], "{timeouts:?}");
        ensure!(sum == 3);
    });
    Ok(())
}

harshjudge::main!();
