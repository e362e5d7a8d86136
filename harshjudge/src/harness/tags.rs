//! Tag expressions, cucumber's grammar: tags joined by `and`, `or`, `not` and
//! parentheses (`smoke and not (slow or flaky)`); the `@` before a tag is
//! optional. `not` binds tighter than `and`, `and` tighter than `or`.
//! Given by `--tags EXPR` (else `HARSHJUDGE_TAGS`); `--tag NAME` (repeatable)
//! selects the scenarios with any of the names.

use std::fmt;

/// A parsed tag expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TagExpr {
    /// A tag, without its `@`.
    Tag(String),
    /// `not e`.
    Not(Box<TagExpr>),
    /// `a and b`.
    And(Box<TagExpr>, Box<TagExpr>),
    /// `a or b`.
    Or(Box<TagExpr>, Box<TagExpr>),
}

/// A tag expression that does not parse: the expression, where (a 1-based
/// character position) and what was wrong there.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the tag expression {expression:?} is invalid at character {position}: {problem}\n  {expression}\n  {caret}^\n  (tags joined by `and`, `or`, `not` and parentheses, e.g. \"smoke and not (slow or flaky)\"; the `@` is optional)",
    caret = " ".repeat(position.saturating_sub(1))
)]
pub struct TagExprError {
    /// The expression as given.
    pub expression: String,
    /// The 1-based character where the problem is (one past the end when the
    /// expression ended too early).
    pub position: usize,
    /// What was wrong there.
    pub problem: String,
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Open,
    Close,
    And,
    Or,
    Not,
    Tag(String),
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Open => f.write_str("`(`"),
            Token::Close => f.write_str("`)`"),
            Token::And => f.write_str("`and`"),
            Token::Or => f.write_str("`or`"),
            Token::Not => f.write_str("`not`"),
            Token::Tag(t) => write!(f, "the tag `{t}`"),
        }
    }
}

/// The tokens of `text`, each with its 1-based character position.
fn tokenize(text: &str) -> Result<Vec<(Token, usize)>, TagExprError> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '(' || c == ')' {
            out.push((if c == '(' { Token::Open } else { Token::Close }, i + 1));
            i += 1;
            continue;
        }
        let start = i;
        let mut word = String::new();
        while i < chars.len() {
            let c = chars[i];
            if c == '\\' && i + 1 < chars.len() {
                // `\(`, `\)`, `\ `, `\\`: the character itself, part of the tag.
                word.push(chars[i + 1]);
                i += 2;
                continue;
            }
            if c.is_whitespace() || c == '(' || c == ')' {
                break;
            }
            word.push(c);
            i += 1;
        }
        let token = match word.as_str() {
            "and" => Token::And,
            "or" => Token::Or,
            "not" => Token::Not,
            _ => {
                let tag = word.strip_prefix('@').unwrap_or(&word);
                if tag.is_empty() {
                    return Err(TagExprError {
                        expression: text.to_string(),
                        position: start + 1,
                        problem: "`@` must be followed by a tag name".into(),
                    });
                }
                Token::Tag(tag.to_string())
            }
        };
        out.push((token, start + 1));
    }
    Ok(out)
}

struct Parser<'a> {
    text: &'a str,
    tokens: Vec<(Token, usize)>,
    next: usize,
}

