//! The fenced code blocks of a Markdown file (README.md), for the tests that
//! compile and build what it shows (tests/readme.rs, tests/package.rs).
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
        .unwrap_or_else(|| panic!("README.md no longer says {marker:?}"))
        + 1;
    blocks
        .iter()
        .find(|b| b.fence > line && b.lang() == lang)
        .unwrap_or_else(|| panic!("no ```{lang} block after {marker:?}"))
}
