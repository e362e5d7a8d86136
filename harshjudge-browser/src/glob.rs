//! URL patterns as Playwright takes them: a glob (`**/api/*`, `*.{png,jpg}`)
//! or a [`Regex`]. A glob not starting with `*` and not absolute is joined to
//! the page's base URL first, as Playwright joins it to `baseURL`.

use regex::Regex;

/// A URL pattern: a Playwright glob or a regular expression.
///
/// In a glob `*` matches within a path segment (no `/`), `**` across segments,
/// `{a,b}` either alternative, `\` escapes the next character; every other
/// character (`?` too) matches itself. A glob must match the whole URL.
#[derive(Clone, Debug)]
pub enum UrlPattern {
    /// A Playwright glob.
    Glob(String),
    /// A regular expression, matched anywhere in the URL.
    Regex(Regex),
}

impl UrlPattern {
    /// The pattern as it is written.
    pub fn as_str(&self) -> &str {
        match self {
            UrlPattern::Glob(g) => g,
            UrlPattern::Regex(r) => r.as_str(),
        }
    }

    /// Whether `url` matches this pattern, a glob resolved against `base`
    /// (the page's base URL) as [`Page::route`](crate::Page::route) resolves it.
    pub fn matches(&self, base: &str, url: &str) -> bool {
        self.matcher(base).is_match(url)
    }

    /// Whether two patterns are written the same (`unroute`).
    pub(crate) fn same(&self, other: &UrlPattern) -> bool {
        matches!(
            (self, other),
            (UrlPattern::Glob(_), UrlPattern::Glob(_))
                | (UrlPattern::Regex(_), UrlPattern::Regex(_))
        ) && self.as_str() == other.as_str()
    }

    /// The pattern compiled, globs resolved against `base` (the page's base URL).
    pub(crate) fn matcher(&self, base: &str) -> Matcher {
        match self {
            UrlPattern::Regex(r) => Matcher(r.clone()),
            UrlPattern::Glob(g) => {
                let resolved = resolve(base, g);
                Matcher(Regex::new(&glob_to_regex(&resolved)).expect("a glob always compiles"))
            }
        }
    }
}

impl UrlPattern {
    /// The literal URLs that include at least those this pattern matches,
    /// when they can be written (a glob whose path is literal: `**/api/items`,
    /// `/api/items`, `http://host:1/x`), for a backend's intercept; `None`:
    /// every request. Requests intercepted beyond the pattern are continued
    /// unchanged.
    pub(crate) fn literal(&self, base: &str) -> Option<Literal> {
        let UrlPattern::Glob(g) = self else {
            return None;
        };
        let special = |s: &str| s.contains(['*', '{', '}', '\\', '?', ','].as_slice());
        let resolved = resolve(base, g);
        if let Some(path) = resolved.strip_prefix("**") {
            return (path.starts_with('/') && !special(path))
                .then(|| Literal::Path(path.to_string()));
        }
        (!special(&resolved) && url::Url::parse(&resolved).is_ok())
            .then_some(Literal::Url(resolved))
    }
}

/// What [`UrlPattern::literal`] says of a pattern's URLs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Literal {
    /// Any URL whose path is this one.
    Path(String),
    /// Exactly this URL.
    Url(String),
}

impl std::fmt::Display for UrlPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UrlPattern::Glob(g) => write!(f, "{g:?}"),
            UrlPattern::Regex(r) => write!(f, "/{}/", r.as_str()),
        }
    }
}

impl From<&str> for UrlPattern {
    fn from(g: &str) -> Self {
        UrlPattern::Glob(g.to_string())
    }
}

impl From<String> for UrlPattern {
    fn from(g: String) -> Self {
        UrlPattern::Glob(g)
    }
}

impl From<&String> for UrlPattern {
    fn from(g: &String) -> Self {
        UrlPattern::Glob(g.clone())
    }
}

impl From<Regex> for UrlPattern {
    fn from(r: Regex) -> Self {
        UrlPattern::Regex(r)
    }
}

impl From<&Regex> for UrlPattern {
    fn from(r: &Regex) -> Self {
        UrlPattern::Regex(r.clone())
    }
}

/// A compiled pattern.
#[derive(Clone, Debug)]
pub(crate) struct Matcher(Regex);

impl Matcher {
    /// Whether `url` matches.
    pub(crate) fn is_match(&self, url: &str) -> bool {
        self.0.is_match(url)
    }
}

/// A relative glob joined to `base`: `/api/*` → `http://host:port/api/*`.
fn resolve(base: &str, glob: &str) -> String {
    let absolute = glob.contains("://")
        || ["about:", "data:", "chrome:", "file:", "blob:"]
            .iter()
            .any(|p| glob.starts_with(p));
    if glob.starts_with('*') || absolute || base.is_empty() {
        return glob.to_string();
    }
    let base = base.trim_end_matches('/');
    match glob.strip_prefix('/') {
        Some(rest) => format!("{base}/{rest}"),
        None => format!("{base}/{glob}"),
    }
}

