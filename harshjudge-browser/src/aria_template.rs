//! The template of `to_match_aria_snapshot`, parsed on the Rust side into a typed
//! tree that the page matches (`hjAriaTreeMatches` in `injected/aria.js`).
//!
//! The syntax is Playwright's: a YAML sequence whose items are
//! `role "name" [attr] [attr=value]` (a name may be a `/regex/`), optionally
//! mapped to a text (`- listitem: "Task 1"`) or to a sequence of children;
//! `- text: …` matches text, `- /url: …` (any `/prop`) a property, and
//! `- /children: contain | equal | deep-equal` how the siblings must match.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Serialize, Serializer};

/// A node of a template.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub(crate) enum AriaTemplateNode {
    /// An element with a role.
    Role(AriaTemplateRole),
    /// A piece of text.
    Text {
        /// The text, or a `/regex/`.
        text: AriaTextValue,
    },
}

/// A text as written and white-space normalised (a value that looks like a
/// `/regex/` is tried as both, as Playwright does).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct AriaTextValue {
    raw: String,
    normalized: String,
}

impl AriaTextValue {
    fn new(raw: &str) -> Self {
        AriaTextValue {
            raw: raw.to_string(),
            normalized: normalize_white_space(raw),
        }
    }
}

/// How a template node's name must match.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum AriaName {
    /// Exactly (white space normalised).
    Exact(String),
    /// A JavaScript regular expression (checked in the page).
    Regex(String),
}

/// `true`, `false` or `mixed` (checked, pressed).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Tristate {
    True,
    False,
    Mixed,
}

/// The value of `[invalid=…]`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Invalid {
    True,
    False,
    Grammar,
    Spelling,
}

/// How the children of a node must match its template's children.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum ContainerMode {
    /// An ordered subsequence (the default).
    Contain,
    /// All of them, in order (their own children: contain).
    Equal,
    /// All of them, in order, all the way down.
    DeepEqual,
}

/// An element template: every field left out matches anything.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AriaTemplateRole {
    /// The role; `fragment` (the root of a template of several items) matches any.
    role: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<AriaName>,
    #[serde(skip_serializing_if = "Option::is_none")]
    checked: Option<Tristate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    disabled: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expanded: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    invalid: Option<Invalid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    level: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pressed: Option<Tristate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    selected: Option<bool>,
    #[serde(skip_serializing_if = "Vec::is_empty", serialize_with = "props_as_map")]
    props: Vec<(String, AriaTextValue)>,
    children: Vec<AriaTemplateNode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    container_mode: Option<ContainerMode>,
}

fn props_as_map<S: Serializer>(props: &[(String, AriaTextValue)], s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(props.iter().map(|(k, v)| (k, v)))
}

