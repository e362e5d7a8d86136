//! The API documentation of the published crates builds without a warning
//! (issue 43, point 2): `cargo doc` of harshjudge-browser, harshjudge-store,
//! harshjudge, harshjudge-macros and harshjudge-mcp with `RUSTDOCFLAGS="-D
//! warnings"`: a broken intra-doc link, a public item's link to a private one,
//! a public item without documentation (`missing_docs`, the workspace's lint)
//! fail here with rustdoc's own words.

use crate::support;

/// The crates published, whose documentation docs.rs builds.
const PUBLISHED: [&str; 5] = [
    "harshjudge-browser",
    "harshjudge-store",
    "harshjudge",
    "harshjudge-macros",
    "harshjudge-mcp",
];

#[test]
fn the_published_crates_document_without_a_warning() {
    let mut cmd = support::cargo(&["doc", "--offline", "--no-deps"]);
    cmd.env("RUSTDOCFLAGS", "-D warnings");
    for c in PUBLISHED {
        cmd.args(["-p", c]);
    }
    let out = cmd.output().expect("cargo runs");
    assert!(
        out.status.success(),
        "rustdoc warns (RUSTDOCFLAGS=\"-D warnings\" cargo doc --no-deps -p …):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
