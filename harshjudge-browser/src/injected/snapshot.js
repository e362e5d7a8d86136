// Every name of this file starts with hjs/HJS_ so that it cannot clash with the
// files concatenated before it (roles.js … generate.js).
//
// DOM snapshots of a trace (docs/design/trace.md D7, D8; stage 3: full
// snapshots, no back-references). A document becomes D8's node form: an element
// is [TAG, {attrs}, ...children] (TAG as `tagName` gives it), a text node its
// string. What the replay needs and the DOM does not say becomes attributes:
// `__hj_value` (inputs, textareas, selects; a password as dots of its length),
// `__hj_checked` / `__hj_selected` = "true" on checked boxes and selected
// options (the markup's `checked` / `selected` left out where the state is
// off), `__hj_scroll` = "top,left" on scrolled elements, `__hj_target` on the
// entry's element, `__hj_frame` = an iframe's index among the document's frames
// (the order `hjsFrames` gives, the one Rust's walk resolves `iframe, frame`
// and nth in). Open shadow roots are `<template __hj_shadow>` first children.
// Left out: script bodies (an empty SCRIPT stays, for :nth-child), `on*`
// attributes, `<meta http-equiv>` CSP and refresh, `<base>`, `<link
// rel=preload|prefetch|modulepreload>`, `<noscript>` children, a canvas's
// pixels and children, an iframe's `srcdoc` (its document is a snapshot of its
// own), `javascript:` URLs (emptied), comments; the page's own `__hj_*`
// attributes (ours are the only ones).
//
// Stylesheets (stage 5): a `<link rel=stylesheet>` whose CSSOM the page may
// read (same-origin, or CORS-allowed) is sent as its rules' `cssText`, one a
// line: the snapshot's `sheets` maps the text's SHA-256 (hex, of its UTF-8)
// to it, and the LINK gets `__hj_sheet` = that hash; Rust checks the hash
// and stores each text once per run (`trace-resources/{sha256}.css`). A
// sheet whose CSSOM is unreadable (cross-origin) keeps its LINK as it is; one
// over HJS_SHEET_LIMIT bytes is not sent, said in the snapshot's `limits`.
//
// Images (stage 5): the snapshot's `images` lists the absolute http(s) URL
// each `<img>` shows (`currentSrc`, so `srcset` and `<picture>` are reduced
// to the one chosen; then `src` is that URL), at most HJS_MAX_IMAGES; Rust
// reads their bodies back from the browser's network record when the trace
// is written (never a fetch of ours). `__hj_size` = "width,height" (CSS px)
// of an `<img>` drawn, so the replay can draw one not recorded as a box of
// its size. Fonts: `fonts` lists the http(s) URLs of the `@font-face` rules
// of each readable sheet (a LINK's, a `<style>`'s), `cssImages` the other
// `url(…)`s of those sheets and of `style` attributes (backgrounds), at
// most HJS_MAX_FONTS each; Rust keeps those the page loaded.

const HJS_LIMIT = 4 * 1024 * 1024;
const HJS_MAX_DEPTH = 256;
const HJS_DROP_LINKS = new Set(['preload', 'prefetch', 'modulepreload']);
const HJS_URL_ATTRS = new Set(['href', 'src', 'action', 'formaction', 'xlink:href', 'data', 'poster', 'background', 'ping', 'codebase', 'cite', 'longdesc', 'manifest']);
const HJS_NO_VALUE = new Set(['checkbox', 'radio', 'file']);
const hjsStringify = JSON.stringify;
const HJS_SHEET_LIMIT = 1024 * 1024;
const HJS_MAX_IMAGES = 256;
const HJS_MAX_FONTS = 64;
// Each sheet's `url(…)`s (its `@font-face` rules', the others'), by its rules' count when read (a rule
// inserted or deleted reads them again; a `<style>` whose text changes has
// a new sheet).
const hjsFontSeen = new WeakMap();
const hjsEncoder = new TextEncoder();
// Each sheet's last text and its hash: a sheet unchanged is not hashed again.
const hjsSheetSeen = new WeakMap();
// SHA-256's round constants and first hash: the first 32 bits of the
// fractional parts of the cube roots of the first 64 primes, and of the
// square roots of the first 8.
const [HJS_K, HJS_H0] = (() => {
  const primes = [];
  for (let p = 2; primes.length < 64; p++) {
    if (primes.every((q) => p % q !== 0)) primes.push(p);
  }
  const frac = (x) => (x - Math.floor(x)) * 4294967296;
  return [Uint32Array.from(primes, (p) => frac(Math.cbrt(p))), Uint32Array.from(primes.slice(0, 8), (p) => frac(Math.sqrt(p)))];
})();

