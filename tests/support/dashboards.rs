//! Live `dashboard serve` processes of a project, read from `/proc`: shared by
//! tests/support/mod.rs and harshjudge-mcp/tests/dashboard.rs (`#[path]`).

use std::path::Path;

/// Live `harshjudge-mcp … dashboard serve` processes of the project at `root`
/// (their command line names it after `--cwd`): a dashboard left running after
/// its test counts as a leak, like a browser (tests/processes.rs).
pub fn dashboards_of(root: &Path) -> Vec<u32> {
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let want = root.as_os_str().as_encoded_bytes();
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let zombie = std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
            s.rfind(')')
                .and_then(|i| s[i + 1..].split_whitespace().next())
                .is_some_and(|st| st == "Z" || st == "X")
        });
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
        let serve = args
            .windows(2)
            .any(|w| w[0] == b"dashboard" && w[1] == b"serve");
        let ours = args.windows(2).any(|w| w[0] == b"--cwd" && w[1] == want);
        if serve && ours && !zombie {
            out.push(pid);
        }
    }
    out
}
