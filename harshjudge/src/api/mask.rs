//! What never lands in evidence unmasked: the values of `Authorization`,
//! `Proxy-Authorization`, `Cookie` and `Set-Cookie`, of secret-looking JSON,
//! form, query and environment names, and any of those values wherever else
//! it shows up (a response that echoes a header, a command that prints its
//! environment).

use serde_json::Value;

/// What a masked value is replaced by.
pub(crate) const MASK: &str = "****";

/// Whether a field (JSON key, form or query name, environment variable) looks
/// like it holds a secret.
pub(crate) fn secret_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
        "password",
        "passwd",
        "secret",
        "token",
        "apikey",
        "api_key",
        "api-key",
        "authorization",
        "credential",
        "session",
        "cookie",
        "private_key",
    ]
    .iter()
    .any(|w| n.contains(w))
}

/// The secret values seen in one exchange (or command), to be scrubbed from
/// everything recorded of it.
#[derive(Default, Debug)]
pub(crate) struct Secrets {
    values: Vec<String>,
}

impl Secrets {
    /// Remembers `value` as a secret (values under 4 characters are masked
    /// where they stand but not searched for elsewhere: too many false hits).
    pub(crate) fn add(&mut self, value: &str) {
        let v = value.trim();
        if v.len() >= 4 && !self.values.iter().any(|s| s == v) {
            self.values.push(v.to_string());
        }
    }

    /// A header's value with its secret part masked: `Bearer ****`,
    /// `a=****; b=****`, `sid=****; Path=/; HttpOnly`. Remembers the secrets.
    pub(crate) fn header(&mut self, name: &str, value: &str) -> String {
        match name.to_ascii_lowercase().as_str() {
            "authorization" | "proxy-authorization" => {
                self.add(value);
                match value.split_once(' ') {
                    Some((scheme, cred)) => {
                        self.add(cred);
                        format!("{scheme} {MASK}")
                    }
                    None => MASK.to_string(),
                }
            }
            "cookie" => value
                .split(';')
                .map(|pair| self.cookie_pair(pair.trim()))
                .collect::<Vec<_>>()
                .join("; "),
            "set-cookie" => {
                let mut parts = value.split(';');
                let first = self.cookie_pair(parts.next().unwrap_or("").trim());
                std::iter::once(first)
                    .chain(parts.map(|p| p.trim().to_string()))
                    .collect::<Vec<_>>()
                    .join("; ")
            }
            // A header named like a secret (`x-api-key`, `x-auth-token`, …):
            // an `extra_http_headers` default or a request's own.
            n if secret_name(n) => {
                self.add(value);
                MASK.to_string()
            }
            _ => value.to_string(),
        }
    }

    fn cookie_pair(&mut self, pair: &str) -> String {
        match pair.split_once('=') {
            Some((n, v)) => {
                self.add(v);
                format!("{n}={MASK}")
            }
            None => MASK.to_string(),
        }
    }

    /// Masks the values of secret-looking keys in `value`, remembering them.
    pub(crate) fn json(&mut self, value: &mut Value) {
        match value {
            Value::Object(map) => {
                for (k, v) in map.iter_mut() {
                    if secret_name(k) && !v.is_null() {
                        self.remember(v);
                        *v = Value::String(MASK.into());
                    } else {
                        self.json(v);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.json(v)),
            _ => {}
        }
    }

    fn remember(&mut self, v: &Value) {
        match v {
            Value::String(s) => self.add(s),
            Value::Number(n) => self.add(&n.to_string()),
            Value::Array(a) => a.iter().for_each(|v| self.remember(v)),
            Value::Object(o) => o.values().for_each(|v| self.remember(v)),
            _ => {}
        }
    }

    /// An `application/x-www-form-urlencoded` text (or a query) with the values
    /// of secret-looking names masked.
    pub(crate) fn form(&mut self, text: &str) -> String {
        let pairs: Vec<(String, String)> = url::form_urlencoded::parse(text.as_bytes())
            .map(|(k, v)| {
                if secret_name(&k) {
                    self.add(&v);
                    (k.into_owned(), MASK.to_string())
                } else {
                    (k.into_owned(), v.into_owned())
                }
            })
            .collect();
        url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs)
            .finish()
    }

    /// A URL with a password and secret-looking query values masked.
    pub(crate) fn url(&mut self, url: &url::Url) -> String {
        let mut u = url.clone();
        if let Some(p) = url.password() {
            self.add(p);
            let _ = u.set_password(Some(MASK));
        }
        if let Some(q) = url.query() {
            let masked = self.form(q);
            u.set_query(Some(&masked));
        }
        u.to_string()
    }

    /// `text` with every remembered secret replaced by the mask.
    pub(crate) fn scrub_str(&self, text: &str) -> String {
        let mut out = text.to_string();
        for s in &self.values {
            if out.contains(s.as_str()) {
                out = out.replace(s.as_str(), MASK);
            }
            // A secret as JSON or a URL would spell it.
            let escaped = serde_json::to_string(s).unwrap_or_default();
            let escaped = escaped.trim_matches('"');
            if escaped != s && out.contains(escaped) {
                out = out.replace(escaped, MASK);
            }
            let encoded: String = url::form_urlencoded::byte_serialize(s.as_bytes()).collect();
            if encoded != *s && out.contains(encoded.as_str()) {
                out = out.replace(encoded.as_str(), MASK);
            }
        }
        out
    }

    /// Every string of `value` scrubbed of the remembered secrets.
    pub(crate) fn scrub(&self, value: &mut Value) {
        match value {
            Value::String(s) => *s = self.scrub_str(s),
            Value::Array(a) => a.iter_mut().for_each(|v| self.scrub(v)),
            Value::Object(o) => o.values_mut().for_each(|v| self.scrub(v)),
            _ => {}
        }
    }
}

/// A body as evidence: JSON (masked) when it is JSON, else text (a form
/// masked), cut to [`EVIDENCE_LIMIT`](super::EVIDENCE_LIMIT) bytes; with its
/// size and whether it was cut.
pub(crate) fn body(secrets: &mut Secrets, bytes: &[u8], content_type: Option<&str>) -> Value {
    if bytes.is_empty() {
        return serde_json::json!({ "size": 0 });
    }
    let size = bytes.len();
    if let Ok(mut v) = serde_json::from_slice::<Value>(bytes) {
        secrets.json(&mut v);
        let text = serde_json::to_string(&v).expect("JSON serializes");
        if text.len() <= super::EVIDENCE_LIMIT {
            return serde_json::json!({ "size": size, "json": v });
        }
        let (kept, _) = super::bounded_text(text.as_bytes());
        return serde_json::json!({ "size": size, "text": kept, "truncated": true });
    }
    let form = content_type.is_some_and(|c| c.starts_with("application/x-www-form-urlencoded"));
    let (text, cut) = super::bounded_text(bytes);
    let text = if form { secrets.form(&text) } else { text };
    serde_json::json!({ "size": size, "text": text, "truncated": cut })
}