// The SHA-256 of `bytes` (a Uint8Array), as 64 lowercase hex digits.
function hjsSha256(bytes) {
  const blocks = (bytes.length + 9 + 63) >>> 6;
  const buf = new Uint8Array(blocks * 64);
  buf.set(bytes);
  buf[bytes.length] = 0x80;
  const view = new DataView(buf.buffer);
  view.setUint32(buf.length - 8, Math.floor(bytes.length / 0x20000000));
  view.setUint32(buf.length - 4, (bytes.length * 8) >>> 0);
  const h = Uint32Array.from(HJS_H0);
  const w = new Uint32Array(64);
  const rot = (x, n) => (x >>> n) | (x << (32 - n));
  for (let off = 0; off < buf.length; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + i * 4);
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15], b = w[i - 2];
      w[i] = w[i - 16] + (rot(a, 7) ^ rot(a, 18) ^ (a >>> 3)) + w[i - 7] + (rot(b, 17) ^ rot(b, 19) ^ (b >>> 10));
    }
    let [a, b, c, d, e, f, g, k] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (k + (rot(e, 6) ^ rot(e, 11) ^ rot(e, 25)) + ((e & f) ^ (~e & g)) + HJS_K[i] + w[i]) | 0;
      const t2 = ((rot(a, 2) ^ rot(a, 13) ^ rot(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      k = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += k;
  }
  return Array.from(h, (x) => x.toString(16).padStart(8, '0')).join('');
}

function hjsIsSheetLink(el) {
  const rel = (el.getAttribute('rel') || '').toLowerCase().split(/\s+/);
  return rel.includes('stylesheet') && !rel.includes('alternate');
}

// Names the sheet of a `<link rel=stylesheet>` by its text's hash in
// `attrs.__hj_sheet` and puts the text in `st.sheets`, when its CSSOM is
// readable and its text within HJS_SHEET_LIMIT.
function hjsSheet(el, attrs, st) {
  const sheet = el.sheet;
  if (!sheet) return;
  let rules;
  try {
    rules = sheet.cssRules;
  } catch (e) {
    return; // cross-origin: the LINK stays as it is
  }
  const parts = [];
  let length = 0;
  for (const r of Array.from(rules)) {
    const t = r.cssText;
    length += t.length + 1;
    if (length > HJS_SHEET_LIMIT) break;
    parts.push(t);
  }
  const text = hjsText(parts.join('\n'));
  const seen = hjsSheetSeen.get(sheet);
  let sha = seen && seen.text === text ? seen.sha : null;
  if (!sha) {
    const bytes = hjsEncoder.encode(text);
    if (length > HJS_SHEET_LIMIT || bytes.length > HJS_SHEET_LIMIT) {
      st.limits.push('the stylesheet ' + hjsText(sheet.href || attrs.href || '') + ' was not kept: over the ' + (HJS_SHEET_LIMIT >> 20) + ' MiB a stylesheet may be');
      return;
    }
    sha = hjsSha256(bytes);
    hjsSheetSeen.set(sheet, { text, sha });
  }
  attrs.__hj_sheet = sha;
  st.sheets[sha] = text;
}
const HJS_CSS_URL = /url\(\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^)\s"']*))\s*\)/g;

// The absolute http(s) URLs of the `url(…)`s of CSS text `text`, relative
// to `base`.
function hjsCssUrls(text, base) {
  const urls = [];
  if (!text.includes('url(')) return urls;
  for (const m of text.matchAll(HJS_CSS_URL)) {
    try {
      const u = new URL(m[1] ?? m[2] ?? m[3], base).href;
      if (/^https?:/i.test(u)) urls.push(hjsText(u));
    } catch (e) { /* not a URL */ }
  }
  return urls;
}

// Adds the `url(…)`s of a readable `sheet`'s rules to `st.fonts` (those of
// its `@font-face` rules) and `st.cssImages` (the others: backgrounds, …).
function hjsSheetUrls(sheet, st) {
  if (!sheet) return;
  let rules;
  try {
    rules = sheet.cssRules;
  } catch (e) {
    return;
  }
  let seen = hjsFontSeen.get(sheet);
  if (!seen || seen.count !== rules.length) {
    const fonts = [], images = [];
    const base = sheet.href || document.baseURI;
    for (const r of Array.from(rules)) {
      // CSSRule.FONT_FACE_RULE; a grouping rule's text holds its rules'.
      const found = hjsCssUrls(r.cssText, base);
      (r.type === 5 ? fonts : images).push(...found);
    }
    seen = { count: rules.length, fonts, images };
    hjsFontSeen.set(sheet, seen);
  }
  hjsAddAll(st.fonts, seen.fonts, HJS_MAX_FONTS);
  hjsAddAll(st.cssImages, seen.images, HJS_MAX_FONTS);
}

function hjsAddAll(set, urls, max) {
  for (const u of urls) {
    if (set.size >= max) return;
    set.add(u);
  }
}

// Names the URL an `<img>` shows in `st.images` (and in `src` when the
// `srcset` chose another, or a `<base>` moved it), and its drawn size.
function hjsImage(el, attrs, st) {
  const cur = el.currentSrc || el.src || '';
  if (cur && !/^javascript:/i.test(cur)) {
    if (cur !== el.src || document.baseURI !== location.href) attrs.src = hjsText(cur);
    if (/^https?:/i.test(cur) && st.images.size < HJS_MAX_IMAGES) st.images.add(hjsText(cur));
  }
  const w = Math.round(el.offsetWidth), h = Math.round(el.offsetHeight);
  if (w > 0 || h > 0) attrs.__hj_size = w + ',' + h;
}

// The snapshot the running `act` took before acting (its answer's `snapshot`).
let hjsTaken = null;

// A string JSON can carry to Rust: lone surrogates become U+FFFD.
function hjsText(s) {
  s = String(s);
  if (s.toWellFormed) return s.toWellFormed();
  return s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

// The document's frames, in the order Rust's frame walk finds them
// (`iframe, frame` through open shadow roots, then nth).
function hjsFrames() {
  return hjeCssQuery(document, 'iframe, frame');
}

function hjsJavascriptUrl(v) {
  return /^javascript:/i.test(String(v).replace(/[\u0000-\u0020]/g, ''));
}

// Elements the snapshot leaves out entirely.
function hjsLeftOut(el) {
  switch (el.localName) {
    case 'base': return true;
    case 'meta': {
      const h = (el.getAttribute('http-equiv') || '').trim().toLowerCase();
      return h === 'content-security-policy' || h === 'refresh';
    }
    case 'link': {
      const rel = (el.getAttribute('rel') || '').toLowerCase().split(/\s+/);
      return rel.some((r) => HJS_DROP_LINKS.has(r));
    }
  }
  return false;
}

function hjsAttrs(el) {
  const attrs = Object.create(null);
  for (const a of Array.from(el.attributes)) {
    const lower = a.name.toLowerCase();
    if (lower.startsWith('on') || lower.startsWith('__hj_')) continue;
    let v = a.value;
    if (HJS_URL_ATTRS.has(lower) && hjsJavascriptUrl(v)) v = '';
    attrs[hjsText(a.name)] = hjsText(v);
  }
  return attrs;
}

// One node as D8 writes it, or null when it is left out.
function hjsNode(n, st, depth) {
  if (n.nodeType === 3) return hjsText(n.data);
  if (n.nodeType !== 1) return null;
  const el = n;
  if (hjsLeftOut(el)) return null;
  const name = el.localName;
  const attrs = hjsAttrs(el);
  const out = [hjsText(el.tagName), attrs];
  if (attrs.style) hjsAddAll(st.cssImages, hjsCssUrls(attrs.style, document.baseURI), HJS_MAX_FONTS);
  if (el === st.target) attrs.__hj_target = '';
  if (el !== st.scroller && (el.scrollTop || el.scrollLeft)) attrs.__hj_scroll = Math.round(el.scrollTop) + ',' + Math.round(el.scrollLeft);
  const html = el.namespaceURI === 'http://www.w3.org/1999/xhtml';
  if (html) {
    switch (name) {
      case 'script': case 'noscript': case 'canvas':
        return out;
      case 'iframe': case 'frame': {
        delete attrs.srcdoc;
        const i = st.frames.get(el);
        if (i !== undefined) attrs.__hj_frame = String(i);
        return out;
      }
      case 'input': {
        const type = String(el.type).toLowerCase();
        if (type === 'checkbox' || type === 'radio') {
          if (el.checked) attrs.__hj_checked = 'true';
          else delete attrs.checked;
        } else if (type === 'password') {
          // Never the text: dots of its length.
          if ('value' in attrs) attrs.value = '•'.repeat(attrs.value.length);
          attrs.__hj_value = '•'.repeat(el.value.length);
        } else if (!HJS_NO_VALUE.has(type)) {
          attrs.__hj_value = hjsText(el.value);
        }
        break;
      }
      case 'textarea': case 'select':
        attrs.__hj_value = hjsText(el.value);
        break;
      case 'option':
        if (el.selected) attrs.__hj_selected = 'true';
        else delete attrs.selected;
        break;
      case 'link':
        if (hjsIsSheetLink(el)) {
          hjsSheet(el, attrs, st);
          hjsSheetUrls(el.sheet, st);
        }
        break;
      case 'style':
        hjsSheetUrls(el.sheet, st);
        break;
      case 'img':
        hjsImage(el, attrs, st);
        break;
    }
  }
  if (depth >= HJS_MAX_DEPTH) { st.cut++; return out; }
  if (el.shadowRoot) {
    const shadow = ['TEMPLATE', { __hj_shadow: '' }];
    for (const c of el.shadowRoot.childNodes) {
      const s = hjsNode(c, st, depth + 1);
      if (s !== null) shadow.push(s);
    }
    out.push(shadow);
  }
  const kids = html && name === 'template' ? el.content.childNodes : el.childNodes;
  for (const c of kids) {
    const s = hjsNode(c, st, depth + 1);
    if (s !== null) out.push(s);
  }
  return out;
}

// The snapshot of this document: {json, frames, doc}. `json` is the text of
// {url, viewport, scroll, doctype, html} (or {omitted} past 4 MiB, {error} when
// the page could not be read), `frames` how many frames the document has,
// `doc` this document's token. `target`: the element marked `__hj_target`;
// `skip`: a document token whose snapshot was taken already (answered
// without `json`).
function hjsSnapshot(target, skip) {
  const frames = hjsFrames();
  if (skip && skip === HJT_DOC) return { json: null, frames: frames.length, doc: HJT_DOC };
  let json;
  try {
    const st = { target: target || null, frames: new Map(frames.map((f, i) => [f, i])), scroller: document.scrollingElement, cut: 0, sheets: Object.create(null), limits: [], images: new Set(), fonts: new Set(), cssImages: new Set() };
    const snap = {
      url: hjsText(location.href),
      viewport: { width: innerWidth, height: innerHeight },
      scroll: [Math.round(scrollX), Math.round(scrollY)],
      doctype: document.doctype ? hjsText(document.doctype.name) : null,
      html: document.documentElement ? hjsNode(document.documentElement, st, 0) : null,
    };
    if (st.cut) snap.cut = 'elements deeper than ' + HJS_MAX_DEPTH + ' levels left out: ' + st.cut;
    if (Object.keys(st.sheets).length) snap.sheets = st.sheets;
    if (st.images.size) snap.images = Array.from(st.images);
    if (st.fonts.size) snap.fonts = Array.from(st.fonts);
    if (st.cssImages.size) snap.cssImages = Array.from(st.cssImages);
    if (st.limits.length) snap.limits = st.limits.slice(0, 32);
    json = hjsStringify(snap);
  } catch (e) {
    json = hjsStringify({ error: 'the document could not be read: ' + hjsText(e && e.message || e) });
  }
  if (json.length > HJS_LIMIT) json = hjsStringify({ omitted: (json.length / 1048576).toFixed(1) + ' MiB, over the 4 MiB limit' });
  return { json, frames: frames.length, doc: HJT_DOC };
}
