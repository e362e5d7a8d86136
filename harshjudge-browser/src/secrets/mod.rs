//! Secrets a suite declares, masked in everything harshjudge writes and prints.
//!
//! A suite names the environment variables that hold its secrets, once:
//! `main!(secrets = ["APP_TOKEN"])` or `HARSHJUDGE_SECRETS=APP_TOKEN,DB_PASSWORD`
//! ([`declare`]); a secret made while the suite runs (a token the app under test
//! printed) is added by value with [`add`]. Their values never reach disk or
//! the console: each is replaced by `[secret:NAME]`.
//!
//! Masking happens where bytes leave the process, not where they are made:
//! - files: the store's writes ([`mask_file`], called by `store/fsio.rs` for
//!   every atomic write, by the evidence writer before a file's size and
//!   content hash are taken, and by the few writers outside the store);
//! - the console: once a secret is known, the process's stdout and stderr
//!   (file descriptors 1 and 2) go through a pipe whose reader masks them
//!   ([`stdio`]): libtest's lines, harshjudge's messages, panics, and the
//!   output of the children that inherit them.
//!
//! Each value is also looked for as JSON, HTML and URLs escape it. Values
//! shorter than [`MIN_LEN`] are refused: they would mask those characters
//! everywhere. Images, videos and archives (screenshots) are written as they
//! are: their bytes cannot be masked without breaking them.

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

use aho_corasick::{AhoCorasick, MatchKind};

pub mod stdio;

/// The shortest secret value masked, in bytes.
pub const MIN_LEN: usize = 4;

/// A secret that cannot be declared.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SecretError {
    /// Its value is shorter than [`MIN_LEN`].
    #[error(
        "secret `{name}` is {len} byte(s) long; harshjudge masks secrets of at least {MIN_LEN} \
         (a shorter value would be masked wherever those characters appear): give it a longer \
         value, or leave `{name}` out of main!(secrets = …) and HARSHJUDGE_SECRETS"
    )]
    TooShort {
        /// The secret's name.
        name: String,
        /// Its length in bytes.
        len: usize,
    },
    /// Its name is not an environment variable's name.
    #[error(
        "`{name}` is not a secret's name: main!(secrets = [\"APP_TOKEN\"]) and \
         HARSHJUDGE_SECRETS=APP_TOKEN,DB_PASSWORD name the environment variables that hold the \
         secrets (letters, digits and `_`, not starting with a digit), never the secrets themselves"
    )]
    BadName {
        /// The name as given.
        name: String,
    },
}

/// One secret: its name (in the marker) and value.
struct Secret {
    name: String,
    value: Vec<u8>,
}

/// Every secret known, and the automaton that finds their forms.
struct Set {
    secrets: Vec<Secret>,
    finder: AhoCorasick,
    /// The marker of each pattern of `finder`.
    markers: Vec<Vec<u8>>,
    /// The longest pattern, in bytes.
    longest: usize,
}

/// Whether any secret is known (checked before anything else: a suite without
/// secrets pays one atomic load per write).
static ANY: AtomicBool = AtomicBool::new(false);
static SET: RwLock<Option<Arc<Set>>> = RwLock::new(None);

/// Declares the secret held by the environment variable `name`, whose value
/// is `value` (`None` or empty: it holds none, nothing to mask). The harness
/// declares those `main!(secrets = …)` and `HARSHJUDGE_SECRETS` name
/// ([`crate::settings::secrets`]). Once a secret is known, the console is
/// masked too ([`stdio`]).
pub fn declare(name: &str, value: Option<&std::ffi::OsStr>) -> Result<(), SecretError> {
    check_name(name)?;
    match value.filter(|v| !v.is_empty()) {
        Some(v) => add_bytes(name, v.as_encoded_bytes()),
        None => Ok(()),
    }
}

