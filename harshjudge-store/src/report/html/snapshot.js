// The snapshot renderer (issue 39, D16 of docs/design/trace.md): a DOM
// snapshot of trace-dom.json (D8's format) rebuilt as an HTML document, for an
// `<iframe sandbox="allow-scripts" srcdoc=…>` (never `allow-same-origin`).
// Every name of this file starts with hjr/HJR_.
//
// hjrRender(snapshots, index, resources) → html: `snapshots` is
// trace-dom.json's list (or the file's object); `index` the snapshot to show;
// `resources` maps a resource's SHA-256 (or its absolute URL) to a `data:`
// URL; the file's `images` (an image URL → its resource's SHA-256, or null)
// names the step's images, its `fonts` the fonts its sheets load. An `<img>` none is recorded for keeps its URL in
// `__hj_missing`, is titled "image not recorded: {url}" and drawn as a
// hatched box of the size it had (`__hj_size`). A node is a text (a string), `[[back, n]]` (node n, counted in
// post-order without references, of the snapshot `back` snapshots earlier of
// the same frame: same `page` and `frame`), or `[TAG, {attrs}, ...children]`.
//
// Offline and inert by construction:
// - first in <head>: a Content-Security-Policy with a random nonce (no
//   script but ours runs; only data: images, fonts and sheets load);
// - no URL of the page is written: `src`, a sheet's `href`, `poster`, CSS
//   `url(…)`… become the resource's data: URL when `resources` has it, else
//   nothing (`data:,` in CSS); `srcset`, `@import`, `<base>`, `<meta
//   http-equiv>`, `on*` attributes and script bodies are dropped;
// - every text and attribute value is escaped, attribute and tag names not
//   made of name characters are dropped, and a child frame is a nested
//   `srcdoc` (escaped) with the same sandbox and the same nonce (a srcdoc
//   document inherits its parent's CSP, so it must be the same one).
// Ours, the one nonced script: restores `__hj_value`, `__hj_checked`,
// `__hj_selected` as properties, `__hj_scroll` ("top,left") positions,
// shadow roots of `<template __hj_shadow>` the parser did not attach (it
// attaches them as declarative shadow roots first), outlines the target in
// shadow roots too, scrolls the target into view when it is off-screen, and
// keeps links and forms from navigating the frame.
//
// A child frame: an iframe's `__hj_frame` = k names the snapshot of the same
// moment (same `page`, `entry`, `moment`) whose `parentFrame` is this
// snapshot's `frame` and whose `frameIndex` is k; when the moment's children
// carry no `frameIndex` (older files), the k-th of them in list order.

const HJR_MAX_NODES = 400000;
const HJR_MAX_DEPTH = 800;
const HJR_MAX_FRAME_DEPTH = 8;
const HJR_OUTLINE = '[__hj_target] { outline: 2px solid #e5484d !important; outline-offset: 1px }';
// An image whose bytes were not recorded: a hatched box (its URL in
// `__hj_missing`).
const HJR_MISSING = 'img[__hj_missing] { display: inline-block; background: repeating-linear-gradient(45deg, #d0d7de 0 4px, #f6f8fa 4px 8px) }';
const HJR_VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'keygen', 'link',
  'meta', 'param', 'source', 'track', 'wbr']);
// Elements whose children the HTML parser reads as text: only their text
// children are written, escaped (entities are decoded in RCDATA, and an
// escaped raw text cannot close its element).
const HJR_TEXT_ONLY = new Set(['textarea', 'title', 'xmp', 'noembed', 'noframes', 'iframe', 'frame']);
// Attributes that make the browser fetch (or navigate to) a URL.
const HJR_FETCHING = new Set(['src', 'poster', 'background', 'lowsrc', 'dynsrc', 'codebase', 'archive',
  'icon']);
// Attributes whose value is CSS (SVG's presentation attributes may name an
// external document with url(…)).
const HJR_CSS_ATTRS = new Set(['style', 'fill', 'stroke', 'filter', 'mask', 'clip-path', 'marker-start',
  'marker-mid', 'marker-end', 'cursor']);
