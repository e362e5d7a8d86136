//! Answering: [`KnowledgeStore::search`] and [`KnowledgeStore::similar`].

use super::index::{Filter, FxMap, Index, NONE, Postings, Scratch, TopK};
use super::records::{Hit, Outcome, PageState, Scope, SearchQuery, SearchResult, StepRecord};
use super::scoring::{
    F_TITLE, FIELDS, SIM_PATH, SIM_TEST_IDS, SIM_TITLE, SIM_TOOL, W_MAX, best_weight, dice,
    page_tokens, round_down, step_tokens,
};
use super::store::KnowledgeStore;
use super::tokenizer::{page_path, tokenize};
use super::{MAX_LIMIT, MAX_QUERY_TOKENS, MAX_TEST_IDS};
use harshjudge_store::store::Store;
use std::fs::File;
use std::io;
use std::io::{Read, Seek, SeekFrom};

impl KnowledgeStore {
    /// The steps matching `q`, best first.
    ///
    /// The query is tokenized like the steps ([`tokenize`]; its first
    /// [`MAX_QUERY_TOKENS`] distinct tokens count). Each field of a step has a
    /// weight: tool 1.0, args 1.0, error 0.8, url 0.7, testIds 0.7, title 0.6,
    /// text 0.4. For a query of `n` tokens,
    ///
    /// `confidence = Σ over query tokens t of (weight of the strongest field containing t) / n`
    ///
    /// (0 for a token found nowhere): 1 exactly when every query token is in
    /// the tool name or the arguments, never more. Ties go to the newer step.
    /// Filters (scope, tool, outcome, url) are applied before scoring; at most
    /// [`MAX_CANDIDATES`](super::MAX_CANDIDATES) steps are looked at (see the module's "Answering").
    pub fn search(&self, q: &SearchQuery) -> io::Result<SearchResult> {
        let mut g = self.lock();
        let (idx, scratch, built) = self.fresh(&mut g)?;
        let mut tokens: Vec<String> = Vec::new();
        for t in tokenize(&q.query) {
            if !tokens.contains(&t) && tokens.len() < MAX_QUERY_TOKENS {
                tokens.push(t);
            }
        }
        let session = self.scope_session(idx, q.scope);
        let mut result = SearchResult {
            hits: Vec::new(),
            scanned: 0,
            total: idx.total(session),
            index_built_ms: built,
        };
        let Some(filter) = filter(idx, session, q) else {
            return Ok(result);
        };
        let k = q.limit.min(MAX_LIMIT);
        if tokens.is_empty() || k == 0 {
            return Ok(result);
        }
        scratch.reset(idx.steps.len(), idx.pages.len());
        // A step's score is Σ over tokens of max(weight in its own fields,
        // weight on its page) = Σ page weights + Σ max(0, own − page): pages
        // are scored once, and a step only where its own fields add to that.
        // Rarest tokens first, so that they come first in `steps_touched`.
        let mut lists: Vec<&Postings> = tokens
            .iter()
            .filter_map(|t| idx.tokens.get(t))
            .map(|id| &idx.postings[id as usize])
            .collect();
        lists.sort_by_key(|p| p.steps.len() + p.pages.len());
        for p in lists {
            for (&pg, &mask) in p.pages.iter().zip(&p.page_fields) {
                let w = best_weight(mask);
                let fresh = scratch.page_points[pg as usize] == 0;
                scratch.page_points[pg as usize] += w;
                scratch.page_token[pg as usize] = w as u8;
                scratch.touch_page(pg, fresh);
            }
            for (&s, &mask) in p.steps.iter().zip(&p.step_fields).rev() {
                let page = idx.steps[s as usize].page;
                let own = best_weight(mask);
                let on_page = u32::from(scratch.page_token[page as usize]);
                if own > on_page {
                    let e = &mut scratch.step_extra[s as usize];
                    if *e == 0 {
                        scratch.steps_touched.push(s);
                    }
                    *e += own - on_page;
                }
            }
            for &pg in &p.pages {
                scratch.page_token[pg as usize] = 0;
            }
        }
        let mut top = TopK::new(k);
        // Steps whose own fields matched.
        for &s in &scratch.steps_touched {
            if top.full_scan() {
                break;
            }
            top.looked += 1;
            let m = &idx.steps[s as usize];
            if filter.pass(idx, m) {
                let score = scratch.page_points[m.page as usize] + scratch.step_extra[s as usize];
                top.push(idx, s, score);
            }
        }
        // The other steps of a page all score the page's points: best pages
        // first, and of each page only its newest `k` steps can make it.
        let mut by_points: Vec<Vec<u32>> = Vec::new();
        for &pg in &scratch.pages_touched {
            let pts = scratch.page_points[pg as usize] as usize;
            if by_points.len() <= pts {
                by_points.resize_with(pts + 1, Vec::new);
            }
            by_points[pts].push(pg);
        }
        'pages: for (pts, pages) in by_points.iter_mut().enumerate().rev() {
            if pts == 0 || top.closed_below(pts as u32) {
                break;
            }
            pages.sort_unstable_by(|a, b| b.cmp(a));
            for &pg in pages.iter() {
                let mut taken = 0;
                for &s in idx.pages[pg as usize].steps.iter().rev() {
                    if scratch.step_extra[s as usize] > 0 {
                        continue; // scored above
                    }
                    if top.full_scan() {
                        break 'pages;
                    }
                    top.looked += 1;
                    if filter.pass(idx, &idx.steps[s as usize]) {
                        top.push(idx, s, pts as u32);
                        taken += 1;
                        if taken >= k {
                            break;
                        }
                    }
                }
            }
        }
        result.scanned = top.scored;
        let denom = (W_MAX as usize * tokens.len()) as f64;
        let best = top.into_sorted();
        result.hits = load(&self.root, idx, &best, |step| {
            let mut found: FxMap<String, u8> = FxMap::default();
            let mut note = |bit: u8, t: &str| {
                if tokens.iter().any(|q| q == t) {
                    *found.entry(t.to_string()).or_default() |= bit;
                }
            };
            step_tokens(step, &mut note);
            page_tokens(&step.observation, &mut note);
            let mut out = Vec::new();
            for (bit, name, _) in FIELDS {
                for t in &tokens {
                    if found.get(t).is_some_and(|m| m & bit != 0) {
                        out.push(format!("{name}:{t}"));
                    }
                }
            }
            out
        })
        .into_iter()
        .map(|(_, score, step, matched)| Hit {
            confidence: round_down(f64::from(score) / denom),
            matched,
            step,
        })
        .collect();
        Ok(result)
    }

    pub(super) fn scope_session(&self, idx: &Index, scope: Scope) -> Option<u32> {
        match scope {
            Scope::All => None,
            Scope::Session => Some(idx.sessions.get(&self.session).unwrap_or(NONE)),
        }
    }

    /// The steps taken on pages like `state`, best first.
    ///
    /// A step scores, for each part of `state` that is given: same page path
    /// (see [`page_path`]: host, query and ids in the path ignored) 8; test
    /// ids 6 × the Dice overlap of the two sets (2·shared / (|state| + |step's|));
    /// title 3 × the Dice overlap of their tokens; same tool 2.
    /// `confidence = score / (sum of the weights of the parts given)`, so a
    /// step recorded on an identical state scores exactly 1 and nothing more.
    /// Ties go to the newer step. Pages are scored first, then their steps
    /// are looked at best page first (at most [`MAX_CANDIDATES`](super::MAX_CANDIDATES)); with a
    /// tool, steps of that tool on pages that share nothing come last.
    /// `limit` is capped at [`MAX_LIMIT`].
    pub fn similar(
        &self,
        state: &PageState,
        limit: usize,
        scope: Scope,
    ) -> io::Result<SearchResult> {
        let mut g = self.lock();
        let (idx, scratch, built) = self.fresh(&mut g)?;
        let session = self.scope_session(idx, scope);
        let mut result = SearchResult {
            hits: Vec::new(),
            scanned: 0,
            total: idx.total(session),
            index_built_ms: built,
        };
        let filter = Filter {
            session,
            tool: None,
            ok: None,
            urls: None,
        };
        let probe = Probe::new(state);
        let k = limit.min(MAX_LIMIT);
        if probe.max == 0.0 || k == 0 {
            return Ok(result);
        }
        scratch.reset(idx.steps.len(), idx.pages.len());
        let pages = probe.score_pages(idx, scratch);
        let tool_id = probe.tool.as_deref().and_then(|t| idx.tools.get(t));
        let rank = Ranking {
            idx,
            probe: &probe,
            page_score: &scratch.page_score,
            tool_id,
            filter: &filter,
            k,
        };
        let mut top = TopK::new(k);
        rank.walk_pages(&pages, &mut top);
        rank.walk_tool_steps(&mut top);
        result.scanned = top.scored;
        let best = top.into_sorted();
        result.hits = load(&self.root, idx, &best, |step| {
            similar_matched(
                step,
                probe.path.as_deref(),
                &probe.ids,
                &probe.title,
                probe.tool.as_deref(),
            )
        })
        .into_iter()
        .map(|(s, _, step, matched)| Hit {
            confidence: round_down(rank.exact(s)),
            matched,
            step,
        })
        .collect();
        Ok(result)
    }
}