/// Adds a secret by value, under `name` (its marker says `[secret:NAME]`):
/// for a secret made while the suite runs, such as a token the app under test
/// printed. Masked in everything written or printed from then on (not in
/// what was written before). Needs [`MIN_LEN`] bytes at least.
///
/// ```no_run
/// # fn f(token: &str) -> Result<(), harshjudge_browser::secrets::SecretError> {
/// harshjudge_browser::secrets::add("JUPYTER_TOKEN", token)?;
/// # Ok(()) }
/// ```
pub fn add(name: &str, value: &str) -> Result<(), SecretError> {
    check_name(name)?;
    add_bytes(name, value.as_bytes())
}

fn check_name(name: &str) -> Result<(), SecretError> {
    let ok = name
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(SecretError::BadName { name: name.into() })
    }
}

fn add_bytes(name: &str, value: &[u8]) -> Result<(), SecretError> {
    if value.len() < MIN_LEN {
        return Err(SecretError::TooShort {
            name: name.into(),
            len: value.len(),
        });
    }
    {
        let mut set = SET.write().unwrap_or_else(|e| e.into_inner());
        let mut secrets: Vec<Secret> = match set.as_deref() {
            Some(s) => (s.secrets.iter())
                .map(|s| Secret {
                    name: s.name.clone(),
                    value: s.value.clone(),
                })
                .collect(),
            None => Vec::new(),
        };
        if secrets.iter().any(|s| s.name == name && s.value == value) {
            return Ok(());
        }
        secrets.push(Secret {
            name: name.into(),
            value: value.to_vec(),
        });
        *set = Some(Arc::new(build(secrets)));
        ANY.store(true, Ordering::SeqCst);
    }
    stdio::guard();
    Ok(())
}

/// The set's automaton over every form of every value.
fn build(secrets: Vec<Secret>) -> Set {
    let mut patterns: Vec<Vec<u8>> = Vec::new();
    let mut markers = Vec::new();
    for s in &secrets {
        for form in forms(&s.value) {
            if !patterns.contains(&form) {
                patterns.push(form);
                markers.push(format!("[secret:{}]", s.name).into_bytes());
            }
        }
    }
    let finder = AhoCorasick::builder()
        .match_kind(MatchKind::LeftmostLongest)
        .build(&patterns)
        .expect("a few short literal patterns build");
    let longest = patterns.iter().map(Vec::len).max().unwrap_or(0);
    Set {
        secrets,
        finder,
        markers,
        longest,
    }
}

/// A value as it is, and as JSON, HTML and URLs (path, query, form) write it.
fn forms(value: &[u8]) -> Vec<Vec<u8>> {
    let mut out = vec![value.to_vec()];
    if let Ok(text) = std::str::from_utf8(value) {
        let json = serde_json::to_string(text).expect("a string serializes");
        out.push(json.as_bytes()[1..json.len() - 1].to_vec());
        let html = text
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;");
        out.push(html.replace('\'', "&#39;").into_bytes());
        out.push(html.replace('\'', "&#x27;").into_bytes());
        const URL: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
            .remove(b'-')
            .remove(b'.')
            .remove(b'_')
            .remove(b'~');
        let url = percent_encoding::utf8_percent_encode(text, URL).to_string();
        out.push(url.replace("%20", "+").into_bytes());
        out.push(url.into_bytes());
    }
    let mut unique = Vec::new();
    for f in out {
        if !unique.contains(&f) {
            unique.push(f);
        }
    }
    unique
}

fn current() -> Option<Arc<Set>> {
    if !ANY.load(Ordering::Relaxed) {
        return None;
    }
    SET.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Whether any secret is declared.
pub fn any() -> bool {
    ANY.load(Ordering::Relaxed)
}

/// `text` with every secret replaced by its marker `[secret:NAME]`.
pub fn mask(text: &str) -> Cow<'_, str> {
    match mask_bytes(text.as_bytes()) {
        Cow::Borrowed(_) => Cow::Borrowed(text),
        // A secret found in UTF-8 text starts and ends on character boundaries.
        Cow::Owned(b) => Cow::Owned(
            String::from_utf8(b)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        ),
    }
}

