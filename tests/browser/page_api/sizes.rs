//! The futures of the page API are small, in a debug build too: a scenario
//! awaits dozens of them in one `async fn`, and a debug build gives each
//! await its own slot of that function's stack frame and state. With
//! futures of 1.7 to 23 KB, the 16 TodoMVC specs of `engines` took
//! more than 1.875 MiB of a 2 MiB test thread's stack; with each of them
//! boxed (8 bytes), they pass on 1 MiB.

use harshjudge::expect;

/// The most a public future may take.
const SMALL: usize = 512;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_apis_futures_are_small() {
    let (page, _base) = super::page().await;
    let l = page.locator("#x");
    let other = page.locator("#y");
    let mut sizes: Vec<(&str, usize)> = Vec::new();
    macro_rules! size {
        ($name:expr, $f:expr) => {{
            let f = $f;
            sizes.push(($name, std::mem::size_of_val(&f)));
            drop(f);
        }};
    }
    size!("goto", page.goto("/"));
    size!(
        "evaluate",
        page.evaluate::<serde_json::Value, _>("() => 1", ())
    );
    size!("capture", page.capture(false));
    size!("wait_for (page)", page.wait_for("#x"));
    size!("reload", page.reload());
    size!("go_back", page.go_back());
    let keyboard = page.keyboard();
    size!("keyboard.press", keyboard.press("Enter"));
    size!("keyboard.down", keyboard.down("Shift"));
    let clock = page.clock();
    size!("clock.install", clock.install());
    size!(
        "clock.run_for",
        clock.run_for(std::time::Duration::from_secs(1))
    );
    size!("click", l.click());
    size!("dblclick", l.dblclick());
    size!("hover", l.hover());
    size!("fill", l.fill("a"));
    size!("clear", l.clear());
    size!("press", l.press("Enter"));
    size!("press_sequentially", l.press_sequentially("ab"));
    size!("check", l.check());
    size!("uncheck", l.uncheck());
    size!("select_option", l.select_option(["a"]));
    size!("focus", l.focus());
    size!("set_input_files", l.set_input_files(["a"]));
    size!("drag_to", l.drag_to(&other));
    size!("screenshot", l.screenshot());
    size!("text_content", l.text_content());
    size!("inner_text", l.inner_text());
    size!("input_value", l.input_value());
    size!("get_attribute", l.get_attribute("id"));
    size!("is_visible", l.is_visible());
    size!("count", l.count());
    size!("all_inner_texts", l.all_inner_texts());
    size!("bounding_box", l.bounding_box());
    size!(
        "wait_for (locator)",
        l.wait_for(harshjudge::browser::WaitState::Visible)
    );
    size!("to_have_text", expect(&l).to_have_text("a"));
    size!("to_be_visible", expect(&l).to_be_visible());
    size!("to_have_count", expect(&l).to_have_count(1));
    let big: Vec<_> = sizes.iter().filter(|(_, n)| *n > SMALL).collect();
    assert!(
        big.is_empty(),
        "futures of more than {SMALL} bytes (box their bodies): {big:?}"
    );
}