/// Playwright's normalisation of template text: zero-width characters dropped,
/// runs of white space one space, trimmed.
fn normalize_white_space(s: &str) -> String {
    s.chars()
        .filter(|c| *c != '\u{200b}' && *c != '\u{ad}')
        .collect::<String>()
        .split(|c: char| c.is_whitespace() || c == '\u{feff}')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A YAML node as the template sees it (order and scalar spelling kept).
enum Yaml {
    Str(String),
    /// A number or boolean, as text.
    Scalar(String),
    Null,
    Seq(Vec<Yaml>),
    Map(Vec<(Yaml, Yaml)>),
}

impl<'de> Deserialize<'de> for Yaml {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Yaml;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a YAML value")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Yaml, E> {
                Ok(Yaml::Str(v.to_string()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Yaml, E> {
                Ok(Yaml::Str(v))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Yaml, E> {
                Ok(Yaml::Scalar(v.to_string()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Yaml, E> {
                Ok(Yaml::Scalar(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Yaml, E> {
                Ok(Yaml::Scalar(v.to_string()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Yaml, E> {
                // As JavaScript's String(number): 1.10 is "1.1", 2.0 is "2".
                Ok(Yaml::Scalar(v.to_string()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Yaml, E> {
                Ok(Yaml::Null)
            }
            fn visit_none<E: de::Error>(self) -> Result<Yaml, E> {
                Ok(Yaml::Null)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Yaml, D::Error> {
                Yaml::deserialize(d)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Yaml, A::Error> {
                let mut out = Vec::new();
                while let Some(v) = a.next_element()? {
                    out.push(v);
                }
                Ok(Yaml::Seq(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Yaml, A::Error> {
                let mut out = Vec::new();
                while let Some(kv) = a.next_entry()? {
                    out.push(kv);
                }
                Ok(Yaml::Map(out))
            }
        }
        d.deserialize_any(V)
    }
}

/// Why a template does not parse; each message names what is wrong and how
/// to write it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum AriaTemplateError {
    /// The text is not YAML.
    #[error("the aria snapshot template is not valid YAML: {detail}; {HOW}")]
    Yaml {
        /// The YAML parser's message.
        detail: String,
    },
    /// The YAML is not a template (not a list, a bad item or key, a bad
    /// `/children` mode, …).
    #[error("{0}")]
    Shape(String),
    /// A `role "name" [attr=value]` key does not parse: `problem` at column `at`.
    #[error("{problem} in the aria snapshot template:\n\n{key}\n{}^", " ".repeat(*at))]
    Key {
        /// What is wrong.
        problem: String,
        /// The key.
        key: String,
        /// The column (in characters) where it goes wrong.
        at: usize,
    },
}

const HOW: &str = "write the template as Playwright's aria snapshots: a YAML list such as \
                   `- heading \"Title\" [level=1]` or `- list:\\n  - listitem: \"One\"`";

/// Parses a template; the error names what is wrong and how to write it.
pub(crate) fn parse(text: &str) -> Result<AriaTemplateNode, AriaTemplateError> {
    let yaml: Yaml = crate::yaml::from_str(text).map_err(|e| AriaTemplateError::Yaml {
        detail: e.to_string(),
    })?;
    let Yaml::Seq(items) = yaml else {
        return Err(AriaTemplateError::Shape(format!(
            "the aria snapshot template must be a YAML sequence, items starting with \"- \"; {HOW}"
        )));
    };
    let mut fragment = AriaTemplateRole {
        role: "fragment".into(),
        ..Default::default()
    };
    convert_seq(&mut fragment, items)?;
    // `- button` targets the button itself, not a parent holding it.
    if fragment.children.len() == 1
        && matches!(fragment.container_mode, None | Some(ContainerMode::Contain))
    {
        return Ok(fragment.children.remove(0));
    }
    Ok(AriaTemplateNode::Role(fragment))
}

fn convert_seq(
    container: &mut AriaTemplateRole,
    items: Vec<Yaml>,
) -> Result<(), AriaTemplateError> {
    for item in items {
        match item {
            Yaml::Str(key) => container
                .children
                .push(AriaTemplateNode::Role(parse_key(&key)?)),
            Yaml::Map(entries) => convert_map(container, entries)?,
            _ => {
                return Err(AriaTemplateError::Shape(format!(
                    "an item of the aria snapshot template must be a string such as \
                     `- button \"Save\"` or a mapping such as `- listitem: \"One\"`; {HOW}"
                )));
            }
        }
    }
    Ok(())
}

fn scalar_text(v: &Yaml) -> Option<&str> {
    match v {
        Yaml::Str(s) | Yaml::Scalar(s) => Some(s),
        _ => None,
    }
}

fn convert_map(
    container: &mut AriaTemplateRole,
    entries: Vec<(Yaml, Yaml)>,
) -> Result<(), AriaTemplateError> {
    for (key, value) in entries {
        let Yaml::Str(key) = key else {
            return Err(AriaTemplateError::Shape(format!(
                "a key of the aria snapshot template must be a string such as `listitem`; {HOW}"
            )));
        };
        if key == "text" {
            let Yaml::Str(text) = value else {
                return Err(AriaTemplateError::Shape(
                    "`- text:` takes a string, e.g. `- text: \"Hello\"`".into(),
                ));
            };
            container.children.push(AriaTemplateNode::Text {
                text: AriaTextValue::new(&text),
            });
            continue;
        }
        if key == "/children" {
            container.container_mode = Some(match scalar_text(&value) {
                Some("contain") => ContainerMode::Contain,
                Some("equal") => ContainerMode::Equal,
                Some("deep-equal") => ContainerMode::DeepEqual,
                _ => {
                    return Err(AriaTemplateError::Shape(
                        "`- /children:` takes \"contain\", \"equal\" or \"deep-equal\"".into(),
                    ));
                }
            });
            continue;
        }
        if let Some(prop) = key.strip_prefix('/') {
            let Yaml::Str(v) = value else {
                return Err(AriaTemplateError::Shape(format!(
                    "`- /{prop}:` takes a string, e.g. `- /{prop}: \"…\"` or a `/regex/`"
                )));
            };
            container
                .props
                .push((prop.to_string(), AriaTextValue::new(&v)));
            continue;
        }
        let mut node = parse_key(&key)?;
        match value {
            Yaml::Str(s) | Yaml::Scalar(s) => node.children.push(AriaTemplateNode::Text {
                text: AriaTextValue::new(&s),
            }),
            Yaml::Seq(items) => convert_seq(&mut node, items)?,
            Yaml::Null | Yaml::Map(_) => {
                return Err(AriaTemplateError::Shape(format!(
                    "`- {key}:` must be followed by a text (`- {key}: \"…\"`) or by an indented \
                     list of children; {HOW}"
                )));
            }
        }
        container.children.push(AriaTemplateNode::Role(node));
    }
    Ok(())
}

/// Parses `role "name" [attr=value]…` (Playwright's grammar: a role of letters,
/// a `"quoted"` name with `\` escapes or a `/regex/`, then attributes).
fn parse_key(key: &str) -> Result<AriaTemplateRole, AriaTemplateError> {
    KeyParser {
        chars: key.chars().collect(),
        pos: 0,
        key,
    }
    .parse()
}

struct KeyParser<'a> {
    chars: Vec<char>,
    pos: usize,
    key: &'a str,
}

impl KeyParser<'_> {
    fn fail<T>(&self, message: &str, at: usize) -> Result<T, AriaTemplateError> {
        Err(AriaTemplateError::Key {
            problem: message.to_string(),
            key: self.key.to_string(),
            at,
        })
    }
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }
    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }
    fn ident(&mut self) -> String {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
            self.pos += 1;
        }
        self.chars[start..self.pos].iter().collect()
    }

    fn parse(mut self) -> Result<AriaTemplateRole, AriaTemplateError> {
        self.skip_ws();
        let role = self.ident();
        if role.is_empty() {
            return self.fail("expected a role such as `button`", self.pos);
        }
        let mut node = AriaTemplateRole {
            role,
            ..Default::default()
        };
        self.skip_ws();
        node.name = match self.peek() {
            Some('"') => {
                self.pos += 1;
                let s = self.string()?;
                let s = normalize_white_space(&s);
                (!s.is_empty()).then_some(AriaName::Exact(s))
            }
            Some('/') => {
                self.pos += 1;
                Some(AriaName::Regex(self.regex()?))
            }
            _ => None,
        };
        loop {
            self.skip_ws();
            if self.peek() != Some('[') {
                break;
            }
            self.pos += 1;
            self.skip_ws();
            let at = self.pos;
            let attr = self.ident();
            self.skip_ws();
            let mut value = String::new();
            let mut value_at = at;
            if self.peek() == Some('=') {
                self.pos += 1;
                self.skip_ws();
                value_at = self.pos;
                while let Some(c) = self.peek() {
                    if c == ']' || c.is_whitespace() {
                        break;
                    }
                    value.push(c);
                    self.pos += 1;
                }
            }
            self.skip_ws();
            if self.peek() != Some(']') {
                return self.fail("expected ]", self.pos);
            }
            self.pos += 1;
            if value.is_empty() {
                value = "true".into();
            }
            self.attribute(&mut node, &attr, &value, at, value_at)?;
        }
        self.skip_ws();
        if self.pos < self.chars.len() {
            return self.fail(
                "unexpected input (expected a \"name\", a /regex/ or [attributes])",
                self.pos,
            );
        }
        Ok(node)
    }

    fn string(&mut self) -> Result<String, AriaTemplateError> {
        let mut out = String::new();
        let mut escaped = false;
        while let Some(c) = self.peek() {
            self.pos += 1;
            if escaped {
                out.push(c);
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                return Ok(out);
            } else {
                out.push(c);
            }
        }
        self.fail("unterminated string", self.pos)
    }

    fn regex(&mut self) -> Result<String, AriaTemplateError> {
        let mut out = String::new();
        let mut escaped = false;
        let mut in_class = false;
        while let Some(c) = self.peek() {
            self.pos += 1;
            if escaped {
                out.push(c);
                escaped = false;
            } else if c == '\\' {
                escaped = true;
                out.push(c);
            } else if c == '/' && !in_class {
                return Ok(out);
            } else {
                if c == '[' {
                    in_class = true;
                } else if c == ']' {
                    in_class = false;
                }
                out.push(c);
            }
        }
        self.fail("unterminated regex", self.pos)
    }

    fn attribute(
        &self,
        node: &mut AriaTemplateRole,
        attr: &str,
        value: &str,
        at: usize,
        value_at: usize,
    ) -> Result<(), AriaTemplateError> {
        let boolean = |what: &str| match value {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => self.fail(
                &format!("the value of the \"{what}\" attribute must be true or false"),
                value_at,
            ),
        };
        let tristate = |what: &str| match value {
            "true" => Ok(Tristate::True),
            "false" => Ok(Tristate::False),
            "mixed" => Ok(Tristate::Mixed),
            _ => self.fail(
                &format!("the value of the \"{what}\" attribute must be true, false or mixed"),
                value_at,
            ),
        };
        match attr {
            "checked" => node.checked = Some(tristate(attr)?),
            "pressed" => node.pressed = Some(tristate(attr)?),
            "disabled" => node.disabled = Some(boolean(attr)?),
            "expanded" => node.expanded = Some(boolean(attr)?),
            "selected" => node.selected = Some(boolean(attr)?),
            "invalid" => {
                node.invalid = Some(match value {
                    "true" => Invalid::True,
                    "false" => Invalid::False,
                    "grammar" => Invalid::Grammar,
                    "spelling" => Invalid::Spelling,
                    _ => {
                        return self.fail(
                            "the value of the \"invalid\" attribute must be true, false, grammar or spelling",
                            value_at,
                        );
                    }
                })
            }
            "level" => match value.parse::<f64>() {
                Ok(n) if n.is_finite() => node.level = Some(n),
                _ => {
                    return self.fail(
                        "the value of the \"level\" attribute must be a number",
                        value_at,
                    );
                }
            },
            _ => {
                return self.fail(
                    &format!(
                        "unsupported attribute [{attr}] (supported: checked, disabled, expanded, \
                         invalid, level, pressed, selected)"
                    ),
                    at,
                );
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn p(t: &str) -> serde_json::Value {
        serde_json::to_value(parse(t).unwrap()).unwrap()
    }

    #[test]
    fn one_item_is_the_node_itself_several_a_fragment() {
        assert_eq!(
            p("- heading \"title\" [level=2]"),
            json!({"kind": "role", "role": "heading", "name": {"exact": "title"}, "level": 2.0, "children": []})
        );
        let f = p("- listitem: \"Task 1\"\n- button /Del.*/");
        assert_eq!(f["role"], "fragment");
        assert_eq!(
            f["children"][0]["children"][0],
            json!({"kind": "text", "text": {"raw": "Task 1", "normalized": "Task 1"}})
        );
        assert_eq!(f["children"][1]["name"], json!({"regex": "Del.*"}));
    }

    #[test]
    fn children_mode_props_and_escapes() {
        let t = p(
            "- list:\n  - /children: equal\n  - listitem: 1.1\n- link:\n  - /url: /.*x/\n- 'button \"Click '' \\\" me\"'",
        );
        assert_eq!(t["children"][0]["containerMode"], "equal");
        assert_eq!(
            t["children"][0]["children"][0]["children"][0]["text"]["raw"],
            "1.1"
        );
        assert_eq!(t["children"][1]["props"]["url"]["raw"], "/.*x/");
        assert_eq!(t["children"][2]["name"]["exact"], "Click ' \" me");
    }

    #[test]
    fn bad_templates_say_what_is_wrong() {
        for (t, want) in [
            ("heading \"title\"", "must be a YAML sequence"),
            ("- heading \"title", "unterminated string"),
            ("- heading /title", "unterminated regex"),
            (
                "- heading [level=a]",
                "\"level\" attribute must be a number",
            ),
            ("- heading [level=]", "\"level\" attribute must be a number"),
            ("- heading [expanded=FALSE]", "must be true or false"),
            ("- heading [checked=foo]", "true, false or mixed"),
            ("- heading [bogus]", "unsupported attribute [bogus]"),
            ("- heading invalid", "unexpected input"),
            (
                "- list:\n  - /children: some",
                "\"contain\", \"equal\" or \"deep-equal\"",
            ),
            ("- heading: a:", "not valid YAML"),
            ("- listitem:", "must be followed by a text"),
        ] {
            let e = parse(t).unwrap_err().to_string();
            assert!(e.contains(want), "{t:?}: {e}");
        }
        assert!(matches!(
            parse("- heading [level=a]"),
            Err(AriaTemplateError::Key { at: 15, .. })
        ));
        assert!(matches!(parse("heading"), Err(AriaTemplateError::Shape(_))));
        assert!(matches!(
            parse("- heading: a:"),
            Err(AriaTemplateError::Yaml { .. })
        ));
        let e = parse("- heading [level=a]").unwrap_err().to_string();
        assert!(e.ends_with("heading [level=a]\n               ^"), "{e}");
    }
}
