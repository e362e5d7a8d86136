//! A YAML emitter for the files the original HarshJudge reads with js-yaml.
//!
//! Block style, sequences indented under their key, `[]`/`{}` for empty
//! collections, and strings single-quoted whenever a YAML 1.1 or 1.2 reader
//! could take them for anything but a string (`'01'`, `'1.0'`, timestamps,
//! `'yes'`, `''`). Parsing goes through `serde_yaml_ng`.

use serde_yaml_ng::Value;
use std::fmt::Write;

/// Renders a value as a YAML document (ends with a newline).
pub fn to_string(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Mapping(m) if !m.is_empty() => emit_mapping(&mut out, m, 0),
        Value::Sequence(s) if !s.is_empty() => emit_sequence(&mut out, s, 0),
        other => {
            out.push_str(&scalar(other, 0));
            out.push('\n');
        }
    }
    out
}

fn indent(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

fn is_block(v: &Value) -> bool {
    match v {
        Value::Mapping(m) => !m.is_empty(),
        Value::Sequence(s) => !s.is_empty(),
        Value::Tagged(t) => is_block(&t.value),
        _ => false,
    }
}

fn emit_mapping(out: &mut String, m: &serde_yaml_ng::Mapping, level: usize) {
    let mut first = true;
    for (k, v) in m {
        if !first {
            indent(out, level);
        }
        first = false;
        out.push_str(&key(k));
        out.push(':');
        emit_value_after_key(out, v, level);
    }
}

fn emit_value_after_key(out: &mut String, v: &Value, level: usize) {
    match v {
        Value::Mapping(m) if !m.is_empty() => {
            out.push('\n');
            indent(out, level + 2);
            emit_mapping(out, m, level + 2);
        }
        Value::Sequence(s) if !s.is_empty() => {
            out.push('\n');
            indent(out, level + 2);
            emit_sequence(out, s, level + 2);
        }
        other => {
            out.push(' ');
            out.push_str(&scalar(other, level + 2));
            out.push('\n');
        }
    }
}

fn emit_sequence(out: &mut String, s: &[Value], level: usize) {
    let mut first = true;
    for item in s {
        if !first {
            indent(out, level);
        }
        first = false;
        out.push_str("- ");
        match item {
            Value::Mapping(m) if !m.is_empty() => emit_mapping(out, m, level + 2),
            Value::Sequence(inner) if !inner.is_empty() => emit_sequence(out, inner, level + 2),
            other => {
                out.push_str(&scalar(other, level + 2));
                out.push('\n');
            }
        }
    }
}

fn key(k: &Value) -> String {
    match k {
        Value::String(s) => string(s, 0, false),
        other if is_block(other) => {
            // Complex keys never occur in our files; write them as a quoted flow string.
            single_quoted(&to_string(other))
        }
        other => scalar(other, 0),
    }
}

fn scalar(v: &Value, level: usize) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number(n),
        Value::String(s) => string(s, level, true),
        Value::Sequence(_) => "[]".into(),
        Value::Mapping(_) => "{}".into(),
        Value::Tagged(t) => {
            let mut s = format!("{} ", t.tag);
            if is_block(&t.value) {
                // Not produced by our writers; keep it readable as a flow string.
                s.push_str(&single_quoted(&to_string(&t.value)));
            } else {
                s.push_str(&scalar(&t.value, level));
            }
            s
        }
    }
}

fn number(n: &serde_yaml_ng::Number) -> String {
    if let Some(f) = n.as_f64().filter(|_| n.is_f64()) {
        if f.is_nan() {
            return ".nan".into();
        }
        if f.is_infinite() {
            return if f > 0.0 {
                ".inf".into()
            } else {
                "-.inf".into()
            };
        }
        let mut s = format!("{f}");
        if !s.contains(['.', 'e', 'E']) {
            s.push_str(".0");
        }
        return s;
    }
    n.to_string()
}