/// The page state of a `similar` call, normalised: its path, sorted distinct
/// test ids and title tokens, lower-case tool, and the most a step can score.
struct Probe<'a> {
    path: Option<String>,
    ids: Vec<&'a str>,
    title: Vec<String>,
    tool: Option<String>,
    max: f64,
}

impl<'a> Probe<'a> {
    fn new(state: &'a PageState) -> Probe<'a> {
        let path = state
            .url
            .as_deref()
            .filter(|u| !u.trim().is_empty())
            .map(page_path);
        let mut ids: Vec<&str> = state
            .test_ids
            .iter()
            .map(String::as_str)
            .filter(|t| !t.is_empty())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids.truncate(MAX_TEST_IDS);
        let mut title: Vec<String> = state.title.as_deref().map(tokenize).unwrap_or_default();
        title.sort_unstable();
        title.dedup();
        let tool = state
            .tool
            .as_deref()
            .filter(|t| !t.is_empty())
            .map(str::to_lowercase);
        // The most a step can score: the weights of the parts given, added in
        // the same order as a step's score.
        let mut max = 0.0;
        if path.is_some() {
            max += SIM_PATH;
        }
        if !ids.is_empty() {
            max += SIM_TEST_IDS;
        }
        if !title.is_empty() {
            max += SIM_TITLE;
        }
        if tool.is_some() {
            max += SIM_TOOL;
        }
        Probe {
            path,
            ids,
            title,
            tool,
            max,
        }
    }

    /// Scores every page that shares something with the probe (into
    /// `scratch.page_score`); returns those scoring above 0, best first.
    fn score_pages(&self, idx: &Index, scratch: &mut Scratch) -> Vec<(u32, f64)> {
        let bump = |scratch: &mut Scratch, pg: u32, slot: usize| {
            let e = &mut scratch.page_sim[pg as usize];
            let fresh = *e == [0; 3];
            e[slot] = e[slot].saturating_add(1);
            scratch.touch_page(pg, fresh);
        };
        if let Some(list) = self
            .path
            .as_deref()
            .and_then(|p| idx.paths.get(p))
            .and_then(|p| idx.path_pages.get(p as usize))
        {
            for &pg in list {
                bump(scratch, pg, 2);
            }
        }
        for t in &self.ids {
            if let Some(list) = idx
                .test_ids
                .get(t)
                .and_then(|t| idx.test_id_pages.get(t as usize))
            {
                for &pg in list {
                    bump(scratch, pg, 0);
                }
            }
        }
        for t in &self.title {
            if let Some(p) = idx.tokens.get(t).map(|t| &idx.postings[t as usize]) {
                for (&pg, &mask) in p.pages.iter().zip(&p.page_fields) {
                    if mask & F_TITLE != 0 {
                        bump(scratch, pg, 1);
                    }
                }
            }
        }
        let mut pages: Vec<(u32, f64)> = Vec::with_capacity(scratch.pages_touched.len());
        for &pg in &scratch.pages_touched {
            let e = &idx.pages[pg as usize];
            let [shared_ids, shared_words, same_path] = scratch.page_sim[pg as usize];
            let mut score = 0.0;
            if self.path.is_some() && same_path > 0 {
                score += SIM_PATH;
            }
            if !self.ids.is_empty() {
                score +=
                    SIM_TEST_IDS * dice(shared_ids as usize, self.ids.len(), e.n_test_ids as usize);
            }
            if !self.title.is_empty() {
                score +=
                    SIM_TITLE * dice(shared_words as usize, self.title.len(), e.n_title as usize);
            }
            scratch.page_score[pg as usize] = score;
            if score > 0.0 {
                pages.push((pg, score));
            }
        }
        pages.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
        pages
    }
}

/// The step walk of a `similar` call, once its pages are scored. Steps are
/// ranked on millionths of the probe's `max`, and reported exactly.
struct Ranking<'a> {
    idx: &'a Index,
    probe: &'a Probe<'a>,
    page_score: &'a [f64],
    tool_id: Option<u32>,
    filter: &'a Filter,
    k: usize,
}

