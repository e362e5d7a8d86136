//! YAML written straight from a typed value: a `serde` serializer that gives
//! the bytes [`yaml::to_string`](super::yaml::to_string) gives for the
//! value's `serde_json::to_value`, without building that value first (the
//! run's `skill-state.yaml` is rendered after every step).
//!
//! What this serializer cannot match with certainty (a mapping key that is
//! not a string, a character or an integer, a key given twice, an integer
//! beyond 64 bits) is an error, and [`to_yaml`](super::to_yaml) then takes
//! the path through `serde_json::Value`: the output is the same either way.

use std::fmt::Write;

use serde::ser::{self, Serialize};

use super::yaml::{push_float, push_string};

/// Why the direct path gave up (never shown: the caller takes the other path).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(super) struct Unsupported(String);

impl ser::Error for Unsupported {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Unsupported(msg.to_string())
    }
}

fn unsupported(what: &str) -> Unsupported {
    Unsupported(what.to_string())
}

/// `value` as YAML, or [`Unsupported`].
pub(super) fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, Unsupported> {
    let mut out = String::with_capacity(256);
    value.serialize(ValueSer {
        out: &mut out,
        at: At::Top,
    })?;
    Ok(out)
}

/// Where a value is written, as the tree emitter of `yaml.rs` places it.
#[derive(Clone, Copy)]
enum At {
    /// The whole document.
    Top,
    /// After `key:` of a mapping whose entries are indented by the number.
    /// The value's own entries (or a multi-line string's lines) go two further.
    AfterKey(usize),
    /// After `- ` of a sequence indented by the number.
    Item(usize),
}

impl At {
    /// The indentation of a collection's entries, and of a string's block lines.
    fn level(self) -> usize {
        match self {
            At::Top => 0,
            At::AfterKey(l) | At::Item(l) => l + 2,
        }
    }
}

fn indent(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

struct ValueSer<'a> {
    out: &'a mut String,
    at: At,
}

impl<'a> ValueSer<'a> {
    /// A scalar (or an empty collection), written as `push_scalar` writes it.
    fn scalar(self, write: impl FnOnce(&mut String, usize)) -> Result<(), Unsupported> {
        if let At::AfterKey(_) = self.at {
            self.out.push(' ');
        }
        write(self.out, self.at.level());
        self.out.push('\n');
        Ok(())
    }

    fn plain(self, text: &str) -> Result<(), Unsupported> {
        self.scalar(|out, _| out.push_str(text))
    }

    fn string(self, s: &str) -> Result<(), Unsupported> {
        self.scalar(|out, level| push_string(out, s, level, true))
    }

    fn float(self, f: f64) -> Result<(), Unsupported> {
        // `serde_json::to_value` makes a float that is not finite `null`.
        if !f.is_finite() {
            return self.plain("null");
        }
        self.scalar(|out, _| push_float(out, f))
    }

    fn integer(self, n: impl std::fmt::Display) -> Result<(), Unsupported> {
        self.scalar(|out, _| {
            let _ = write!(out, "{n}");
        })
    }

    fn collection(self, kind: Kind) -> Coll<'a> {
        Coll::new(self.out, self.at, kind)
    }

    /// The start of a one-entry mapping `{variant: …}` (how `serde_json`
    /// writes an enum's variant with data): its key is written, and the
    /// place of its value is returned. The mapping is never empty.
    fn variant(self, variant: &'static str) -> (&'a mut String, At) {
        let level = self.at.level();
        if let At::AfterKey(_) = self.at {
            self.out.push('\n');
            indent(self.out, level);
        }
        push_string(self.out, variant, 0, false);
        self.out.push(':');
        (self.out, At::AfterKey(level))
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Map,
    Seq,
}

