//! Turning text, URLs and timestamps into index tokens and keys.

use super::MAX_TOKEN_CHARS;

/// The stopwords of [`is_stopword`], for its test.
#[cfg(test)]
pub(super) const STOPWORDS: &[&str] = &[
    "an", "and", "are", "as", "at", "be", "by", "can", "did", "do", "does", "for", "from", "had",
    "has", "have", "how", "is", "it", "its", "me", "my", "of", "or", "our", "so", "than", "that",
    "the", "then", "there", "these", "this", "those", "to", "was", "we", "were", "what", "when",
    "where", "which", "who", "why", "will", "with", "you", "your",
];

/// Words too common to tell steps apart. `in`, `on`, `up`, `out` are kept
/// (`sign-in`, `log-out`).
pub(super) fn is_stopword(w: &str) -> bool {
    matches!(
        w,
        "an" | "and"
            | "are"
            | "as"
            | "at"
            | "be"
            | "by"
            | "can"
            | "did"
            | "do"
            | "does"
            | "for"
            | "from"
            | "had"
            | "has"
            | "have"
            | "how"
            | "is"
            | "it"
            | "its"
            | "me"
            | "my"
            | "of"
            | "or"
            | "our"
            | "so"
            | "than"
            | "that"
            | "the"
            | "then"
            | "there"
            | "these"
            | "this"
            | "those"
            | "to"
            | "was"
            | "we"
            | "were"
            | "what"
            | "when"
            | "where"
            | "which"
            | "who"
            | "why"
            | "will"
            | "with"
            | "you"
            | "your"
    )
}

/// Lowercase tokens of `s`: split on anything not a letter or digit and at
/// camelCase boundaries (`submitButton` → `submit`, `button`; `HTMLParser` →
/// `html`, `parser`), without 1-character tokens, tokens over 40 characters
/// and stopwords; a plural `s`/`ies` is taken off (`buttons` → `button`).
pub fn tokenize(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    each_token(s, &mut |t| out.push(t.to_string()));
    out
}

/// Calls `f` with each token of `s` (see [`tokenize`]).
pub(super) fn each_token(s: &str, f: &mut impl FnMut(&str)) {
    let mut buf = String::new();
    for word in s.split(|c: char| !c.is_alphanumeric()) {
        if word.is_empty() {
            continue;
        }
        if word.is_ascii() {
            let b = word.as_bytes();
            let mut start = 0;
            for i in 1..b.len() {
                let (p, c) = (b[i - 1], b[i]);
                if (p.is_ascii_lowercase() && c.is_ascii_uppercase())
                    || (p.is_ascii_uppercase()
                        && c.is_ascii_uppercase()
                        && b.get(i + 1).is_some_and(u8::is_ascii_lowercase))
                {
                    emit(&word[start..i], &mut buf, f);
                    start = i;
                }
            }
            emit(&word[start..], &mut buf, f);
        } else {
            let chars: Vec<char> = word.chars().collect();
            let mut start = 0;
            let mut part = String::new();
            for i in 1..=chars.len() {
                let boundary = i == chars.len() || {
                    let (p, c) = (chars[i - 1], chars[i]);
                    (p.is_lowercase() && c.is_uppercase())
                        || (p.is_uppercase()
                            && c.is_uppercase()
                            && chars.get(i + 1).is_some_and(|n| n.is_lowercase()))
                };
                if boundary {
                    part.clear();
                    part.extend(&chars[start..i]);
                    emit(&part, &mut buf, f);
                    start = i;
                }
            }
        }
    }
}

pub(super) fn emit(part: &str, buf: &mut String, f: &mut impl FnMut(&str)) {
    let n = if part.is_ascii() {
        part.len()
    } else {
        part.chars().count()
    };
    if !(2..=MAX_TOKEN_CHARS).contains(&n) {
        return;
    }
    buf.clear();
    if part.is_ascii() {
        buf.push_str(part);
        buf.make_ascii_lowercase();
    } else {
        buf.extend(part.chars().flat_map(char::to_lowercase));
    }
    if is_stopword(buf) {
        return;
    }
    stem(buf);
    f(buf);
}

/// Takes a plural ending off: `entries` → `entry`, `buttons` → `button`;
/// leaves `status`, `class`, `analysis` and short words alone.
pub(super) fn stem(w: &mut String) {
    let n = w.len();
    if n > 4 && w.ends_with("ies") {
        w.truncate(n - 3);
        w.push('y');
    } else if n > 3
        && w.ends_with('s')
        && !(w.ends_with("ss") || w.ends_with("us") || w.ends_with("is"))
    {
        w.truncate(n - 1);
    }
}

/// Tokens of a URL: host and port, path segments, query; the scheme is dropped.
pub(super) fn url_tokens(url: &str, f: &mut impl FnMut(&str)) {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    each_token(rest, f);
}

/// The page a URL is on: its path, lowercase, without host, query, trailing
/// slash; segments that are ids (all digits, or 8+ hex digits and dashes with
/// a digit) become `:id`. A hash route (`#/cart`) is part of the path.
pub fn page_path(url: &str) -> String {
    let url = url.trim();
    let (had_scheme, rest) = match url.split_once("://") {
        Some((_, r)) => (true, r),
        None => (false, url),
    };
    let (main, hash) = match rest.split_once('#') {
        Some((m, h)) => (m, Some(h)),
        None => (rest, None),
    };
    let main = main.split('?').next().unwrap_or("");
    let path = if had_scheme {
        main.find('/').map_or("", |i| &main[i..])
    } else if main.starts_with('/') {
        main
    } else {
        // "localhost:3000/cart" or "shop.example.com/cart" (a host), or "cart".
        let first = main.split('/').next().unwrap_or("");
        if first.contains('.') || first.contains(':') {
            main.find('/').map_or("", |i| &main[i..])
        } else {
            main
        }
    };
    let mut segs: Vec<String> = path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(seg_norm)
        .collect();
    if let Some(h) = hash
        && let Some(route) = h.strip_prefix('/').or_else(|| h.strip_prefix("!/"))
    {
        segs.push("#".into());
        segs.extend(
            route
                .split('?')
                .next()
                .unwrap_or("")
                .split('/')
                .filter(|s| !s.is_empty())
                .map(seg_norm),
        );
    }
    format!("/{}", segs.join("/"))
}

pub(super) fn seg_norm(s: &str) -> String {
    let digits = s.bytes().all(|b| b.is_ascii_digit());
    let hexid = s.len() >= 8
        && s.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
        && s.bytes().any(|b| b.is_ascii_digit());
    if digits || hexid {
        ":id".into()
    } else {
        s.to_lowercase()
    }
}

/// Sortable number from an ISO timestamp (its first 17 digits, padded), for
/// "newer first"; 0 when there are not enough digits.
pub(super) fn ts_key(ts: &str) -> u64 {
    let mut n: u64 = 0;
    let mut count = 0;
    for b in ts.bytes() {
        if b.is_ascii_digit() {
            n = n * 10 + u64::from(b - b'0');
            count += 1;
            if count == 17 {
                break;
            }
        }
    }
    if count < 8 {
        return 0;
    }
    n * 10u64.pow(17 - count)
}
