//! JSON of a response's body or a command's stdout, read and matched alike
//! ([`read`], [`verdict`]). `to_have_json`'s rule: the JSON contains the
//! template. An object matches when every key of the template matches (other
//! keys are ignored); an array when the template's elements match elements of
//! the JSON's array in the same order (others may come between); anything
//! else when equal (numbers by value: `1` matches `1.0`).

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::ApiError;

/// `bytes` (a body, an output) parsed as JSON into `T`; when they are not
/// that JSON, `fail(why, the start of their text)`.
pub(crate) fn read<T: DeserializeOwned>(
    bytes: &[u8],
    fail: impl FnOnce(serde_json::Error, String) -> ApiError,
) -> Result<T, ApiError> {
    serde_json::from_slice(bytes).map_err(|source| {
        fail(
            source,
            String::from_utf8_lossy(bytes).chars().take(200).collect(),
        )
    })
}

/// `to_have_json(template)` on `bytes` (`what`: `a body`, `a stdout`):
/// whether they are JSON that contains `template`, and what was received (the
/// JSON, or where and why it differs, or why it is no JSON).
pub(crate) fn verdict(template: &Value, bytes: &[u8], what: &str) -> (bool, String) {
    match serde_json::from_slice::<Value>(bytes) {
        Err(e) => (false, format!("{what} that is not JSON ({e})")),
        Ok(actual) => match mismatch(template, &actual) {
            None => (true, actual.to_string()),
            Some(why) => (false, why),
        },
    }
}

/// Where `actual` first fails to contain `template` (`None` when it contains
/// it): the JSON path and why.
pub(crate) fn mismatch(template: &Value, actual: &Value) -> Option<String> {
    at("$", template, actual)
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 120 {
        format!("{}…", s.chars().take(120).collect::<String>())
    } else {
        s
    }
}

fn at(path: &str, template: &Value, actual: &Value) -> Option<String> {
    match (template, actual) {
        (Value::Object(t), Value::Object(a)) => t.iter().find_map(|(k, tv)| {
            let p = format!("{path}.{k}");
            match a.get(k) {
                None => Some(format!("{p}: missing (expected {})", short(tv))),
                Some(av) => at(&p, tv, av),
            }
        }),
        (Value::Array(t), Value::Array(a)) => {
            let mut next = 0;
            for (i, tv) in t.iter().enumerate() {
                match (next..a.len()).find(|&j| at("", tv, &a[j]).is_none()) {
                    Some(j) => next = j + 1,
                    None => {
                        let why = match a.get(next.min(a.len().saturating_sub(1))) {
                            Some(av) if a.len() > next => at(&format!("{path}[{next}]"), tv, av)
                                .map(|w| format!(" (the next one: {w})"))
                                .unwrap_or_default(),
                            _ => String::new(),
                        };
                        return Some(format!(
                            "{path}: no element from index {next} on matches template element {i} {}{why}",
                            short(tv)
                        ));
                    }
                }
            }
            None
        }
        (Value::Number(t), Value::Number(a)) if t.as_f64() == a.as_f64() => None,
        _ if template == actual => None,
        _ => Some(format!(
            "{}: expected {}, received {}",
            if path.is_empty() { "$" } else { path },
            short(template),
            short(actual)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::mismatch;
    use serde_json::json;

    #[test]
    fn objects_match_on_the_template_keys_recursively() {
        let actual = json!({"a": 1, "b": {"c": "x", "d": [1, 2]}, "e": null});
        assert_eq!(mismatch(&json!({"b": {"c": "x"}}), &actual), None);
        assert_eq!(mismatch(&json!({"a": 1.0}), &actual), None);
        assert_eq!(mismatch(&json!({}), &actual), None);
        assert_eq!(
            mismatch(&json!({"b": {"c": "y"}}), &actual).unwrap(),
            "$.b.c: expected \"y\", received \"x\""
        );
        assert_eq!(
            mismatch(&json!({"z": 1}), &actual).unwrap(),
            "$.z: missing (expected 1)"
        );
        assert!(
            mismatch(&json!({"a": "1"}), &actual).is_some(),
            "types differ"
        );
    }

    #[test]
    fn arrays_match_as_an_ordered_subsequence() {
        let actual = json!([{"id": 1, "n": "a"}, {"id": 2, "n": "b"}, {"id": 3, "n": "c"}]);
        assert_eq!(mismatch(&json!([{"id": 1}, {"id": 3}]), &actual), None);
        assert_eq!(mismatch(&json!([]), &actual), None);
        let out_of_order = mismatch(&json!([{"id": 3}, {"id": 1}]), &actual).unwrap();
        assert!(
            out_of_order.contains("template element 1"),
            "{out_of_order}"
        );
        assert!(mismatch(&json!([{"id": 4}]), &actual).is_some());
        assert!(
            mismatch(&json!([1, 1]), &json!([1])).is_some(),
            "each element once"
        );
        assert!(mismatch(&json!({"k": [1]}), &json!({"k": {"0": 1}})).is_some());
    }
}