/// A mapping or a sequence being written: the first entry decides how it
/// starts (an empty one is `{}`/`[]` in its parent's place).
struct Coll<'a> {
    out: &'a mut String,
    at: At,
    kind: Kind,
    count: usize,
    /// A mapping's keys so far (a key given twice is [`Unsupported`]:
    /// `serde_json`'s map would keep the first place and the last value).
    keys: Vec<String>,
}

impl<'a> Coll<'a> {
    fn new(out: &'a mut String, at: At, kind: Kind) -> Self {
        Coll {
            out,
            at,
            kind,
            count: 0,
            keys: Vec::new(),
        }
    }

    fn entry(&mut self) {
        let level = self.at.level();
        if self.count == 0 {
            if let At::AfterKey(_) = self.at {
                self.out.push('\n');
                indent(self.out, level);
            }
        } else {
            indent(self.out, level);
        }
        self.count += 1;
    }

    fn key_str(&mut self, key: &str) -> Result<(), Unsupported> {
        if self.keys.iter().any(|k| k == key) {
            return Err(unsupported("a key given twice"));
        }
        self.keys.push(key.to_string());
        self.entry();
        push_string(self.out, key, 0, false);
        self.out.push(':');
        Ok(())
    }

    /// A struct's field: its name needs no check (a struct names each once).
    fn field(&mut self, key: &'static str) {
        self.entry();
        push_string(self.out, key, 0, false);
        self.out.push(':');
    }

    fn value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        value.serialize(ValueSer {
            out: self.out,
            at: At::AfterKey(self.at.level()),
        })
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        self.entry();
        self.out.push_str("- ");
        value.serialize(ValueSer {
            out: self.out,
            at: At::Item(self.at.level()),
        })
    }

    fn finish(self) -> Result<(), Unsupported> {
        if self.count == 0 {
            let empty = if self.kind == Kind::Map { "{}" } else { "[]" };
            ValueSer {
                out: self.out,
                at: self.at,
            }
            .plain(empty)?;
        }
        Ok(())
    }
}

impl<'a> ser::Serializer for ValueSer<'a> {
    type Ok = ();
    type Error = Unsupported;
    type SerializeSeq = Coll<'a>;
    type SerializeTuple = Coll<'a>;
    type SerializeTupleStruct = Coll<'a>;
    type SerializeTupleVariant = Coll<'a>;
    type SerializeMap = Coll<'a>;
    type SerializeStruct = Coll<'a>;
    type SerializeStructVariant = Coll<'a>;

