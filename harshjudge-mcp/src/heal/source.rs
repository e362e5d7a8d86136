//! Finding a locator's call in the scenario's Rust source, replacing it, and
//! the change as a unified diff.

/// Where a locator's text was found in a source file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The line (1-based).
    pub line: usize,
    /// The byte offset of the text in that line.
    pub column: usize,
}

/// Searches `segment` from line `at` (1-based) up to `window` lines above it,
/// stopping after the line that opens the step (`step!(`).
pub fn find_segment(text: &str, at: usize, segment: &str, window: usize) -> Option<Found> {
    let lines: Vec<&str> = text.lines().collect();
    let last = at.min(lines.len());
    let first = last.saturating_sub(window).max(1);
    for n in (first..=last).rev() {
        let line = lines[n - 1];
        if let Some(column) = line.find(segment) {
            return Some(Found { line: n, column });
        }
        if line.contains("step!(") {
            break;
        }
    }
    None
}

/// Whether a source line is part of an assertion or of a step's header: an
/// `expect(…)` call, a `step!(…, expect = …)`, a `step!` title.
pub fn in_assertion(line: &str) -> bool {
    line.contains("expect(") || line.contains("expect =") || line.contains("step!(")
}

/// `text` with line `found.line`'s `old` (at `found.column`) replaced by `new`.
pub fn replace(text: &str, found: &Found, old: &str, new: &str) -> String {
    let mut out = String::with_capacity(text.len() + new.len());
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if i + 1 == found.line {
            out.push_str(&line[..found.column]);
            out.push_str(new);
            out.push_str(&line[found.column + old.len()..]);
        } else {
            out.push_str(line);
        }
    }
    out
}

/// A unified diff of two versions of `path` that differ in one line (3 lines
/// of context), as `git diff` / `patch -p1` read it.
pub fn unified_diff(path: &str, before: &str, after: &str) -> String {
    let a: Vec<&str> = before.lines().collect();
    let b: Vec<&str> = after.lines().collect();
    let Some(changed) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) else {
        return String::new();
    };
    let start = changed.saturating_sub(3);
    let end = (changed + 4).min(a.len());
    let count = end - start;
    let mut out = format!(
        "--- a/{path}\n+++ b/{path}\n@@ -{},{count} +{},{count} @@\n",
        start + 1,
        start + 1
    );
    for i in start..end {
        if i == changed {
            out.push_str(&format!("-{}\n+{}\n", a[i], b[i]));
        } else {
            out.push_str(&format!(" {}\n", a[i]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_is_found_above_its_call_and_replaced_in_a_diff() {
        let src = "a\nstep!(\"x\", {\n    page.get_by_role(\"button\")\n        .name(\"Submit order\")\n        .click()\n        .await?;\n});\n";
        let f = find_segment(src, 5, ".name(\"Submit order\")", 20).unwrap();
        assert_eq!(f.line, 4);
        assert_eq!(find_segment(src, 5, "get_by_label(\"x\")", 20), None);
        let after = replace(src, &f, ".name(\"Submit order\")", ".name(\"Place order\")");
        assert!(after.contains("        .name(\"Place order\")\n"));
        let diff = unified_diff("t.rs", src, &after);
        assert!(
            diff.starts_with("--- a/t.rs\n+++ b/t.rs\n@@ -1,7 +1,7 @@\n"),
            "{diff}"
        );
        assert!(
            diff.contains("-        .name(\"Submit order\")\n+        .name(\"Place order\")\n")
        );
        assert!(in_assertion("expect(&page.get_by_test_id(\"s\"))"));
    }
}
