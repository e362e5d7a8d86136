//! Lays the server's hot code out together, so that it pages in less of its
//! binary.
//!
//! On Linux a fault in an executable's text maps a whole page-cache folio, so
//! the server's RSS follows how widely the functions it runs are spread over
//! `.text` rather than how many there are (README, Speed). `hot/functions.txt`
//! lists the functions an agent loop runs (found with callgrind;
//! `hot/regenerate.sh` writes it again), and a linker script puts them first.
//!
//! Only where it is known to be safe: an optimised build for x86_64 Linux
//! (gnu) with Rust's default linker, which is lld there, and no linker of the
//! user's own. `HARSHJUDGE_MCP_NO_SYMBOL_ORDER=1` turns it off. A listed name
//! the binary does not have matches nothing; the rest of the layout is lld's.

use std::env;
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=hot/functions.txt");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=HARSHJUDGE_MCP_NO_SYMBOL_ORDER");
    if !wanted() {
        return;
    }
    let dir = env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default();
    let Ok(names) = std::fs::read_to_string(Path::new(&dir).join("hot/functions.txt")) else {
        return;
    };
    let Some(out) = env::var_os("OUT_DIR") else {
        return;
    };
    let script = Path::new(&out).join("hot.ld");
    if std::fs::write(&script, linker_script(&names)).is_ok() {
        println!("cargo:rustc-link-arg-bins=-Wl,-T,{}", script.display());
    }
}

/// A linker script that only adds to lld's own layout (`INSERT BEFORE .text`):
/// an output section holding the listed functions' sections, which rustc names
/// `.text.<symbol>` (`.text.unlikely.<symbol>` for what LLVM finds cold). A
/// Rust symbol's hash, which changes with the toolchain, the lock file, the
/// features and where the crate came from, is listed as `*` where the name
/// alone is unique (hot/hot_names.py). Lines that are not plain symbol
/// patterns are left out.
pub(crate) fn linker_script(names: &str) -> String {
    let mut s = String::from("SECTIONS\n{\n  .text.hot : {\n");
    for name in names.lines().map(str::trim) {
        let plain = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_$.*".contains(&b));
        if plain {
            s.push_str(&format!("    *(.text.{name} .text.unlikely.{name})\n"));
        }
    }
    s.push_str("  }\n}\nINSERT BEFORE .text;\n");
    s
}

/// Whether this build gets the layout.
fn wanted() -> bool {
    let var = |k: &str| env::var(k).unwrap_or_default();
    let off = var("HARSHJUDGE_MCP_NO_SYMBOL_ORDER");
    let optimised = var("OPT_LEVEL") != "0";
    // lld is Rust's default linker on this target only.
    let lld_target = var("CARGO_CFG_TARGET_ARCH") == "x86_64"
        && var("CARGO_CFG_TARGET_OS") == "linux"
        && var("CARGO_CFG_TARGET_ENV") == "gnu";
    // A linker of the user's own (config or RUSTFLAGS) may not be lld, and GNU
    // ld does not take every script lld takes.
    let own_linker = env::var_os("RUSTC_LINKER").is_some()
        || ["linker", "fuse-ld", "link-self-contained"]
            .iter()
            .any(|k| var("CARGO_ENCODED_RUSTFLAGS").contains(k));
    (off.is_empty() || off == "0") && optimised && lld_target && !own_linker
}