    fn serialize_bool(self, v: bool) -> Result<(), Unsupported> {
        self.plain(if v { "true" } else { "false" })
    }
    fn serialize_i8(self, v: i8) -> Result<(), Unsupported> {
        self.integer(v)
    }
    fn serialize_i16(self, v: i16) -> Result<(), Unsupported> {
        self.integer(v)
    }
    fn serialize_i32(self, v: i32) -> Result<(), Unsupported> {
        self.integer(v)
    }
    fn serialize_i64(self, v: i64) -> Result<(), Unsupported> {
        self.integer(v)
    }
    fn serialize_i128(self, v: i128) -> Result<(), Unsupported> {
        if i64::try_from(v).is_ok() || u64::try_from(v).is_ok() {
            self.integer(v)
        } else {
            Err(unsupported("an integer beyond 64 bits"))
        }
    }
    fn serialize_u8(self, v: u8) -> Result<(), Unsupported> {
        self.integer(v)
    }
    fn serialize_u16(self, v: u16) -> Result<(), Unsupported> {
        self.integer(v)
    }
    fn serialize_u32(self, v: u32) -> Result<(), Unsupported> {
        self.integer(v)
    }
    fn serialize_u64(self, v: u64) -> Result<(), Unsupported> {
        self.integer(v)
    }
    fn serialize_u128(self, v: u128) -> Result<(), Unsupported> {
        if u64::try_from(v).is_ok() {
            self.integer(v)
        } else {
            Err(unsupported("an integer beyond 64 bits"))
        }
    }
    fn serialize_f32(self, v: f32) -> Result<(), Unsupported> {
        // `serde_json` keeps an `f32` as the `f64` it widens to.
        self.float(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<(), Unsupported> {
        self.float(v)
    }
    fn serialize_char(self, v: char) -> Result<(), Unsupported> {
        self.string(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<(), Unsupported> {
        self.string(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Unsupported> {
        // `serde_json`: a list of numbers.
        let mut seq = self.collection(Kind::Seq);
        for b in v {
            ser::SerializeSeq::serialize_element(&mut seq, b)?;
        }
        seq.finish()
    }
    fn serialize_none(self) -> Result<(), Unsupported> {
        self.plain("null")
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Unsupported> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Unsupported> {
        self.plain("null")
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Unsupported> {
        self.plain("null")
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Unsupported> {
        self.string(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        let (out, at) = self.variant(variant);
        value.serialize(ValueSer { out, at })
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Coll<'a>, Unsupported> {
        Ok(self.collection(Kind::Seq))
    }
    fn serialize_tuple(self, _: usize) -> Result<Coll<'a>, Unsupported> {
        Ok(self.collection(Kind::Seq))
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Coll<'a>, Unsupported> {
        Ok(self.collection(Kind::Seq))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Coll<'a>, Unsupported> {
        let (out, at) = self.variant(variant);
        Ok(Coll::new(out, at, Kind::Seq))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Coll<'a>, Unsupported> {
        Ok(self.collection(Kind::Map))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Coll<'a>, Unsupported> {
        Ok(self.collection(Kind::Map))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Coll<'a>, Unsupported> {
        let (out, at) = self.variant(variant);
        Ok(Coll::new(out, at, Kind::Map))
    }
}

impl ser::SerializeSeq for Coll<'_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        self.element(value)
    }
    fn end(self) -> Result<(), Unsupported> {
        self.finish()
    }
}

impl ser::SerializeTuple for Coll<'_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        self.element(value)
    }
    fn end(self) -> Result<(), Unsupported> {
        self.finish()
    }
}

impl ser::SerializeTupleStruct for Coll<'_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        self.element(value)
    }
    fn end(self) -> Result<(), Unsupported> {
        self.finish()
    }
}

impl ser::SerializeTupleVariant for Coll<'_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        self.element(value)
    }
    fn end(self) -> Result<(), Unsupported> {
        self.finish()
    }
}

impl ser::SerializeMap for Coll<'_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Unsupported> {
        let key = key.serialize(KeySer)?;
        self.key_str(&key)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        self.value(value)
    }
    fn end(self) -> Result<(), Unsupported> {
        self.finish()
    }
}

impl ser::SerializeStruct for Coll<'_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        self.field(key);
        self.value(value)
    }
    fn end(self) -> Result<(), Unsupported> {
        self.finish()
    }
}

impl ser::SerializeStructVariant for Coll<'_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        self.field(key);
        self.value(value)
    }
    fn end(self) -> Result<(), Unsupported> {
        self.finish()
    }
}

/// A mapping key as `serde_json` makes it a string: a string, a character,
/// an integer or a boolean (written out), a unit variant (its name). Anything
/// else is [`Unsupported`].
struct KeySer;

impl ser::Serializer for KeySer {
    type Ok = String;
    type Error = Unsupported;
    type SerializeSeq = ser::Impossible<String, Unsupported>;
    type SerializeTuple = ser::Impossible<String, Unsupported>;
    type SerializeTupleStruct = ser::Impossible<String, Unsupported>;
    type SerializeTupleVariant = ser::Impossible<String, Unsupported>;
    type SerializeMap = ser::Impossible<String, Unsupported>;
    type SerializeStruct = ser::Impossible<String, Unsupported>;
    type SerializeStructVariant = ser::Impossible<String, Unsupported>;

