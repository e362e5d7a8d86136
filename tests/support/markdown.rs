//! The fenced code blocks, links and heading ids of a Markdown file (README.md,
//! the guide's chapters under docs/src), for the tests that compile and build
//! what they show and check their links (tests/rules/readme.rs,
//! tests/rules/package.rs).
#![allow(dead_code)]

/// A fenced block: the line of its opening fence (1-based), its info string
/// (` ```rust ` gives `rust`) and its code.
pub struct Block {
    pub fence: usize,
    pub info: String,
    pub code: String,
}

impl Block {
    /// The language: the info string up to a `,` or a space.
    pub fn lang(&self) -> &str {
        self.info.split([',', ' ']).next().unwrap_or("")
    }
}

pub fn code_blocks(markdown: &str) -> Vec<Block> {
    let mut out = vec![];
    let mut open: Option<Block> = None;
    for (i, line) in markdown.lines().enumerate() {
        let fence = line.trim_start().strip_prefix("```");
        match (&mut open, fence) {
            (None, Some(info)) => {
                open = Some(Block {
                    fence: i + 1,
                    info: info.trim().to_string(),
                    code: String::new(),
                })
            }
            (Some(_), Some(_)) => out.push(open.take().unwrap()),
            (Some(block), None) => {
                block.code.push_str(line);
                block.code.push('\n');
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "a code block is not closed");
    out
}

/// The first block of language `lang` after the first line that contains
/// `marker`.
pub fn block_after<'a>(blocks: &'a [Block], markdown: &str, marker: &str, lang: &str) -> &'a Block {
    let line = markdown
        .lines()
        .position(|l| l.contains(marker))
        .unwrap_or_else(|| panic!("the file no longer says {marker:?}"))
        + 1;
    blocks
        .iter()
        .find(|b| b.fence > line && b.lang() == lang)
        .unwrap_or_else(|| panic!("no ```{lang} block after {marker:?}"))
}

/// `markdown` with every fenced block's lines and every code span blanked
/// (spaces; its line breaks kept): the prose, at its lines, whose links and
/// headings count.
pub fn prose(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len());
    let mut fenced = false;
    for line in markdown.split_inclusive('\n') {
        let fence = line.trim_start().starts_with("```");
        if fenced || fence {
            out.extend(line.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
        } else {
            out.push_str(line);
        }
        if fence {
            fenced = !fenced;
        }
    }
    blank_code_spans(&out)
}

/// Code spans (a run of N backticks up to the next run of exactly N)
/// replaced by spaces, line breaks kept.
fn blank_code_spans(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let run = |at: usize| chars[at..].iter().take_while(|c| **c == '`').count();
    let mut out: Vec<char> = chars.clone();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            i += 1;
            continue;
        }
        let n = run(i);
        let mut j = i + n;
        let close = loop {
            if j >= chars.len() {
                break None;
            }
            if chars[j] == '`' {
                let m = run(j);
                if m == n {
                    break Some(j + m);
                }
                j += m;
            } else {
                j += 1;
            }
        };
        let Some(end) = close else {
            i += n;
            continue;
        };
        for c in &mut out[i..end] {
            if *c != '\n' {
                *c = ' ';
            }
        }
        i = end;
    }
    out.into_iter().collect()
}

/// A link of the prose, `[text](target)`: the line it starts on (1-based)
/// and its target.
pub struct Link {
    pub line: usize,
    pub target: String,
}

/// The links of `markdown`'s prose (none in code); link text may run over
/// lines.
pub fn links(markdown: &str) -> Vec<Link> {
    let text = prose(markdown);
    let re = harshjudge::regex::Regex::new(r"\[[^\]]*\]\(([^()\s]+)\)").unwrap();
    re.captures_iter(&text)
        .map(|c| Link {
            line: text[..c.get(0).unwrap().start()].matches('\n').count() + 1,
            target: c[1].to_string(),
        })
        .collect()
}

/// The ids of `markdown`'s headings as mdBook 0.5 makes them
/// (`id_from_content`, the same as GitHub's for these headings: lower case,
/// letters, digits, `_` and `-` kept, white space a `-`, the rest dropped;
/// a repeated id gets `-1`, `-2`, …).
pub fn heading_ids(markdown: &str) -> Vec<String> {
    let link = harshjudge::regex::Regex::new(r"\[([^\]]*)\]\([^)]*\)").unwrap();
    let mut ids: Vec<String> = vec![];
    let text = markdown_without_fences(markdown);
    for line in text.lines() {
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let title = link.replace_all(line[hashes..].trim(), "$1");
        let id: String = title
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| !matches!(c, '`' | '*'))
            .filter_map(|c| {
                if c.is_alphanumeric() || c == '_' || c == '-' {
                    Some(c)
                } else if c.is_whitespace() {
                    Some('-')
                } else {
                    None
                }
            })
            .collect();
        let mut unique = id.clone();
        let mut n = 0;
        while ids.contains(&unique) {
            n += 1;
            unique = format!("{id}-{n}");
        }
        ids.push(unique);
    }
    ids
}

/// `markdown` with its fenced blocks' lines emptied (the headings' text keeps
/// its code spans).
fn markdown_without_fences(markdown: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in markdown.lines() {
        let fence = line.trim_start().starts_with("```");
        if !fenced && !fence {
            out.push_str(line);
        }
        out.push('\n');
        if fence {
            fenced = !fenced;
        }
    }
    out
}