/// Playwright's `globToRegexPattern`: the regular expression of a glob.
pub(crate) fn glob_to_regex(glob: &str) -> String {
    const ESCAPED: &str = "$^+.*()|\\?{}[]";
    let chars: Vec<char> = glob.chars().collect();
    let mut out = String::from("^");
    let mut in_group = false;
    let mut i = 0;
    let push_escaped = |out: &mut String, c: char| {
        if ESCAPED.contains(c) {
            out.push('\\');
        }
        out.push(c);
    };
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && i + 1 < chars.len() {
            i += 1;
            push_escaped(&mut out, chars[i]);
            i += 1;
            continue;
        }
        if c == '*' {
            let before = if i == 0 { None } else { Some(chars[i - 1]) };
            let mut stars = 1;
            while chars.get(i + 1) == Some(&'*') {
                stars += 1;
                i += 1;
            }
            let after = chars.get(i + 1).copied();
            let deep = stars > 1
                && matches!(before, None | Some('/'))
                && matches!(after, None | Some('/'));
            if deep {
                out.push_str("((?:[^/]*(?:/|$))*)");
                i += 1;
            } else {
                out.push_str("([^/]*)");
            }
            i += 1;
            continue;
        }
        match c {
            '{' => {
                in_group = true;
                out.push('(');
            }
            '}' => {
                in_group = false;
                out.push(')');
            }
            ',' if in_group => out.push('|'),
            ',' => out.push_str("\\,"),
            c => push_escaped(&mut out, c),
        }
        i += 1;
    }
    out.push('$');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(glob: &str, url: &str) -> bool {
        Regex::new(&glob_to_regex(glob)).unwrap().is_match(url)
    }

    /// Playwright's "should work with glob" (tests/page/interception.spec.ts),
    /// with today's rules: `?` and `[` match themselves.
    #[test]
    fn playwrights_glob_cases() {
        assert!(m("**/*.js", "https://localhost:8080/foo.js"));
        assert!(!m("**/*.css", "https://localhost:8080/foo.js"));
        assert!(!m("*.js", "https://localhost:8080/foo.js"));
        assert!(m("https://**/*.js", "https://localhost:8080/foo.js"));
        assert!(m(
            "http://localhost:8080/simple/path.js",
            "http://localhost:8080/simple/path.js"
        ));
        assert!(m("**/{a,b}.js", "https://localhost:8080/a.js"));
        assert!(m("**/{a,b}.js", "https://localhost:8080/b.js"));
        assert!(!m("**/{a,b}.js", "https://localhost:8080/c.js"));
        assert!(m("**/*.{png,jpg,jpeg}", "https://localhost:8080/c.jpg"));
        assert!(m("**/*.{png,jpg,jpeg}", "https://localhost:8080/c.jpeg"));
        assert!(m("**/*.{png,jpg,jpeg}", "https://localhost:8080/c.png"));
        assert!(!m("**/*.{png,jpg,jpeg}", "https://localhost:8080/c.css"));
        assert!(m("foo*", "foo.js"));
        assert!(!m("foo*", "foo/bar.js"));
        assert!(!m(
            "http://localhost:3000/signin-oidc*",
            "http://localhost:3000/signin-oidc/foo"
        ));
        assert!(m(
            "http://localhost:3000/signin-oidc*",
            "http://localhost:3000/signin-oidcnice"
        ));
        assert!(m("**/api/search?q=*", "http://a/api/search?q=x"));
        assert!(!m("**/api/search?q=*", "http://a/api/searchXq=x"));
        assert!(m(
            "**/three-columns/settings.html\\?**id=*",
            "http://mydomain:8080/blah/blah/three-columns/settings.html?id=settings-e3c58efe&blah"
        ));
        assert_eq!(glob_to_regex("\\?"), "^\\?$");
        assert_eq!(glob_to_regex("\\"), "^\\\\$");
        assert_eq!(glob_to_regex("\\\\"), "^\\\\$");
        assert_eq!(glob_to_regex("\\["), "^\\[$");
        assert_eq!(glob_to_regex("[a-z]"), "^\\[a-z\\]$");
        assert_eq!(
            glob_to_regex("$^+.\\*()|\\?\\{\\}\\[\\]"),
            "^\\$\\^\\+\\.\\*\\(\\)\\|\\?\\{\\}\\[\\]$"
        );
    }

    #[test]
    fn a_relative_glob_is_joined_to_the_base_url_and_a_regex_matches_anywhere() {
        let p = UrlPattern::from("/api/items");
        assert!(
            p.matcher("http://127.0.0.1:9/")
                .is_match("http://127.0.0.1:9/api/items")
        );
        assert!(
            !p.matcher("http://127.0.0.1:9")
                .is_match("http://127.0.0.1:8/api/items")
        );
        assert!(
            UrlPattern::from("**/items")
                .matcher("http://x")
                .is_match("http://y/a/items")
        );
        let r = UrlPattern::from(Regex::new("items$").unwrap());
        assert!(r.matcher("").is_match("http://y/a/items"));
        assert!(UrlPattern::from("**/a").same(&UrlPattern::from("**/a")));
        assert!(!UrlPattern::from("a").same(&UrlPattern::from(Regex::new("a").unwrap())));
        let b = "http://127.0.0.1:9";
        assert_eq!(
            UrlPattern::from("**/api/items").literal(b),
            Some(Literal::Path("/api/items".into()))
        );
        assert_eq!(
            UrlPattern::from("/api/items").literal(b),
            Some(Literal::Url("http://127.0.0.1:9/api/items".into()))
        );
        assert_eq!(UrlPattern::from("**/api/*").literal(b), None);
        assert_eq!(r.literal(b), None);
    }
}
