//! Errors are types (issue 21 point 6): no non-test function of the three
//! crates returns `Result<_, String>`, and no error type is a newtype around a
//! `String` or a JSON `Value`; a caller matches on an enum whose variants carry
//! the cause and the values the message names.
//!
//! The functions that still return one are listed in `REMAINING`, by file,
//! with their count: a file may only go down (then lower its count, or remove
//! it), never up, and no other file may start.

use std::collections::BTreeMap;
use std::path::Path;

use crate::support::sources;

use sources::{CRATES, workspace};

/// Files that may still have functions returning `Result<_, String>`, with
/// how many: none is left (issue 21 point 6). A file listed here could only go
/// down.
const REMAINING: &[(&str, usize)] = &[];

/// Error types that may still be a newtype around a string, by file and name:
/// none is left (the store's YAML error keeps the reader's error as its cause).
const REMAINING_NEWTYPES: &[&str] = &[];

fn is_test_file(file: &Path) -> bool {
    let name = file.file_name().unwrap().to_string_lossy();
    name == "tests.rs" || name.ends_with("_tests.rs") || name == "testing.rs"
}

/// `source` with comments removed and every string and character literal
/// emptied (so that braces and words inside them count for nothing).
fn code_only(source: &str) -> String {
    let b: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && !b
                .get(i.wrapping_sub(1))
                .is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            // A raw string r"…", r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{1}'), else a lifetime.
            if next == Some('\\') {
                let mut j = i + 2;
                while j < b.len() && b[j] != '\'' {
                    j += 1;
                }
                i = j + 1;
                out.push_str("' '");
            } else if b.get(i + 2) == Some(&'\'') {
                i += 3;
                out.push_str("' '");
            } else {
                out.push(c);
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The index just past the item that starts at `from` (its `;`, or the `}`
/// closing its first `{`).
fn item_end(code: &[u8], from: usize) -> usize {
    let mut i = from;
    while i < code.len() && code[i] != b'{' && code[i] != b';' {
        i += 1;
    }
    if i >= code.len() || code[i] == b';' {
        return (i + 1).min(code.len());
    }
    let mut depth = 0;
    while i < code.len() {
        match code[i] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    code.len()
}

/// `code` without the items under `#[cfg(test)]` or `#[test]`.
fn without_tests(code: &str) -> String {
    let bytes = code.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < code.len() {
        let rest = &code[i..];
        let attr = ["#[cfg(test)]", "#[test]"]
            .into_iter()
            .find(|a| rest.starts_with(a));
        match attr {
            Some(a) => i = item_end(bytes, i + a.len()),
            None => {
                let ch = rest.chars().next().unwrap();
                out.push(ch);
                i += ch.len_utf8();
            }
        }
    }
    out
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The top-level arguments of the generic list that starts after `<` at `from`.
fn generic_args(s: &str, from: usize) -> Vec<String> {
    let b = s.as_bytes();
    let mut args = Vec::new();
    let mut depth = 0;
    let mut start = from;
    let mut i = from;
    while i < b.len() {
        match b[i] {
            b'-' if b.get(i + 1) == Some(&b'>') => i += 1,
            b'<' | b'(' | b'[' => depth += 1,
            b'>' | b')' | b']' if depth > 0 => depth -= 1,
            b'>' => {
                // A trailing comma leaves nothing after it.
                let last = s[start..i].trim();
                if !last.is_empty() {
                    args.push(last.to_string());
                }
                return args;
            }
            b',' if depth == 0 => {
                args.push(s[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    args
}

/// How many `Result<_, String>` the type text `ty` holds.
fn string_results(ty: &str) -> usize {
    let b = ty.as_bytes();
    let mut n = 0;
    let mut i = 0;
    while let Some(at) = ty[i..].find("Result<") {
        let start = i + at;
        let open = start + "Result<".len();
        if start == 0 || !is_word(b[start - 1]) {
            let args = generic_args(ty, open);
            if args.len() == 2 && args[1] == "String" {
                n += 1;
            }
        }
        i = open;
    }
    n
}

/// The non-test functions of `code` whose return type holds a
/// `Result<_, String>`: their names.
fn string_error_fns(code: &str) -> Vec<String> {
    let b = code.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while let Some(at) = code[i..].find("fn ") {
        let start = i + at;
        i = start + 3;
        if start > 0 && is_word(b[start - 1]) {
            continue;
        }
        // The signature: up to the body or the `;`, outside parentheses.
        let mut depth = 0;
        let mut end = i;
        while end < b.len() {
            match b[end] {
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                b'{' | b';' if depth == 0 => break,
                _ => {}
            }
            end += 1;
        }
        let sig = &code[start..end];
        let name: String = sig[3..]
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        // The return type: after the `->` that follows the parameters.
        let mut depth = 0;
        let mut ret = None;
        let sb = sig.as_bytes();
        for (k, c) in sb.iter().enumerate() {
            match c {
                b'(' => depth += 1,
                b')' => depth -= 1,
                b'-' if depth == 0 && sb.get(k + 1) == Some(&b'>') => {
                    ret = Some(&sig[k + 2..]);
                    break;
                }
                _ => {}
            }
        }
        let Some(ret) = ret else { continue };
        let ret = match ret.find(" where ").or_else(|| ret.find("\nwhere")) {
            Some(w) => &ret[..w],
            None => ret,
        };
        let ret: String = ret.split_whitespace().collect::<Vec<_>>().join(" ");
        if string_results(&ret) > 0 {
            found.push(name);
        }
    }
    found
}

/// Every non-test function returning `Result<_, String>`, by file relative to
/// the workspace.
fn string_errors() -> BTreeMap<String, Vec<String>> {
    let root = workspace();
    let mut out = BTreeMap::new();
    for c in CRATES {
        let files = sources::rust_files(&root.join(c));
        for f in files.iter().filter(|f| !is_test_file(f)) {
            let code = without_tests(&code_only(&std::fs::read_to_string(f).unwrap()));
            let fns = string_error_fns(&code);
            if !fns.is_empty() {
                let rel = f.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.insert(rel, fns);
            }
        }
    }
    out
}

#[test]
fn the_scanner_finds_what_it_must() {
    let code = code_only(
        r#"
        // fn commented() -> Result<(), String> {}
        pub fn one(a: &str) -> Result<u32, String> { let _ = "fn two() -> Result<(), String>"; }
        fn multi(
            a: &str,
        ) -> Result<
            Vec<(String, u32)>,
            String,
        > {
            '{'
        }
        fn typed() -> Result<String, MyError> {}
        fn alias() -> crate::Result<String> {}
        fn future() -> impl Future<Output = Result<Vec<String>, String>> + Send {}
        fn closure(f: impl Fn() -> Result<(), String>) -> u8 {}
        #[cfg(test)]
        mod tests {
            fn in_test() -> Result<(), String> {}
        }
        #[test]
        fn a_test() -> Result<(), String> {}
        "#,
    );
    assert_eq!(
        string_error_fns(&without_tests(&code)),
        ["one", "multi", "future"]
    );
}

#[test]
fn no_function_returns_a_string_as_its_error() {
    let found = string_errors();
    let allowed: BTreeMap<&str, usize> = REMAINING.iter().copied().collect();
    let mut problems = Vec::new();
    for (file, fns) in &found {
        let limit = allowed.get(file.as_str()).copied().unwrap_or(0);
        if fns.len() > limit {
            problems.push(format!(
                "{file}: {} function(s) return Result<_, String> ({}), {limit} allowed: return an error enum a caller can match (its variants carry the cause and the values the message names), as StoreError does",
                fns.len(),
                fns.join(", ")
            ));
        }
    }
    for (file, limit) in &allowed {
        let n = found.get(*file).map_or(0, Vec::len);
        if n < *limit {
            problems.push(format!(
                "{file}: {n} function(s) return Result<_, String> now, REMAINING says {limit}: lower it in tests/errors.rs (remove the line at 0)"
            ));
        }
    }
    let total: usize = found.values().map(Vec::len).sum();
    assert!(
        problems.is_empty(),
        "{}\n(all of them: {total}: {found:?})",
        problems.join("\n")
    );
}

#[test]
fn no_error_type_is_a_string_or_a_json_value() {
    let root = workspace();
    let mut found = Vec::new();
    for c in CRATES {
        let files = sources::rust_files(&root.join(c));
        for f in files.iter().filter(|f| !is_test_file(f)) {
            let code = without_tests(&code_only(&std::fs::read_to_string(f).unwrap()));
            let flat: String = code.split_whitespace().collect::<Vec<_>>().join(" ");
            let mut i = 0;
            while let Some(at) = flat[i..].find("struct ") {
                let start = i + at + "struct ".len();
                i = start;
                let name: String = flat[start..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let after = &flat[start + name.len()..];
                let newtype = ["(pub String)", "(String)", "(pub Value)", "(Value)"]
                    .iter()
                    .chain(&["(pub serde_json::Value)", "(serde_json::Value)"])
                    .any(|t| after.starts_with(t));
                if name.ends_with("Error") && newtype {
                    let rel = f.strip_prefix(root).unwrap().display().to_string();
                    found.push(format!("{rel}: {name}"));
                }
            }
        }
    }
    found.retain(|f| !REMAINING_NEWTYPES.contains(&f.as_str()));
    for known in REMAINING_NEWTYPES {
        let (file, name) = known.split_once(": ").unwrap();
        let text = std::fs::read_to_string(root.join(file)).unwrap_or_default();
        assert!(
            text.contains(&format!("struct {name}(")),
            "{known} is no longer a newtype: remove it from REMAINING_NEWTYPES in tests/errors.rs"
        );
    }
    assert!(
        found.is_empty(),
        "error types that are a string or a JSON value, which a caller cannot match on (make each an enum of what can go wrong): {found:?}"
    );
}