// Past this many characters written, a render stops (references can repeat a
// subtree many times).
const HJR_MAX_CHARS = 64 * 1024 * 1024;
const HJR_DROPPED = new Set(['srcset', 'imagesrcset', 'imagesizes', 'srcdoc', 'sandbox', 'allow', 'csp',
  'manifest', 'ping', 'attributionsrc', 'action', 'formaction', 'nonce', 'integrity', 'http-equiv',
  'shadowrootmode', 'shadowroot', 'shadowrootdelegatesfocus', 'shadowrootclonable',
  'shadowrootserializable']);
const HJR_TAG = /^[A-Za-z][A-Za-z0-9._-]*(?::[A-Za-z][A-Za-z0-9._-]*)?$/;
const HJR_ATTR = /^[^\s"'<>/=\u0000-\u001f\u007f]{1,200}$/;

function hjrRender(snapshots, index, resources) {
  const list = Array.isArray(snapshots) ? snapshots
    : (snapshots && Array.isArray(snapshots.snapshots) ? snapshots.snapshots : []);
  const ctx = {
    list,
    res: resources && typeof resources === 'object' ? resources : {},
    images: hjrUrlMap(snapshots, 'images'),
    fonts: hjrUrlMap(snapshots, 'fonts'),
    nonce: hjrNonce(),
    budget: HJR_MAX_NODES,
    room: HJR_MAX_CHARS,
    nodes: new Map(),
    frames: hjrFrames(list),
  };
  try {
    return hjrDocument(ctx, Number(index), 0);
  } catch (e) {
    return hjrNotice(ctx, 'snapshot not rendered: ' + e);
  }
}

function hjrNonce() {
  const bytes = new Uint8Array(18);
  if (globalThis.crypto && crypto.getRandomValues) crypto.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function hjrOwn(o, k) {
  return o && typeof o === 'object' && Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined;
}

function hjrSnap(ctx, i) {
  const s = Number.isInteger(i) && i >= 0 && i < ctx.list.length ? ctx.list[i] : null;
  return s && typeof s === 'object' && !Array.isArray(s) ? s : null;
}

function hjrFrameKey(s) {
  return JSON.stringify([String(hjrOwn(s, 'page') ?? ''), String(hjrOwn(s, 'frame') ?? 0)]);
}

// Per snapshot: its frame's snapshots in order and its place among them.
function hjrFrames(list) {
  const byKey = new Map();
  const place = [];
  list.forEach((s, i) => {
    const key = hjrFrameKey(s && typeof s === 'object' ? s : {});
    if (!byKey.has(key)) byKey.set(key, []);
    const of = byKey.get(key);
    place[i] = { of, at: of.length };
    of.push(i);
  });
  return place;
}

// A field of snapshot i, else of the latest earlier snapshot of its frame
// that has it (an incremental snapshot may carry only `html`).
function hjrField(ctx, i, name) {
  const p = ctx.frames[i];
  if (!p) return undefined;
  for (let k = p.at; k >= 0; k--) {
    const v = hjrOwn(hjrSnap(ctx, p.of[k]), name);
    if (v !== undefined && v !== null) return v;
  }
  return undefined;
}

// The nodes of snapshot i's own tree in post-order (references not counted).
function hjrNodes(ctx, i) {
  if (ctx.nodes.has(i)) return ctx.nodes.get(i);
  const out = [];
  const root = hjrOwn(hjrSnap(ctx, i), 'html');
  const stack = [[root, 2]];
  while (stack.length && out.length < HJR_MAX_NODES) {
    const top = stack[stack.length - 1];
    const n = top[0];
    if (typeof n === 'string') { out.push(n); stack.pop(); continue; }
    if (!hjrIsElement(n)) { stack.pop(); continue; }
    if (top[1] < n.length && stack.length < HJR_MAX_DEPTH) {
      stack.push([n[top[1]++], 2]);
    } else {
      out.push(n);
      stack.pop();
    }
  }
  ctx.nodes.set(i, out);
  return out;
}

function hjrIsElement(n) {
  return Array.isArray(n) && typeof n[0] === 'string';
}

function hjrIsRef(n) {
  return Array.isArray(n) && n.length === 1 && Array.isArray(n[0]);
}

// A node with references followed: [node, the snapshot its own references
// are relative to], or null when it names nothing.
function hjrDeref(ctx, n, i) {
  for (let hops = 0; hjrIsRef(n); hops++) {
    const back = n[0][0];
    const at = n[0][1];
    const p = ctx.frames[i];
    if (hops > 64 || !p || !Number.isInteger(back) || back < 1 || back > p.at || !Number.isInteger(at)) return null;
    i = p.of[p.at - back];
    const nodes = hjrNodes(ctx, i);
    if (at < 0 || at >= nodes.length) return null;
    n = nodes[at];
  }
  return typeof n === 'string' || hjrIsElement(n) ? [n, i] : null;
}

function hjrText(s) {
  return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function hjrAttrValue(s) {
  return hjrText(s).replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

// A placeholder document: what there is instead of a snapshot.
function hjrNotice(ctx, text) {
  return '<!DOCTYPE html><html><head>' + hjrHead(ctx, null) + '</head><body><p __hj_notice>'
    + hjrText(text) + '</p></body></html>';
}

function hjrHead(ctx, scroll) {
  const csp = "default-src 'none'; script-src 'nonce-" + ctx.nonce + "'; style-src 'unsafe-inline' data:; "
    + "img-src data:; font-src data:; media-src data:; frame-src about:";
  return '<meta http-equiv="Content-Security-Policy" content="' + hjrAttrValue(csp) + '">'
    + '<script nonce="' + ctx.nonce + '">' + hjrScript(scroll) + '<\/script>'
    + '<style>' + HJR_OUTLINE + ' ' + HJR_MISSING + '</style>';
}

// The document of snapshot i (`depth`: how deep a frame it is).
function hjrDocument(ctx, i, depth) {
  const s = hjrSnap(ctx, i);
  if (!s) return hjrNotice(ctx, 'no snapshot ' + i);
  if (hjrOwn(s, 'omitted') !== undefined) return hjrNotice(ctx, 'snapshot omitted: ' + hjrOwn(s, 'omitted'));
  if (hjrOwn(s, 'error') !== undefined) return hjrNotice(ctx, 'snapshot failed: ' + hjrOwn(s, 'error'));
  const root = hjrDeref(ctx, hjrOwn(s, 'html'), i);
  if (!root) return hjrNotice(ctx, 'snapshot ' + i + ' has no document');
  const doc = { i, depth, url: hjrField(ctx, i, 'url'), out: [] };
  const doctype = hjrField(ctx, i, 'doctype');
  if (typeof doctype === 'string' && doctype) hjrPut(ctx, doc, '<!DOCTYPE ' + doctype.replace(/[^A-Za-z0-9 ._:/"'-]/g, '') + '>');
  let [html, at] = root;
  let rest = [];
  if (hjrIsElement(html) && html[0].toLowerCase() === 'html') {
    hjrPut(ctx, doc, '<html' + hjrAttrs(ctx, doc, 'html', html[1]) + '>');
    rest = html.slice(2).map((c) => [c, at]);
  } else {
    hjrPut(ctx, doc, '<html>');
    rest = [[html, at]];
  }
  // Our head first: the head's own children follow ours, in its element.
  let head = null;
  for (let k = 0; k < rest.length && !head; k++) {
    const d = hjrDeref(ctx, rest[k][0], rest[k][1]);
    if (d && hjrIsElement(d[0]) && d[0][0].toLowerCase() === 'head') {
      head = d;
      rest.splice(k, 1);
    }
  }
  const scroll = hjrField(ctx, i, 'scroll');
  hjrPut(ctx, doc, '<head' + (head ? hjrAttrs(ctx, doc, 'head', head[0][1]) : '') + '>' + hjrHead(ctx, scroll));
  if (head) for (const c of head[0].slice(2)) hjrNode(ctx, doc, c, head[1], 1, false);
  // The document's adopted sheets: our script adopts them (after every sheet
  // of the document, as they were).
  const adopted = hjrField(ctx, i, 'adopted');
  for (const name of Array.isArray(adopted) ? adopted : []) {
    const text = hjrSheetText(ctx, name);
    if (text != null) hjrPut(ctx, doc, '<style __hj_adopted="">' + hjrStyleText(hjrCss(ctx, doc, text, doc.url), false) + '</style>');
  }
  hjrPut(ctx, doc, '</head>');
  for (const [c, from] of rest) hjrNode(ctx, doc, c, from, 1, false);
  if (ctx.budget <= 0) hjrPut(ctx, doc, '<p __hj_notice>snapshot cut: over ' + HJR_MAX_NODES + ' nodes</p>');
  hjrPut(ctx, doc, '</html>');
  return doc.out.join('');
}

function hjrPut(ctx, doc, s) {
  doc.out.push(s);
  ctx.room -= s.length;
  if (ctx.room < 0) ctx.budget = 0;
}

// Writes node n (its references relative to snapshot `from`) into doc.
// `foreign`: inside <svg> or <math>, where the parser decodes entities in a
// <style>'s text (so it is escaped there, and written raw only in HTML).
function hjrNode(ctx, doc, n, from, depth, foreign) {
  const d = hjrDeref(ctx, n, from);
  if (!d || ctx.budget <= 0 || depth > HJR_MAX_DEPTH) return;
  ctx.budget--;
  const [node, at] = d;
  if (typeof node === 'string') { hjrPut(ctx, doc, hjrText(node)); return; }
  const tag = node[0];
  if (!HJR_TAG.test(tag)) return;
  // <plaintext> would swallow the rest of the document.
  const name = tag.toLowerCase() === 'plaintext' ? 'pre' : tag;
  const t = name.toLowerCase();
  const attrs = node[1];
  if (t === 'base' || (t === 'meta' && Object.keys(attrs || {}).some((k) => k.toLowerCase() === 'http-equiv'))) return;
  if (t === 'script') { hjrPut(ctx, doc, '<script><\/script>'); return; }
  if (t === 'link' && hjrIsSheet(attrs)) { hjrSheetLink(ctx, doc, attrs, foreign); return; }
  const inForeign = foreign || t === 'svg' || t === 'math';
  let open = '<' + name + hjrAttrs(ctx, doc, t, attrs);
  if (t === 'iframe') open += hjrChildFrame(ctx, doc, attrs);
  if (t === 'template' && hjrOwn(attrs, '__hj_shadow') !== undefined) open += ' shadowrootmode="open"';
  hjrPut(ctx, doc, open + '>');
  if (HJR_VOID.has(t)) return;
  const kids = node.slice(2);
  if (t === 'style') {
    const sheet = hjrSheetText(ctx, hjrOwn(attrs, '__hj_sheet'));
    const text = sheet ?? kids.map((c) => hjrDeref(ctx, c, at)).filter((x) => x && typeof x[0] === 'string').map((x) => x[0]).join('');
    hjrPut(ctx, doc, hjrStyleText(hjrCss(ctx, doc, text, doc.url), inForeign));
  } else if (HJR_TEXT_ONLY.has(t)) {
    if (t !== 'iframe' && t !== 'frame') {
      for (const c of kids) {
        const x = hjrDeref(ctx, c, at);
        if (x && typeof x[0] === 'string') hjrPut(ctx, doc, hjrText(x[0]));
      }
    }
  } else if (t !== 'noscript') {
    for (const c of kids) hjrNode(ctx, doc, c, at, depth + 1, inForeign);
  }
  hjrPut(ctx, doc, '</' + name + '>');
}

function hjrIsSheet(attrs) {
  const rel = String(hjrOwn(attrs, 'rel') ?? '').toLowerCase().split(/\s+/);
  return rel.includes('stylesheet') && !rel.includes('alternate');
}

// A `<link rel=stylesheet>` becomes a `<style>` with its sheet's text (URLs in
// it resolved against the link's URL), or an inert link without `href`.
function hjrSheetLink(ctx, doc, attrs, foreign) {
  const href = hjrOwn(attrs, 'href');
  const base = hjrAbsolute(href, doc.url) || doc.url;
  let text = hjrSheetText(ctx, hjrOwn(attrs, '__hj_sheet'));
  if (text == null && typeof href === 'string') text = hjrDataText(hjrLookup(ctx, doc, href, doc.url));
  const kept = {};
  for (const k of Object.keys(attrs || {})) {
    const lk = k.toLowerCase();
    if (lk === 'media' || lk === 'title' || lk === 'id' || lk === 'class' || lk.startsWith('__hj_') || lk.startsWith('data-')) kept[k] = attrs[k];
  }
  if (text == null) {
    hjrPut(ctx, doc, '<link rel="stylesheet"' + hjrAttrs(ctx, doc, 'link', kept) + ' __hj_missing="">');
    return;
  }
  hjrPut(ctx, doc, '<style' + hjrAttrs(ctx, doc, 'style', kept) + '>' + hjrStyleText(hjrCss(ctx, doc, text, base), foreign) + '</style>');
}

function hjrStyleText(css, foreign) {
  return foreign ? hjrText(css) : css.replace(/<\/(style)/gi, '<\\/$1');
}

function hjrSheetText(ctx, name) {
  if (typeof name !== 'string' || !name) return null;
  return hjrDataText(hjrData(ctx, name));
}

// The attributes of a `t` element, written (with their leading spaces).
function hjrAttrs(ctx, doc, t, attrs) {
  if (!attrs || typeof attrs !== 'object' || Array.isArray(attrs)) return '';
  let out = '';
  const img = t === 'img' || t === 'image' || t === 'input';
  const missing = t === 'img' ? hjrMissing(ctx, doc, attrs) : null;
  for (const name of Object.keys(attrs)) {
    if (!HJR_ATTR.test(name)) continue;
    const lname = name.toLowerCase();
    if (lname.startsWith('on') || HJR_DROPPED.has(lname)) continue;
    if (missing !== null && (lname === 'title' || lname === '__hj_missing')) continue;
    let value = attrs[name];
    if (value === null || value === undefined) continue;
    value = String(value);
    if ((t === 'iframe' || t === 'frame') && lname === 'src') continue;
    if ((t === 'object' || t === 'embed' || t === 'applet') && (HJR_FETCHING.has(lname) || lname === 'data')) continue;
    if (lname === 'href' || lname === 'xlink:href') {
      if (t === 'a' || t === 'area') {
        if (/^(javascript|vbscript|data):/i.test(value.replace(/[\u0000-\u0020]/g, ''))) continue;
      } else if (!value.startsWith('#')) {
        value = hjrLookup(ctx, doc, value, doc.url);
        if (!value) continue;
      }
    } else if (HJR_FETCHING.has(lname)) {
      const sha = img && lname === 'src' ? hjrOwn(attrs, '__hj_src') : undefined;
      const url = value;
      value = (typeof sha === 'string' && hjrData(ctx, sha)) || hjrLookup(ctx, doc, value, doc.url);
      if (!value) continue;
    } else if (HJR_CSS_ATTRS.has(lname)) {
      value = hjrCss(ctx, doc, value, doc.url);
    }
    out += ' ' + name + '="' + hjrAttrValue(value) + '"';
  }
  if (missing !== null) {
    out += ' __hj_missing="' + hjrAttrValue(missing) + '" title="' + hjrAttrValue('image not recorded: ' + missing) + '"';
    // The box the image had on the page, unless its markup sizes it.
    const size = /^(\d{1,6}),(\d{1,6})$/.exec(String(hjrOwn(attrs, '__hj_size') ?? ''));
    const has = (k) => Object.keys(attrs).some((a) => a.toLowerCase() === k);
    if (size && !has('width') && !has('height')) out += ' width="' + size[1] + '" height="' + size[2] + '"';
  }
  return out;
}

// trace-dom.json's map `key` (URL → SHA-256) of the file's object, or {}.
function hjrUrlMap(file, key) {
  const map = !Array.isArray(file) && file && typeof file === 'object' ? hjrOwn(file, key) : null;
  return map && typeof map === 'object' && !Array.isArray(map) ? map : {};
}

// The URL of an `<img>` whose image was not recorded (none recorded for its
// `src`: neither `__hj_src` nor its URL names a resource), else null.
function hjrMissing(ctx, doc, attrs) {
  const name = Object.keys(attrs).find((k) => k.toLowerCase() === 'src');
  const src = name === undefined ? undefined : attrs[name];
  if (typeof src !== 'string' || src.trim() === '') return null;
  const sha = hjrOwn(attrs, '__hj_src');
  if ((typeof sha === 'string' && hjrData(ctx, sha)) || hjrLookup(ctx, doc, src, doc.url)) return null;
  return hjrAbsolute(src, doc.url) || src;
}

// The srcdoc of an iframe: its child frame's snapshot, rendered, escaped.
function hjrChildFrame(ctx, doc, attrs) {
  const parent = hjrSnap(ctx, doc.i);
  const named = hjrOwn(attrs, '__hj_frame');
  const k = Number(named);
  let html = named === undefined ? '' : hjrNotice(ctx, 'frame not recorded');
  if (named !== undefined && String(named).trim() !== '' && Number.isInteger(k) && k >= 0 && parent) {
    const same = (s, key) => String(hjrOwn(s, key) ?? '') === String(hjrOwn(parent, key) ?? '');
    const mine = String(hjrOwn(parent, 'frame') ?? 0);
    const children = [];
    ctx.list.forEach((s, j) => {
      if (j !== doc.i && s && typeof s === 'object' && hjrOwn(s, 'parentFrame') != null
        && String(hjrOwn(s, 'parentFrame')) === mine && same(s, 'page') && same(s, 'entry') && same(s, 'moment')) children.push(j);
    });
    // The serialiser's `frameIndex` names the iframe itself; without it (an
    // older file), the k-th child of the moment.
    const indexed = (j) => hjrOwn(ctx.list[j], 'frameIndex') != null;
    const child = children.some(indexed)
      ? children.find((j) => indexed(j) && Number(hjrOwn(ctx.list[j], 'frameIndex')) === k)
      : children[k];
    if (child !== undefined) {
      html = doc.depth + 1 > HJR_MAX_FRAME_DEPTH ? hjrNotice(ctx, 'frame nested too deep')
        : hjrDocument(ctx, child, doc.depth + 1);
    }
  }
  return ' sandbox="allow-scripts" srcdoc="' + hjrAttrValue(html) + '"';
}

// CSS text with every url(…) (and image-set's strings) replaced by a
// resource's data: URL or `data:,`, and @import disabled.
function hjrCss(ctx, doc, text, base) {
  const str = (u) => '"' + u.replace(/["\\\n\r\f]/g, (c) => '\\' + c.charCodeAt(0).toString(16) + ' ') + '"';
  const resolve = (raw) => {
    const u = raw.replace(/\\([0-9a-fA-F]{1,6})\s?/g, (m, h) => String.fromCodePoint(Math.min(parseInt(h, 16), 0x10ffff) || 0xfffd))
      .replace(/\\(.)/g, '$1').trim();
    return str(hjrLookup(ctx, doc, u, base) || 'data:,');
  };
  return String(text)
    .replace(/@import\b/gi, '@hj-import-removed')
    .replace(/((?:-webkit-)?image-set\s*\()((?:[^()]|\([^()]*\))*)\)/gi, (m, open, inner) =>
      open + inner.replace(/"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'/g, (s, a, b) => 'url(' + resolve(a ?? b) + ')') + ')')
    .replace(/url\(\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|((?:[^)\\\s"']|\\.)*))\s*\)/gi,
      (m, a, b, c) => 'url(' + resolve(a ?? b ?? c ?? '') + ')');
}

function hjrAbsolute(url, base) {
  if (typeof url !== 'string') return null;
  try {
    return new URL(url, typeof base === 'string' && base ? base : undefined).href;
  } catch (e) {
    return null;
  }
}

// The data: URL `resources` gives for a name (never any other URL).
function hjrData(ctx, name) {
  const v = hjrOwn(ctx.res, name);
  return typeof v === 'string' && /^data:/i.test(v) ? v : null;
}

// The data: URL standing for `url` in doc: a data: URL as it is; else the
// resource the snapshot (or an earlier one of its frame) names for the
// absolute URL; else null (the URL is not written).
function hjrLookup(ctx, doc, url, base) {
  if (typeof url !== 'string') return null;
  const u = url.trim();
  if (/^data:/i.test(u) || u.startsWith('#')) return u;
  const abs = hjrAbsolute(u, base);
  if (!abs) return null;
  const p = ctx.frames[doc.i];
  for (let k = p ? p.at : -1; k >= 0; k--) {
    const sha = hjrOwn(hjrOwn(hjrSnap(ctx, p.of[k]), 'resources'), abs);
    if (typeof sha === 'string' && hjrData(ctx, sha)) return hjrData(ctx, sha);
  }
  // The step's images and fonts (trace-dom.json's `images` and `fonts`:
  // URL → SHA-256 or null).
  for (const map of [ctx.images, ctx.fonts]) {
    const sha = hjrOwn(map, abs);
    if (typeof sha === 'string' && hjrData(ctx, sha)) return hjrData(ctx, sha);
  }
  return hjrData(ctx, abs);
}

// The text a data: URL carries (a style sheet's).
function hjrDataText(u) {
  const m = typeof u === 'string' ? /^data:([^,]*),/i.exec(u) : null;
  if (!m) return null;
  const body = u.slice(m[0].length);
  if (/;base64$/i.test(m[1])) {
    try {
      const bin = atob(body.replace(/\s+/g, ''));
      return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
    } catch (e) {
      return null;
    }
  }
  try {
    return decodeURIComponent(body);
  } catch (e) {
    return body;
  }
}

// Our script, run in the rendered document (its source: a function's text,
// with the document's own scroll position as numbers).
function hjrScript(scroll) {
  const xy = Array.isArray(scroll) ? scroll.slice(0, 2).map(Number) : [];
  const at = xy.length === 2 && xy.every(Number.isFinite) ? JSON.stringify(xy) : 'null';
  return '(' + hjrRestore.toString() + ')(' + JSON.stringify(HJR_OUTLINE) + ', ' + at + ');';
}

function hjrRestore(outline, scroll) {
  const roots = () => {
    const out = [document];
    for (let i = 0; i < out.length; i++) {
      for (const e of out[i].querySelectorAll('*')) if (e.shadowRoot) out.push(e.shadowRoot);
    }
    return out;
  };
  const attach = (root) => {
    for (const t of Array.from(root.querySelectorAll('template[__hj_shadow]'))) {
      const host = t.parentElement;
      if (!host || host.shadowRoot || !t.isConnected) continue;
      try {
        const shadow = host.attachShadow({ mode: 'open' });
        shadow.appendChild(t.content);
        t.remove();
        attach(shadow);
      } catch (e) { /* not a host element */ }
    }
  };
  const yes = (e, a) => e.getAttribute(a) !== 'false';
  const state = () => {
    attach(document);
    for (const st of Array.from(document.querySelectorAll('style[__hj_adopted]'))) {
      try {
        const s = new CSSStyleSheet();
        s.replaceSync(st.textContent);
        document.adoptedStyleSheets = document.adoptedStyleSheets.concat([s]);
        st.remove();
      } catch (e) { /* left where it is */ }
    }
    for (const r of roots()) {
      if (r !== document && !r.__hjOutlined) {
        r.__hjOutlined = true;
        try {
          const s = new CSSStyleSheet();
          s.replaceSync(outline);
          r.adoptedStyleSheets = r.adoptedStyleSheets.concat([s]);
        } catch (e) { /* no constructable sheets */ }
      }
      for (const e of r.querySelectorAll('[__hj_value]')) { try { e.value = e.getAttribute('__hj_value'); } catch (x) { /* file input */ } }
      for (const e of r.querySelectorAll('[__hj_checked]')) e.checked = yes(e, '__hj_checked');
      for (const e of r.querySelectorAll('[__hj_selected]')) e.selected = yes(e, '__hj_selected');
    }
  };
  const scrolls = () => {
    const el = document.scrollingElement || document.documentElement;
    let own = false;
    for (const r of roots()) {
      for (const e of r.querySelectorAll('[__hj_scroll]')) {
        const [top, left] = String(e.getAttribute('__hj_scroll')).split(',').map(Number);
        if (e === el || e === document.body) own = true;
        if (Number.isFinite(top)) e.scrollTop = top;
        if (Number.isFinite(left)) e.scrollLeft = left;
      }
    }
    if (!own && scroll) window.scrollTo(scroll[0], scroll[1]);
    for (const r of roots()) {
      const t = r.querySelector('[__hj_target]');
      if (!t) continue;
      const b = t.getBoundingClientRect();
      if (b.bottom < 0 || b.right < 0 || b.top > innerHeight || b.left > innerWidth) t.scrollIntoView({ block: 'center', inline: 'center' });
      break;
    }
  };
  const ready = () => { state(); scrolls(); };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', ready);
  else ready();
  addEventListener('load', scrolls);
  const inert = (e) => {
    for (const n of e.composedPath()) {
      if (n.localName === 'a' || n.localName === 'area') { e.preventDefault(); return; }
    }
  };
  addEventListener('click', inert, true);
  addEventListener('auxclick', inert, true);
  addEventListener('submit', (e) => e.preventDefault(), true);
}
