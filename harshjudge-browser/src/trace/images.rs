//! The images of a step's snapshots, kept as the run's resources (D10, D11
//! of docs/design/trace.md). The page names the images a snapshot draws
//! (its `images`: each `<img>`'s `currentSrc`, `srcset` reduced to the one
//! chosen); when the step's trace is kept, each is read back from the
//! browser by the latest request the page's network record kept for its
//! URL ([`PageBackend::resource_request`]): CDP's
//! `Network.getResponseBody`, BiDi's `network.getData` where the remote end
//! added a data collector, none on classic. Never an in-page fetch: the
//! page issues no request of ours. A step that does not keep its trace
//! reads nothing.
//!
//! Fonts and CSS images alike: the page lists the URLs of its readable
//! sheets' `@font-face` rules (`fonts`) and their other `url(…)`s and its
//! `style` attributes' (`cssImages`: backgrounds); those it loaded are
//! kept, the others (never used) left out quietly.
//!
//! `trace-dom.json` gets `images`: URL → the body's SHA-256, or null when
//! it was not recorded (unknown to the record, unreadable, over a bound),
//! and `fonts` alike;
//! the bodies go to `runs/{id}/trace-resources/{sha256}.{ext}`, the
//! extension from the response's MIME type
//! ([`crate::trace::resource_ext`]). Bounds: a body over 8 MiB, or past the
//! 64 MiB of new resources a tracer (one attempt's run) may store, is null,
//! said in `trace.json`'s `limits`; a body is read once per page and
//! request (the latest [`CACHE`] kept across steps).

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use serde::Deserialize;

use super::Tracer;
use super::dom::{Held, Kept};
use crate::backend::PageBackend;
use crate::page::Page;
use crate::trace::ContentHash;

/// One resource's bound (D11).
pub(crate) const RESOURCE_LIMIT: usize = 8 << 20;
/// The new resources a tracer may store, together (D11).
pub(crate) const RUN_LIMIT: u64 = 64 << 20;
/// The image URLs a step reads back, at most.
pub(crate) const MAX_URLS: usize = 256;
/// Bodies remembered across steps, per tracer.
const CACHE: usize = 512;

/// What a step's images came to.
#[derive(Debug, Default)]
pub(crate) struct StepImages {
    /// Each image URL the snapshots draw → its body, none when not recorded.
    pub map: BTreeMap<String, Option<Kept>>,
    /// Each font URL the page loaded → its body, none when not recorded.
    pub fonts: BTreeMap<String, Option<Kept>>,
    /// The bodies this tracer had not stored yet: extension and bytes.
    pub new: Vec<(&'static str, Vec<u8>)>,
    /// What was left out, for `trace.json`'s `limits`.
    pub limits: Vec<String>,
}

/// Why an image was not recorded.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Unread {
    #[error("over the {} MiB a resource may be", RESOURCE_LIMIT >> 20)]
    TooLarge,
    #[error("past the {} MiB of resources a run may store", RUN_LIMIT >> 20)]
    RunFull,
    #[error(
        "not in the page's network record (loaded before the page was traced, from a cache, or among more than {} resources since)",
        crate::steplog::MAX_RESOURCES
    )]
    NotRecorded,
    #[error("no time was left to read it")]
    NoTime,
    #[error("the browser did not give its body: {0}")]
    Browser(crate::error::BrowserError),
}

impl StepImages {
    /// The map of URLs of `kind`: fonts', or images'.
    fn of(&mut self, kind: Kind) -> &mut BTreeMap<String, Option<Kept>> {
        match kind {
            Kind::Font => &mut self.fonts,
            Kind::Image | Kind::CssImage => &mut self.map,
        }
    }
}

/// What a tracer remembers of bodies across steps.
#[derive(Debug, Default)]
pub(crate) struct Fetched {
    /// (page, request id) → what its body came to, the latest last.
    read: VecDeque<((usize, String), Kept)>,
    /// The resources stored so far (by SHA-256) and their bytes together.
    stored: std::collections::HashSet<ContentHash>,
    stored_bytes: u64,
}

impl Fetched {
    fn known(&self, page: usize, request: &str) -> Option<Kept> {
        self.read
            .iter()
            .rev()
            .find(|((p, r), _)| *p == page && r == request)
            .map(|(_, k)| k.clone())
    }

    fn remember(&mut self, page: usize, request: String, kept: Kept) {
        if self.read.len() >= CACHE {
            self.read.pop_front();
        }
        self.read.push_back(((page, request), kept));
    }

    /// Takes `body` (of MIME type `mime`) as a resource within the bounds:
    /// what it is stored as and whether it is new to this tracer, or why
    /// it is not kept.
    fn admit(&mut self, mime: Option<&str>, body: &[u8]) -> Result<(Kept, bool), Unread> {
        if body.len() > RESOURCE_LIMIT {
            return Err(Unread::TooLarge);
        }
        let sha = ContentHash::of(body);
        let kept = Kept {
            sha: sha.clone(),
            ext: crate::trace::resource_ext(mime.unwrap_or("")),
            bytes: body.len(),
        };
        if self.stored.contains(&sha) {
            return Ok((kept, false));
        }
        if self.stored_bytes + body.len() as u64 > RUN_LIMIT {
            return Err(Unread::RunFull);
        }
        self.stored_bytes += body.len() as u64;
        self.stored.insert(sha);
        Ok((kept, true))
    }
}

/// Only the image and font URLs of a snapshot (the rest of its JSON
/// skipped).
#[derive(Deserialize)]
struct Named {
    #[serde(default)]
    images: Vec<String>,
    #[serde(default)]
    fonts: Vec<String>,
    #[serde(default, rename = "cssImages")]
    css_images: Vec<String>,
}