impl Parser<'_> {
    fn error(&self, position: usize, problem: String) -> TagExprError {
        TagExprError {
            expression: self.text.to_string(),
            position,
            problem,
        }
    }

    fn end(&self) -> usize {
        self.text.chars().count() + 1
    }

    fn peek(&self) -> Option<&(Token, usize)> {
        self.tokens.get(self.next)
    }

    fn or(&mut self) -> Result<TagExpr, TagExprError> {
        let mut left = self.and(None)?;
        while let Some((Token::Or, _)) = self.peek() {
            self.next += 1;
            let right = self.and(Some("or"))?;
            left = TagExpr::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    /// Terms joined by `and`; `after` is the operator before the first, if any.
    fn and(&mut self, after: Option<&'static str>) -> Result<TagExpr, TagExprError> {
        let mut left = self.unary(after)?;
        while let Some((Token::And, _)) = self.peek() {
            self.next += 1;
            let right = self.unary(Some("and"))?;
            left = TagExpr::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    /// A tag, `not …` or `( … )`; `after` is the operator before it, if any.
    fn unary(&mut self, after: Option<&'static str>) -> Result<TagExpr, TagExprError> {
        let wanted = || match after {
            Some(op) => format!("expected a tag, `not` or `(` after `{op}`"),
            None => "expected a tag, `not` or `(`".to_string(),
        };
        let Some((token, at)) = self.peek().cloned() else {
            let problem = if self.tokens.is_empty() {
                "the expression is empty: expected a tag, e.g. \"smoke\"".to_string()
            } else {
                format!("{}, found the end", wanted())
            };
            return Err(self.error(self.end(), problem));
        };
        self.next += 1;
        match token {
            Token::Tag(tag) => Ok(TagExpr::Tag(tag)),
            Token::Not => Ok(TagExpr::Not(Box::new(self.unary(Some("not"))?))),
            Token::Open => {
                let inner = self.or()?;
                match self.peek() {
                    Some((Token::Close, _)) => {
                        self.next += 1;
                        Ok(inner)
                    }
                    Some((other, p)) => {
                        Err(self.error(*p, format!("expected `and`, `or` or `)`, found {other}")))
                    }
                    None => Err(self.error(
                        self.end(),
                        format!("the `(` at character {at} is never closed: add a `)`"),
                    )),
                }
            }
            other => Err(self.error(at, format!("{}, found {other}", wanted()))),
        }
    }
}

impl TagExpr {
    /// Parses `text` (cucumber's tag expressions; the `@` is optional).
    pub fn parse(text: &str) -> Result<TagExpr, TagExprError> {
        let tokens = tokenize(text)?;
        let mut p = Parser {
            text,
            tokens,
            next: 0,
        };
        let expr = p.or()?;
        if let Some((token, at)) = p.peek().cloned() {
            let problem = match token {
                Token::Close => "this `)` has no `(` before it".to_string(),
                other => format!("expected `and` or `or` before {other}"),
            };
            return Err(p.error(at, problem));
        }
        Ok(expr)
    }

    /// Whether a scenario with `tags` satisfies the expression (a tag's `@`
    /// is ignored on both sides).
    pub fn matches<S: AsRef<str>>(&self, tags: &[S]) -> bool {
        match self {
            TagExpr::Tag(t) => tags
                .iter()
                .any(|s| s.as_ref().strip_prefix('@').unwrap_or(s.as_ref()) == t),
            TagExpr::Not(e) => !e.matches(tags),
            TagExpr::And(a, b) => a.matches(tags) && b.matches(tags),
            TagExpr::Or(a, b) => a.matches(tags) || b.matches(tags),
        }
    }
}

impl fmt::Display for TagExpr {
    /// Fully parenthesised, so that the grouping shows.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TagExpr::Tag(t) => f.write_str(t),
            TagExpr::Not(e) => write!(f, "not {e}"),
            TagExpr::And(a, b) => write!(f, "({a} and {b})"),
            TagExpr::Or(a, b) => write!(f, "({a} or {b})"),
        }
    }
}

/// The tag selection of an invocation: `--tag` names (any of them) and a
/// `--tags` expression (else `HARSHJUDGE_TAGS`); a scenario is selected when
/// it satisfies both (each when given).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TagSelection {
    /// `--tag NAME`, repeatable: a scenario with any of them.
    pub any_of: Vec<String>,
    /// `--tags EXPR` (else `HARSHJUDGE_TAGS`), with the text as given.
    pub expression: Option<(String, TagExpr)>,
}

impl TagSelection {
    /// Whether no tag selection was given (every scenario is selected).
    pub fn is_empty(&self) -> bool {
        self.any_of.is_empty() && self.expression.is_none()
    }

    /// Whether a scenario with `tags` is selected.
    pub fn selects<S: AsRef<str>>(&self, tags: &[S]) -> bool {
        let any = self.any_of.is_empty()
            || self.any_of.iter().any(|t| {
                let t = t.strip_prefix('@').unwrap_or(t);
                tags.iter()
                    .any(|s| s.as_ref().strip_prefix('@').unwrap_or(s.as_ref()) == t)
            });
        any && self
            .expression
            .as_ref()
            .is_none_or(|(_, e)| e.matches(tags))
    }
}

