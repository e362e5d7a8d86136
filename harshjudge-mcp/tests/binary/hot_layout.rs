//! build.rs's hot-code layout: the linker script it makes from the committed
//! `hot/functions.txt` links with Rust's default linker (lld), keeps every
//! listed pattern, and puts the listed functions in `.text.hot`, ahead of the
//! rest of `.text`. CI builds unoptimised, where build.rs adds nothing, so
//! this links a small program of its own with the script.
#![cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]

#[path = "../../build.rs"]
#[allow(dead_code)]
mod build;

use std::path::Path;
use std::process::Command;

/// The start and size of a section, from `readelf -SW`.
fn section(bin: &Path, name: &str) -> Option<(u64, u64)> {
    let out = Command::new("readelf")
        .arg("-SW")
        .arg(bin)
        .output()
        .unwrap();
    assert!(out.status.success(), "readelf -SW {}", bin.display());
    String::from_utf8_lossy(&out.stdout).lines().find_map(|l| {
        let l = l.split_once(']')?.1;
        let f: Vec<&str> = l.split_whitespace().collect();
        (f.first() == Some(&name)).then(|| {
            let hex = |s: &str| u64::from_str_radix(s, 16).unwrap();
            (hex(f[2]), hex(f[4]))
        })
    })
}

/// The address of the one symbol whose name contains `part`, from `nm`.
fn symbol(bin: &Path, part: &str) -> u64 {
    let out = Command::new("nm").arg(bin).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let found: Vec<&str> = text.lines().filter(|l| l.contains(part)).collect();
    assert_eq!(found.len(), 1, "{part} in nm: {found:?}");
    u64::from_str_radix(found[0].split_whitespace().next().unwrap(), 16).unwrap()
}

#[test]
fn the_hot_list_links_and_puts_its_functions_first() {
    let list =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("hot/functions.txt"))
            .unwrap();
    let listed = list.lines().filter(|l| !l.trim().is_empty()).count();
    assert!(listed > 500, "hot/functions.txt lists {listed} patterns");
    // Two functions of the program below: one listed (by its name without
    // the hash, as the list gives a unique name), one not.
    let names = format!("{list}_ZN3hot9hot_entry17h*\n");
    let script_text = build::linker_script(&names);
    let kept = script_text
        .lines()
        .filter(|l| l.contains("*(.text."))
        .count();
    assert_eq!(kept, listed + 1, "patterns left out of the script");

    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("hot.ld");
    std::fs::write(&script, &script_text).unwrap();
    let src = dir.path().join("hot.rs");
    std::fs::write(
        &src,
        "#[inline(never)] fn hot_entry(n: usize) -> usize { n * 7 + 1 }\n\
         #[inline(never)] fn cold_entry(n: usize) -> usize { n * 5 + 2 }\n\
         fn main() { let n = std::env::args().count(); println!(\"{} {}\", hot_entry(n), cold_entry(n)); }\n",
    )
    .unwrap();
    let bin = dir.path().join("hot");
    let out = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .args([
            "--edition",
            "2024",
            "-C",
            "opt-level=3",
            "--crate-name",
            "hot",
            "-o",
        ])
        .arg(&bin)
        .arg(&src)
        .arg("-C")
        .arg(format!("link-arg=-Wl,-T,{}", script.display()))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "rustc with the script: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&bin).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&run.stdout),
        "8 7\n",
        "the linked program runs"
    );

    let (hot, hot_size) = section(&bin, ".text.hot").expect("a .text.hot section");
    let (text, _) = section(&bin, ".text").expect("a .text section");
    assert!(
        hot < text,
        ".text.hot at {hot:#x} comes before .text at {text:#x}"
    );
    let inside = |a: u64| (hot..hot + hot_size).contains(&a);
    assert!(
        inside(symbol(&bin, "hot_entry")),
        "the listed function is in .text.hot"
    );
    assert!(!inside(symbol(&bin, "cold_entry")), "the other one is not");
}