impl Ranking<'_> {
    /// A step's confidence: its page's score, plus the tool's weight when it
    /// is a step of the probe's tool, over the probe's `max`.
    fn exact(&self, s: u32) -> f64 {
        let m = &self.idx.steps[s as usize];
        let mut score = self.page_score[m.page as usize];
        if self.probe.tool.is_some() && self.tool_id == Some(m.tool) {
            score += SIM_TOOL;
        }
        (score / self.probe.max).min(1.0)
    }

    fn ticks(c: f64) -> u32 {
        (c * 1_000_000.0).round() as u32
    }

    /// Steps of the scored pages, best page first: of each page its newest
    /// `k` steps (and its newest `k` of the probe's tool).
    fn walk_pages(&self, pages: &[(u32, f64)], top: &mut TopK) {
        let idx = self.idx;
        let bonus = if self.tool_id.is_some() {
            SIM_TOOL
        } else {
            0.0
        };
        for &(pg, score) in pages {
            if top.closed_below(Self::ticks(((score + bonus) / self.probe.max).min(1.0))) {
                break;
            }
            let (mut plain, mut with_tool) = (0, 0);
            for &s in idx.pages[pg as usize].steps.iter().rev() {
                if top.full_scan() {
                    return;
                }
                top.looked += 1;
                let m = &idx.steps[s as usize];
                if !self.filter.pass(idx, m) {
                    continue;
                }
                let taken = if self.tool_id == Some(m.tool) {
                    &mut with_tool
                } else {
                    &mut plain
                };
                if *taken < self.k {
                    *taken += 1;
                    top.push(idx, s, Self::ticks(self.exact(s)));
                }
                if plain >= self.k && (self.tool_id.is_none() || with_tool >= self.k) {
                    break;
                }
            }
        }
    }

    /// Last, steps of the probe's tool on pages that share nothing with it.
    fn walk_tool_steps(&self, top: &mut TopK) {
        let idx = self.idx;
        let Some(list) = self.tool_id.and_then(|t| idx.tool_steps.get(t as usize)) else {
            return;
        };
        if top.closed_below(Self::ticks(SIM_TOOL / self.probe.max)) {
            return;
        }
        let mut taken = 0;
        for &s in list.iter().rev() {
            let m = &idx.steps[s as usize];
            if self.page_score[m.page as usize] > 0.0 {
                continue; // its page was looked at above
            }
            if top.full_scan() || taken >= self.k {
                break;
            }
            top.looked += 1;
            if self.filter.pass(idx, m) {
                top.push(idx, s, Self::ticks(self.exact(s)));
                taken += 1;
            }
        }
    }
}