/// What a URL to read back is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// An `<img>`'s: drawn, so one not recorded is said.
    Image,
    /// A `url(…)` of a sheet or a `style` attribute: kept when the page
    /// loaded it (a rule may match nothing).
    CssImage,
    /// An `@font-face` font: kept when the page loaded it.
    Font,
}

/// A URL to read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Want {
    pub url: String,
    pub kind: Kind,
}

/// The image and font URLs the snapshots `held` name, by page, each once,
/// at most [`MAX_URLS`] (http and https only); how many were left out.
pub(crate) fn wanted(held: &[Held]) -> (Vec<(usize, Vec<Want>)>, usize) {
    let mut by_page: Vec<(usize, Vec<Want>)> = Vec::new();
    let (mut count, mut over) = (0, 0);
    for h in held {
        let Ok(named) = serde_json::from_str::<Named>(&h.json) else {
            continue;
        };
        let of = |kind| move |url| Want { url, kind };
        let images = named.images.into_iter().map(of(Kind::Image));
        let css = named.css_images.into_iter().map(of(Kind::CssImage));
        let fonts = named.fonts.into_iter().map(of(Kind::Font));
        for want in images.chain(css).chain(fonts) {
            let url = &want.url;
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                continue;
            }
            let at = match by_page.iter().position(|(p, _)| *p == h.page) {
                Some(at) => at,
                None => {
                    by_page.push((h.page, Vec::new()));
                    by_page.len() - 1
                }
            };
            let urls = &mut by_page[at].1;
            if urls.contains(&want) {
                continue;
            }
            if count >= MAX_URLS {
                over += 1;
                continue;
            }
            count += 1;
            urls.push(want);
        }
    }
    (by_page, over)
}

/// Adds `why` to `step`'s limits, once, at most 32 (a declared secret in
/// an image's URL masked, as in every evidence file).
fn said(step: &mut StepImages, why: String) {
    let why = crate::secrets::mask(&why).into_owned();
    if !step.limits.contains(&why) && step.limits.len() < 32 {
        step.limits.push(why);
    }
}

impl Tracer {
    /// Reads back the images the running step's snapshots draw, from the
    /// browser's record of `pages` (the scenario's), within `limit` in all;
    /// held for the step's trace ([`StepImages`]). Called at the step's
    /// end, when its trace is kept.
    pub(crate) async fn read_images(&self, pages: &[Page], limit: Duration) {
        let (wanted, over) = wanted(&self.state().snapshots.held);
        let until = Instant::now() + limit;
        let mut step = StepImages::default();
        if over > 0 {
            step.limits.push(format!(
                "{over} images not recorded: a step reads back at most {MAX_URLS}"
            ));
        }
        for (n, urls) in wanted {
            let page = pages.iter().find(|p| {
                p.tracer()
                    .is_some_and(|(t, i)| std::ptr::eq(std::sync::Arc::as_ptr(t), self) && *i == n)
            });
            let backend = page.map(Page::backend);
            let refused = match backend.map(|b| b.bodies()) {
                None => Some(format!("p{} is closed", n + 1)),
                Some(Err(why)) => Some(why.to_string()),
                Some(Ok(())) => None,
            };
            let (Some(backend), None) = (backend, &refused) else {
                let why = refused.unwrap_or_default();
                said(
                    &mut step,
                    format!("the images and fonts of p{} are not recorded: {why}", n + 1),
                );
                for Want { url, kind } in urls {
                    step.of(kind).insert(url, None);
                }
                continue;
            };
            for Want { url, kind } in urls {
                let kept = match self.read_one(backend, n, &url, until, &mut step).await {
                    Ok(k) => Some(k),
                    // A font or CSS image the page never loaded: not used.
                    Err(Unread::NotRecorded) if kind != Kind::Image => continue,
                    Err(why) => {
                        let shown: String = url.chars().take(200).collect();
                        let what = if kind == Kind::Font { "font" } else { "image" };
                        said(
                            &mut step,
                            format!("the {what} {shown} of p{} was not recorded: {why}", n + 1),
                        );
                        None
                    }
                };
                step.of(kind).insert(url, kept);
            }
        }
        self.state().images = step;
    }

    /// One image of page `n` at `url`, read back before `until` (a body
    /// new to this tracer joins `step.new`), or why not.
    async fn read_one(
        &self,
        backend: &crate::backend::AnyPage,
        n: usize,
        url: &str,
        until: Instant,
        step: &mut StepImages,
    ) -> Result<Kept, Unread> {
        let rec = backend.resource_request(url).ok_or(Unread::NotRecorded)?;
        let known = self.fetched().known(n, &rec.request);
        if let Some(k) = known {
            return Ok(k);
        }
        let left = until.saturating_duration_since(Instant::now());
        let body = match tokio::time::timeout(left, backend.response_body(&rec.request)).await {
            Err(_) => return Err(Unread::NoTime),
            Ok(Err(e)) => return Err(Unread::Browser(e)),
            Ok(Ok(body)) => body,
        };
        let (kept, new) = self.fetched().admit(rec.mime.as_deref(), &body)?;
        if new {
            step.new.push((kept.ext, body));
        }
        self.fetched().remember(n, rec.request, kept.clone());
        Ok(kept)
    }

    fn fetched(&self) -> std::sync::MutexGuard<'_, Fetched> {
        self.fetched.lock().expect("tracer's bodies lock")
    }
}

#[cfg(test)]
#[path = "images_tests.rs"]
mod tests;