/// `bytes` with every secret replaced by its marker.
pub fn mask_bytes(bytes: &[u8]) -> Cow<'_, [u8]> {
    match current() {
        Some(set) => set.mask(bytes),
        None => Cow::Borrowed(bytes),
    }
}

/// The content of a file about to be written, masked ([`mask_bytes`]) unless
/// it is an image, a video or an archive (a screenshot, a trace, a download),
/// which masking would break: those are written as they are.
pub fn mask_file(bytes: &[u8]) -> Cow<'_, [u8]> {
    if !any() || binary(bytes) {
        return Cow::Borrowed(bytes);
    }
    mask_bytes(bytes)
}

/// Whether `bytes` start as an image, a video or an archive does.
fn binary(bytes: &[u8]) -> bool {
    const SIGNATURES: &[&[u8]] = &[
        b"\x89PNG\r\n\x1a\n",
        b"\xff\xd8\xff",
        b"GIF87a",
        b"GIF89a",
        b"PK\x03\x04",
        b"\x1f\x8b",
        b"\x1a\x45\xdf\xa3",
    ];
    SIGNATURES.iter().any(|s| bytes.starts_with(s))
        || (bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP"))
        || bytes.get(4..8) == Some(b"ftyp")
}

impl Set {
    fn mask<'a>(&self, bytes: &'a [u8]) -> Cow<'a, [u8]> {
        let mut found = self.finder.find_iter(bytes).peekable();
        if found.peek().is_none() {
            return Cow::Borrowed(bytes);
        }
        let mut out = Vec::with_capacity(bytes.len());
        let mut at = 0;
        for m in found {
            out.extend_from_slice(&bytes[at..m.start()]);
            out.extend_from_slice(&self.markers[m.pattern().as_usize()]);
            at = m.end();
        }
        out.extend_from_slice(&bytes[at..]);
        Cow::Owned(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The set is process-wide: every test of this module adds to it, with
    /// names of its own.
    #[test]
    fn a_secret_is_masked_in_every_form_and_short_or_misnamed_ones_are_refused() {
        add("UNIT_TOKEN", "s3cr&t <tok> \"x\" é/+").unwrap();
        let v = "s3cr&t <tok> \"x\" é/+";
        let json = serde_json::to_string(v).unwrap();
        let html = "s3cr&amp;t &lt;tok&gt; &quot;x&quot; é/+";
        let url: String = url::form_urlencoded::byte_serialize(v.as_bytes()).collect();
        for text in [v.to_string(), json, html.into(), url] {
            let masked = mask(&text);
            assert!(masked.contains("[secret:UNIT_TOKEN]"), "{text} -> {masked}");
            assert!(!masked.contains("tok"), "{text} -> {masked}");
        }
        assert_eq!(mask("nothing here"), "nothing here");
        let png = b"\x89PNG\r\n\x1a\n s3cr&t <tok> \"x\" \xc3\xa9/+".to_vec();
        assert_eq!(mask_file(&png).as_ref(), png.as_slice());
        let e = add("UNIT_SHORT", "abc").unwrap_err().to_string();
        assert!(e.contains("`UNIT_SHORT` is 3 byte(s) long"), "{e}");
        assert!(e.contains("at least 4"), "{e}");
        let e = add("not a name", "abcdef").unwrap_err().to_string();
        assert!(e.contains("`not a name` is not a secret's name"), "{e}");
    }

    #[test]
    fn overlapping_secrets_are_masked_whole() {
        add("UNIT_LONG", "prefix-unit-secret-long").unwrap();
        add("UNIT_PART", "unit-secret").unwrap();
        assert_eq!(
            mask("a prefix-unit-secret-long b unit-secret c"),
            "a [secret:UNIT_LONG] b [secret:UNIT_PART] c"
        );
    }
}