/// The filter of a search; `None` when nothing can pass (an unknown tool).
pub(super) fn filter(idx: &Index, session: Option<u32>, q: &SearchQuery) -> Option<Filter> {
    let tool = match q.tool.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        None => None,
        Some(t) => Some(idx.tools.get(&t.to_lowercase())?),
    };
    let urls = q
        .url
        .as_deref()
        .map(str::trim)
        .filter(|u| !u.is_empty())
        .map(|u| {
            let u = u.to_lowercase();
            idx.urls.names.iter().map(|x| x.contains(&u)).collect()
        });
    Some(Filter {
        session,
        tool,
        ok: q.outcome.map(|o| o == Outcome::Ok),
        urls,
    })
}

/// Reads the records of `top` back from their files (a record that can no
/// longer be read is left out) with what matched.
pub(super) fn load(
    root: &Store,
    idx: &Index,
    top: &[(u32, u32)],
    mut matched: impl FnMut(&StepRecord) -> Vec<String>,
) -> Vec<(u32, u32, StepRecord, Vec<String>)> {
    let mut open: FxMap<u32, Option<File>> = FxMap::default();
    let mut out = Vec::with_capacity(top.len());
    for &(s, score) in top {
        let m = &idx.steps[s as usize];
        let file = open
            .entry(m.file)
            .or_insert_with(|| root.open_file(&idx.files[m.file as usize].path).ok());
        let Some(file) = file else { continue };
        let mut buf = vec![0u8; m.len as usize];
        if file.seek(SeekFrom::Start(m.offset)).is_err() || file.read_exact(&mut buf).is_err() {
            continue;
        }
        let Ok(step) = serde_json::from_slice::<StepRecord>(&buf) else {
            continue;
        };
        let why = matched(&step);
        out.push((s, score, step, why));
    }
    out
}

/// What a step shares with the state of a `similar` call.
pub(super) fn similar_matched(
    step: &StepRecord,
    path: Option<&str>,
    ids: &[&str],
    title: &[String],
    tool: Option<&str>,
) -> Vec<String> {
    let o = &step.observation;
    let mut out = Vec::new();
    if let (Some(p), Some(u)) = (path, &o.url)
        && page_path(u) == p
    {
        out.push(format!("url:{p}"));
    }
    if !ids.is_empty() {
        let shared = ids
            .iter()
            .filter(|t| o.test_ids.iter().any(|x| x == *t))
            .count();
        if shared > 0 {
            out.push(format!("testIds:{shared}/{}", ids.len()));
        }
    }
    if !title.is_empty() {
        let theirs = o.title.as_deref().map(tokenize).unwrap_or_default();
        for t in title {
            if theirs.contains(t) {
                out.push(format!("title:{t}"));
            }
        }
    }
    if let Some(t) = tool
        && step.tool.eq_ignore_ascii_case(t)
    {
        out.push(format!("tool:{}", step.tool));
    }
    out
}
