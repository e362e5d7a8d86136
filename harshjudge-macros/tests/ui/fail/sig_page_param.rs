use harshjudge::browser::Page;
use harshjudge::{scenario, step};

#[scenario]
async fn t(page: Page) -> harshjudge::Result {
    step!("Open", {
        page.goto("/").await?;
    });
    Ok(())
}

fn main() {}