impl fmt::Display for TagSelection {
    /// As the user gave it: `--tag smoke --tag api --tags "not slow"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = self.any_of.iter().map(|t| format!("--tag {t}")).collect();
        if let Some((text, _)) = &self.expression {
            parts.push(format!("--tags {text:?}"));
        }
        f.write_str(&parts.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(expr: &str, tags: &[&str]) -> bool {
        TagExpr::parse(expr).unwrap().matches(tags)
    }

    #[test]
    fn precedence_and_grouping() {
        let e = TagExpr::parse("smoke and not (slow or flaky)").unwrap();
        assert_eq!(e.to_string(), "(smoke and not (slow or flaky))");
        assert_eq!(
            TagExpr::parse("a or b and c").unwrap().to_string(),
            "(a or (b and c))"
        );
        assert_eq!(
            TagExpr::parse("not a and b").unwrap().to_string(),
            "(not a and b)"
        );
        assert_eq!(
            TagExpr::parse("a and b and c or d").unwrap().to_string(),
            "(((a and b) and c) or d)"
        );
        assert_eq!(
            TagExpr::parse("not not @a").unwrap().to_string(),
            "not not a"
        );
    }

    #[test]
    fn evaluation() {
        let e = "smoke and not (slow or flaky)";
        assert!(eval(e, &["smoke"]));
        assert!(eval(e, &["smoke", "api"]));
        assert!(!eval(e, &["smoke", "slow"]));
        assert!(!eval(e, &["smoke", "flaky"]));
        assert!(!eval(e, &["api"]));
        assert!(!eval(e, &[]));
        // `@` is optional on both sides.
        assert!(eval("@smoke", &["smoke"]));
        assert!(eval("smoke", &["@smoke"]));
        assert!(eval("not smoke", &[]));
        assert!(eval("a or b and c", &["a"]));
        assert!(!eval("(a or b) and c", &["a"]));
        // A tag with an escaped parenthesis.
        assert!(eval("issue\\(1\\)", &["issue(1)"]));
    }

    fn error(expr: &str) -> TagExprError {
        TagExpr::parse(expr).unwrap_err()
    }

    #[test]
    fn errors_name_the_position_and_the_problem() {
        let e = error("smoke and");
        assert_eq!(e.position, 10);
        assert_eq!(
            e.problem,
            "expected a tag, `not` or `(` after `and`, found the end"
        );
        let e = error("smoke slow");
        assert_eq!(
            (e.position, e.problem.as_str()),
            (7, "expected `and` or `or` before the tag `slow`")
        );
        let e = error("(smoke or slow");
        assert_eq!(e.position, 15);
        assert!(
            e.problem.contains("`(` at character 1 is never closed"),
            "{e}"
        );
        let e = error("smoke)");
        assert_eq!(
            (e.position, e.problem.as_str()),
            (6, "this `)` has no `(` before it")
        );
        let e = error("and smoke");
        assert_eq!(
            (e.position, e.problem.as_str()),
            (1, "expected a tag, `not` or `(`, found `and`")
        );
        let e = error("smoke or or slow");
        assert_eq!(
            (e.position, e.problem.as_str()),
            (10, "expected a tag, `not` or `(` after `or`, found `or`")
        );
        let e = error("not");
        assert_eq!(e.position, 4);
        let e = error("  ");
        assert!(e.problem.starts_with("the expression is empty"), "{e}");
        let e = error("a and @");
        assert_eq!(
            (e.position, e.problem.as_str()),
            (7, "`@` must be followed by a tag name")
        );
        let e = error("(a b)");
        assert_eq!(
            (e.position, e.problem.as_str()),
            (4, "expected `and`, `or` or `)`, found the tag `b`")
        );
        // The message shows the expression and a caret under the position.
        let text = error("smoke and").to_string();
        assert!(
            text.starts_with(
                "the tag expression \"smoke and\" is invalid at character 10: expected a tag"
            ),
            "{text}"
        );
        assert!(text.contains("\n  smoke and\n           ^\n"), "{text}");
    }

    #[test]
    fn selections() {
        let mut s = TagSelection::default();
        assert!(s.is_empty() && s.selects::<&str>(&[]));
        s.any_of = vec!["smoke".into(), "@api".into()];
        assert!(s.selects(&["api"]) && s.selects(&["smoke", "x"]) && !s.selects(&["x"]));
        s.expression = Some(("not slow".into(), TagExpr::parse("not slow").unwrap()));
        assert!(s.selects(&["smoke"]) && !s.selects(&["smoke", "slow"]));
        assert_eq!(s.to_string(), "--tag smoke --tag @api --tags \"not slow\"");
    }
}