/// Writes a string plain when every YAML reader agrees it is that string,
/// as a block literal when it spans lines, and single-quoted otherwise.
fn string(s: &str, level: usize, allow_block: bool) -> String {
    if allow_block && s.contains('\n') && block_literal_ok(s) {
        let chomp = if s.ends_with("\n\n") || s == "\n" {
            "+"
        } else if s.ends_with('\n') {
            ""
        } else {
            "-"
        };
        let body = s.strip_suffix('\n').unwrap_or(s);
        let mut out = format!("|{chomp}");
        for line in body.split('\n') {
            out.push('\n');
            if !line.is_empty() {
                indent(&mut out, level);
                out.push_str(line);
            }
        }
        return out;
    }
    if needs_quotes(s) {
        if s.chars().any(|c| c.is_control() && c != '\t') || s.contains('\n') {
            double_quoted(s)
        } else {
            single_quoted(s)
        }
    } else {
        s.to_string()
    }
}

fn block_literal_ok(s: &str) -> bool {
    let first = s.split('\n').next().unwrap_or("");
    !first.starts_with(' ')
        && !first.is_empty()
        && !s
            .chars()
            .any(|c| (c.is_control() && c != '\n' && c != '\t') || c == '\u{feff}')
        && !s.split('\n').any(|l| l.ends_with(' ') || l.ends_with('\t'))
}

fn single_quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

fn double_quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Words that YAML 1.1 (js-yaml, PyYAML) or 1.2 read as null or booleans.
const RESERVED: &[&str] = &[
    "null", "Null", "NULL", "~", "true", "True", "TRUE", "false", "False", "FALSE", "y", "Y",
    "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF", "<<",
    "=",
];

fn needs_quotes(s: &str) -> bool {
    if s.is_empty() || RESERVED.contains(&s) {
        return true;
    }
    let first = s.chars().next().unwrap_or(' ');
    let last = s.chars().last().unwrap_or(' ');
    // Anything starting like a number, sign or dot may be a number, a float such
    // as `.5` or `.inf`, a timestamp, a version like `1.0`, or octal/hex: quote it.
    if first.is_ascii_digit() || matches!(first, '+' | '-' | '.') {
        return true;
    }
    if matches!(
        first,
        '!' | '&'
            | '*'
            | '?'
            | ':'
            | ','
            | '['
            | ']'
            | '{'
            | '}'
            | '#'
            | '|'
            | '>'
            | '\''
            | '"'
            | '%'
            | '@'
            | '`'
            | ' '
            | '\t'
    ) {
        return true;
    }
    if matches!(last, ' ' | '\t' | ':') {
        return true;
    }
    s.contains(": ")
        || s.contains(" #")
        || s.contains(":\t")
        || s.chars().any(|c| {
            c.is_control() || c == '\u{feff}' || c == '\u{85}' || c == '\u{2028}' || c == '\u{2029}'
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(s: &str) {
        let v = Value::String(s.to_string());
        let mut m = serde_yaml_ng::Mapping::new();
        m.insert(Value::String("k".into()), v.clone());
        let text = to_string(&Value::Mapping(m));
        let back: Value = serde_yaml_ng::from_str(&text).unwrap();
        assert_eq!(back.get("k"), Some(&v), "text was {text:?}");
    }

    #[test]
    fn quotes_what_yaml_would_retype() {
        for (s, want) in [
            ("01", "'01'"),
            ("1.0", "'1.0'"),
            ("", "''"),
            ("2026-11-22T11:25:48.115Z", "'2026-11-22T11:25:48.115Z'"),
            ("yes", "'yes'"),
            ("null", "'null'"),
            ("User Login: Flow", "'User Login: Flow'"),
            ("it's", "it's"),
            ("-x", "'-x'"),
            ("Navigate to login", "Navigate to login"),
            ("a #b", "'a #b'"),
        ] {
            assert_eq!(string(s, 0, true), want, "for {s:?}");
            roundtrip(s);
        }
    }

    #[test]
    fn multiline_and_control_strings_roundtrip() {
        for s in [
            "a\nb",
            "a\nb\n",
            "a\n\nb\n\n",
            " lead\nx",
            "tab\there",
            "bell\u{7}",
            "trail \nx",
            "\n",
        ] {
            roundtrip(s);
        }
    }

    #[test]
    fn js_yaml_layout() {
        let v: Value = serde_yaml_ng::from_str(
            "title: T\ntags: [a, b]\nempty: []\nsteps:\n- id: '01'\n  title: x\ncount: 3\nf: 1.5\nz: null\n",
        )
        .unwrap();
        assert_eq!(
            to_string(&v),
            "title: T\ntags:\n  - a\n  - b\nempty: []\nsteps:\n  - id: '01'\n    title: x\ncount: 3\nf: 1.5\nz: null\n"
        );
    }
}