    fn serialize_bool(self, v: bool) -> Result<String, Unsupported> {
        Ok(if v { "true" } else { "false" }.into())
    }
    fn serialize_i8(self, v: i8) -> Result<String, Unsupported> {
        Ok(v.to_string())
    }
    fn serialize_i16(self, v: i16) -> Result<String, Unsupported> {
        Ok(v.to_string())
    }
    fn serialize_i32(self, v: i32) -> Result<String, Unsupported> {
        Ok(v.to_string())
    }
    fn serialize_i64(self, v: i64) -> Result<String, Unsupported> {
        Ok(v.to_string())
    }
    fn serialize_i128(self, v: i128) -> Result<String, Unsupported> {
        Ok(v.to_string())
    }
    fn serialize_u8(self, v: u8) -> Result<String, Unsupported> {
        Ok(v.to_string())
    }
    fn serialize_u16(self, v: u16) -> Result<String, Unsupported> {
        Ok(v.to_string())
    }
    fn serialize_u32(self, v: u32) -> Result<String, Unsupported> {
        Ok(v.to_string())
    }
    fn serialize_u64(self, v: u64) -> Result<String, Unsupported> {
        Ok(v.to_string())
    }
    fn serialize_u128(self, v: u128) -> Result<String, Unsupported> {
        Ok(v.to_string())
    }
    fn serialize_f32(self, _: f32) -> Result<String, Unsupported> {
        Err(unsupported("a float key"))
    }
    fn serialize_f64(self, _: f64) -> Result<String, Unsupported> {
        Err(unsupported("a float key"))
    }
    fn serialize_char(self, v: char) -> Result<String, Unsupported> {
        Ok(v.to_string())
    }
    fn serialize_str(self, v: &str) -> Result<String, Unsupported> {
        Ok(v.to_string())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<String, Unsupported> {
        Err(unsupported("a key of bytes"))
    }
    fn serialize_none(self) -> Result<String, Unsupported> {
        Err(unsupported("a key of nothing"))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<String, Unsupported> {
        Err(unsupported("an optional key"))
    }
    fn serialize_unit(self) -> Result<String, Unsupported> {
        Err(unsupported("a key of nothing"))
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<String, Unsupported> {
        Err(unsupported("a key of nothing"))
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<String, Unsupported> {
        Ok(variant.to_string())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<String, Unsupported> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<String, Unsupported> {
        Err(unsupported("a key with data"))
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Unsupported> {
        Err(unsupported("a list as a key"))
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Unsupported> {
        Err(unsupported("a list as a key"))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Unsupported> {
        Err(unsupported("a list as a key"))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Unsupported> {
        Err(unsupported("a list as a key"))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Unsupported> {
        Err(unsupported("a mapping as a key"))
    }
    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, Unsupported> {
        Err(unsupported("a mapping as a key"))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Unsupported> {
        Err(unsupported("a mapping as a key"))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashMap};

    use serde::Serialize;

    use super::super::meta::{to_yaml, to_yaml_via_value};
    use super::super::types::{CompletedStep, Phase, SkillError, SkillState, StepStatus};
    use super::super::yaml::{Mapping, Value};

    /// Strings a YAML writer gets wrong easily: quotes, line breaks, leading
    /// and trailing blanks, control characters, unicode, what a reader would
    /// retype (numbers, booleans, null, timestamps), YAML indicators.
    const HOSTILE: &[&str] = &[
        "",
        " ",
        "plain words",
        "'",
        "''",
        "\"",
        "it's",
        "say \"hi\"",
        "a\nb",
        "a\nb\n",
        "\n",
        "\n\n",
        "a\n\nb\n\n",
        " lead\nx",
        "trail \nx",
        "x\n  indented\n",
        "tab\there",
        "\t",
        "bell\u{7}",
        "cr\r\nlf",
        "ünïcødé",
        "日本語のテキスト",
        "emoji 🎉",
        "\u{feff}bom",
        "next\u{85}line",
        "sep\u{2028}",
        "01",
        "007",
        "1.0",
        "1e3",
        ".5",
        ".inf",
        "-.INF",
        ".nan",
        "0x1F",
        "0o17",
        "0b101",
        "1_000",
        "1:20",
        "-1",
        "+1",
        "-x",
        "- x",
        "yes",
        "No",
        "ON",
        "null",
        "~",
        "true",
        "False",
        "2024-01-10",
        "2026-11-22T11:25:48.115Z",
        "2024-01-10 10:00:00 +02:00",
        "01-open.md",
        "20261123T170000123Z-ab12cd",
        "a: b",
        "a:b",
        "key:",
        "a:\tb",
        "#c",
        "a #b",
        "a#b",
        "[x]",
        "{y}",
        "&a",
        "*a",
        "!tag",
        "|",
        ">",
        "%",
        "@",
        "`",
        "?",
        ":",
        ",",
        "<<",
        "=",
        "C:\\path\\to",
        "line one\nline: two\n- three\n# four",
    ];

    /// Both paths, the same text.
    fn same<T: Serialize>(v: &T) -> String {
        let direct = super::to_string(v).expect("the direct path takes it");
        let tree = to_yaml_via_value(v);
        assert_eq!(
            direct, tree,
            "direct (left) and through a Value (right) differ"
        );
        direct
    }

    fn state(s: &str, i: usize) -> SkillState {
        let mut diagnostics = serde_json::Map::new();
        diagnostics.insert(s.to_string(), Value::String(s.to_string()));
        diagnostics.insert(
            "console".into(),
            serde_json::json!([s, "", [], {}, {"k": s}, 1.5, -3, null, true]),
        );
        diagnostics.insert("empty".into(), serde_json::json!({}));
        SkillState {
            skill_version: "1.0".into(),
            started_at: "2026-11-22T11:25:48.115Z".into(),
            current_phase: [Phase::Init, Phase::ExecuteSteps, Phase::DbVerify][i % 3],
            current_step: i,
            total_steps: 99,
            completed_steps: (1..=i % 4)
                .map(|n| CompletedStep {
                    step: n,
                    status: [StepStatus::Pass, StepStatus::Fail][n % 2],
                    evidence_captured: n % 2 == 0,
                    timestamp: s.to_string(),
                })
                .collect(),
            checklist_status: [("pre-run", s), (s, "completed")]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            last_action: s.into(),
            error: (i % 2 == 1).then(|| SkillError {
                step: i,
                message: s.into(),
                diagnostics: if i % 4 == 1 {
                    diagnostics.clone()
                } else {
                    Default::default()
                },
            }),
            completed_at: i.is_multiple_of(3).then(|| s.to_string()),
            run_id: s.into(),
            scenario_slug: "slug".into(),
            pid: u32::MAX - i as u32,
        }
    }

    /// `skill-state.yaml` written straight from the struct is the file the
    /// path through `serde_json::Value` wrote, for every hostile string in
    /// every string place (values, keys, list items, nested mappings).
    #[test]
    fn skill_state_yaml_is_byte_for_byte_the_value_paths() {
        for (i, s) in HOSTILE.iter().enumerate() {
            let state = state(s, i);
            let text = same(&state);
            assert_eq!(to_yaml(&state), text);
            // And it reads back as the same state.
            let back: SkillState = super::super::yaml::from_str(&text).unwrap();
            assert_eq!(back, state, "{text}");
        }
        // A string at the top and in a list, at the top.
        for s in HOSTILE {
            same(s);
            same(&[*s, *s]);
            same(&vec![vec![*s], vec![], vec![*s, ""]]);
        }
    }

    #[derive(Serialize)]
    struct Unit;

    #[derive(Serialize)]
    struct Newtype(String);

    #[derive(Serialize)]
    struct Tuple(i32, String);

    #[derive(Serialize)]
    #[serde(rename_all = "kebab-case")]
    enum Shape {
        UnitKind,
        Wraps(String),
        Pair(u8, Vec<String>),
        EmptyTuple(),
        Named {
            inner_value: Option<f64>,
            list: Vec<u8>,
        },
        EmptyNamed {},
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Everything {
        text: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        skipped: Option<String>,
        none: Option<String>,
        some: Option<Vec<String>>,
        small: i8,
        negative: i64,
        big: u64,
        wide_small: i128,
        float: f64,
        whole: f64,
        minus_zero: f64,
        nan: f64,
        inf: f32,
        single: f32,
        tiny: f64,
        huge: f64,
        letter: char,
        quote: char,
        flag: bool,
        unit: (),
        unit_struct: Unit,
        newtype: Newtype,
        tuple: Tuple,
        pair: (String, u8),
        shapes: Vec<Shape>,
        shape: Shape,
        nested_shape: Vec<Vec<Shape>>,
        by_number: BTreeMap<u32, String>,
        by_letter: BTreeMap<char, Vec<String>>,
        by_negative: BTreeMap<i64, ()>,
        empty_map: BTreeMap<String, String>,
        empty_list: Vec<String>,
        empty_struct: Empty,
        lists: Vec<Vec<Vec<u8>>>,
        maps_in_list: Vec<BTreeMap<String, Option<String>>>,
        bytes: serde_bytes_like::Bytes,
        #[serde(flatten)]
        flat: BTreeMap<String, String>,
    }

    #[derive(Serialize)]
    struct Empty {
        #[serde(skip_serializing_if = "Option::is_none")]
        only: Option<u8>,
    }

    mod serde_bytes_like {
        /// Serialized with `serialize_bytes`.
        pub struct Bytes(pub Vec<u8>);
        impl serde::Serialize for Bytes {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bytes(&self.0)
            }
        }
    }

    fn everything(s: &str) -> Everything {
        Everything {
            text: s.into(),
            skipped: None,
            none: None,
            some: Some(vec![s.into(), String::new()]),
            small: -8,
            negative: i64::MIN,
            big: u64::MAX,
            wide_small: -5,
            float: 1.5,
            whole: 3.0,
            minus_zero: -0.0,
            nan: f64::NAN,
            inf: f32::INFINITY,
            single: 0.1,
            tiny: 1e-300,
            huge: 1.5e300,
            letter: 'é',
            quote: '\'',
            flag: false,
            unit: (),
            unit_struct: Unit,
            newtype: Newtype(s.into()),
            tuple: Tuple(-1, s.into()),
            pair: (s.into(), 7),
            shapes: vec![
                Shape::UnitKind,
                Shape::Wraps(s.into()),
                Shape::Pair(1, vec![s.into()]),
                Shape::Pair(2, vec![]),
                Shape::EmptyTuple(),
                Shape::Named {
                    inner_value: None,
                    list: vec![1, 2],
                },
                Shape::EmptyNamed {},
            ],
            shape: Shape::Named {
                inner_value: Some(2.25),
                list: vec![],
            },
            nested_shape: vec![vec![Shape::Wraps(s.into()), Shape::UnitKind], vec![]],
            by_number: [(1, s.to_string()), (10, String::new())].into(),
            by_letter: [('a', vec![s.to_string()]), (':', vec![])].into(),
            by_negative: [(-1, ())].into(),
            empty_map: BTreeMap::new(),
            empty_list: vec![],
            empty_struct: Empty { only: None },
            lists: vec![vec![vec![1], vec![]], vec![]],
            maps_in_list: vec![
                [(s.to_string(), Some(s.to_string())), ("n".into(), None)].into(),
                BTreeMap::new(),
            ],
            bytes: serde_bytes_like::Bytes(vec![0, 255]),
            flat: [("flat key".to_string(), s.to_string())].into(),
        }
    }

    /// Every shape `serde` can hand a serializer (options, units, newtypes,
    /// tuples, each kind of enum variant, integer and character keys, empty
    /// collections at every depth, floats that are not finite, `f32`,
    /// `flatten`) comes out as the path through `serde_json::Value` writes it.
    #[test]
    fn every_serde_shape_is_written_as_the_value_path_writes_it() {
        for s in HOSTILE {
            same(&everything(s));
            same(&vec![everything(s)]);
            same(&Shape::Wraps(s.to_string()));
            same(&Shape::Pair(0, vec![s.to_string()]));
            same(&Shape::Named {
                inner_value: Some(f64::NEG_INFINITY),
                list: vec![],
            });
        }
        for top in [
            same(&Shape::UnitKind),
            same(&()),
            same(&Option::<u8>::None),
            same(&Vec::<u8>::new()),
            same(&BTreeMap::<String, u8>::new()),
            same(&Empty { only: None }),
            same(&Shape::EmptyTuple()),
        ] {
            assert!(top.ends_with('\n'), "{top:?}");
        }
    }

    /// What the direct path does not take is written through the value, so
    /// `to_yaml` still gives the same text: a key given twice, a key that is
    /// not text (a boolean key it does take), an integer beyond 64 bits.
    #[test]
    fn what_the_direct_path_leaves_goes_through_the_value() {
        #[derive(Serialize)]
        struct Twice {
            a: u8,
            #[serde(flatten)]
            more: BTreeMap<String, u8>,
        }
        let twice = Twice {
            a: 1,
            more: [("a".to_string(), 2), ("b".to_string(), 3)].into(),
        };
        assert!(super::to_string(&twice).is_err());
        assert_eq!(to_yaml(&twice), to_yaml_via_value(&twice));
        assert_eq!(to_yaml(&twice), "a: 2\nb: 3\n");
        let bools: HashMap<bool, u8> = [(true, 1)].into();
        assert_eq!(same(&bools), "'true': 1\n");
        let floats: BTreeMap<u8, f64> = [(1, 0.5)].into();
        same(&floats);
        let small_wide: u128 = 5;
        same(&small_wide);
        let wide: u128 = u128::MAX;
        assert!(super::to_string(&wide).is_err());
        let units: BTreeMap<Unit2, u8> = [(Unit2, 1)].into();
        assert!(super::to_string(&units).is_err());
    }

    #[derive(Serialize, PartialEq, Eq, PartialOrd, Ord)]
    struct Unit2;

    /// Random documents (a fixed seed, so a failure repeats): nested lists and
    /// mappings, empty ones, hostile keys and strings, numbers of every kind.
    #[test]
    fn random_documents_are_written_as_the_value_path_writes_them() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        fn doc(next: &mut dyn FnMut() -> u64, depth: usize) -> Value {
            let pick = |next: &mut dyn FnMut() -> u64| HOSTILE[next() as usize % HOSTILE.len()];
            match next() % if depth == 0 { 5 } else { 8 } {
                0 => Value::Null,
                1 => Value::Bool(next().is_multiple_of(2)),
                2 => match next() % 4 {
                    0 => Value::from(next()),
                    1 => Value::from(-((next() >> 1) as i64)),
                    2 => Value::from((next() % 1000) as f64 / 8.0),
                    _ => Value::from(f64::from_bits(next() >> 2)),
                },
                3 | 4 => {
                    let a = pick(next);
                    if next().is_multiple_of(3) {
                        Value::String(format!("{a}{}", pick(next)))
                    } else {
                        Value::String(a.to_string())
                    }
                }
                5 | 6 => {
                    let mut m = Mapping::new();
                    for _ in 0..next() % 4 {
                        m.insert(pick(next).to_string(), doc(next, depth - 1));
                    }
                    Value::Object(m)
                }
                _ => Value::Array((0..next() % 4).map(|_| doc(next, depth - 1)).collect()),
            }
        }
        for _ in 0..3000 {
            let v = doc(&mut next, 4);
            same(&v);
        }
    }
}
