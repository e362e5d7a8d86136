// Every name of this file starts with hje/Hje/HJE_ so that it cannot clash with
// roles.js (hj*), concatenated before it in the same closure.
//
// The locator engine injected into every page (installed once per document as
// `window.__harshjudgeEngine`). It resolves locator chains, checks actionability and runs the
// retry loop of waits and assertions inside the page, so that one WebDriver
// command (execute async script) serves one wait. The role functions (hjRole,
// hjAccessibleName, hjIsAriaHidden, hjAriaSnapshot, hjAria*) come from roles.js,
// concatenated before this file in the same closure.
//
// A request is {op, chain, describe, timeout, ...} (Rust's protocol::Request);
// every answer is {ok: true, value, log} or hjeError(kind, ...).

const hjeNorm = (s) => String(s == null ? '' : s).replace(/[\u200b\u00ad]/g, '').replace(/\s+/g, ' ').trim();

// ---- text matching ----------------------------------------------------------
// m: {s, exact} (a string: case-insensitive substring unless exact) or {re, flags}.
function hjeLocatorMatcher(m) {
  if (m.re !== undefined) {
    const r = new RegExp(m.re, m.flags || '');
    return (t) => { r.lastIndex = 0; return r.test(hjeNorm(t)); };
  }
  if (m.exact) {
    const e = hjeNorm(m.s);
    return (t) => hjeNorm(t) === e;
  }
  const e = hjeNorm(m.s).toLowerCase();
  return (t) => hjeNorm(t).toLowerCase().includes(e);
}

// An assertion's matcher: {s, full, ignoreCase} or {re, flags}. A string matches
// the whole normalised text (full) or a part of it; case-sensitive by default.
function hjeExpectMatcher(m) {
  if (m.re !== undefined) {
    const r = new RegExp(m.re, m.flags || '');
    return (t) => { r.lastIndex = 0; return r.test(t); };
  }
  const e = m.normalize === false ? m.s : hjeNorm(m.s);
  const ic = !!m.ignoreCase;
  return (t) => {
    let a = m.normalize === false ? String(t) : hjeNorm(t);
    let b = e;
    if (ic) { a = a.toLowerCase(); b = b.toLowerCase(); }
    return m.full ? a === b : a.includes(b);
  };
}

// ---- the DOM --------------------------------------------------------------------
function hjeParent(e) {
  if (e.parentElement) return e.parentElement;
  const r = e.parentNode;
  return r && r.nodeType === 11 && r.host ? r.host : null;
}

function hjeContains(outer, inner) {
  for (let e = inner; e; e = hjeParent(e)) if (e === outer) return true;
  return false;
}

// Every element under root, open shadow roots included, in document order.
function hjeAll(root) {
  const out = [];
  const visit = (node) => {
    const list = node.querySelectorAll('*');
    for (const el of list) {
      out.push(el);
      if (el.shadowRoot) visit(el.shadowRoot);
    }
  };
  // A scope that is itself a shadow host: its shadow content comes first.
  if (root.shadowRoot) visit(root.shadowRoot);
  visit(root);
  return out;
}

// The composed ancestors of a node, outermost first (shadow hosts included).
function hjeComposedPath(e) {
  const path = [];
  for (let n = e; n; n = hjeParent(n)) path.push(n);
  return path.reverse();
}

// Document order over the composed tree (as hjeAll visits it: a host, then its
// shadow root's content, then its light children). compareDocumentPosition
// alone calls nodes of different trees "disconnected".
function hjeCompare(a, b) {
  if (a === b) return 0;
  if (a.getRootNode() === b.getRootNode()) {
    const p = a.compareDocumentPosition(b);
    return (p & Node.DOCUMENT_POSITION_FOLLOWING) ? -1 : (p & Node.DOCUMENT_POSITION_PRECEDING) ? 1 : 0;
  }
  const pa = hjeComposedPath(a), pb = hjeComposedPath(b);
  let i = 0;
  while (i < pa.length && i < pb.length && pa[i] === pb[i]) i++;
  if (i === pa.length) return -1; // a is an ancestor of b
  if (i === pb.length) return 1;
  const x = pa[i], y = pb[i];
  const xs = x.parentNode && x.parentNode.nodeType === 11, ys = y.parentNode && y.parentNode.nodeType === 11;
  if (xs !== ys) return xs ? -1 : 1; // the shadow content of a host comes before its light children
  const p = x.compareDocumentPosition(y);
  return (p & Node.DOCUMENT_POSITION_FOLLOWING) ? -1 : (p & Node.DOCUMENT_POSITION_PRECEDING) ? 1 : 0;
}

function hjeSortUnique(list) {
  const arr = Array.from(new Set(list));
  arr.sort(hjeCompare);
  return arr;
}

// ---- CSS that pierces open shadow roots ---------------------------------------------
// As Playwright's css engine: a selector matches elements inside open shadow
// roots too, and its descendant (" ") and child (">") combinators cross shadow
// boundaries (a shadow root's children have the host as parent). Sibling
// combinators and everything inside a compound (":is()", ":has()", ...) stay
// within one tree. Without shadow roots under the scope: querySelectorAll.

// Splits at top-level commas: [[compound, combinator, compound, ...], ...].
function hjeCssParse(sel) {
  const lists = [];
  let parts = [], cur = '', depth = 0, quote = null, pendingComb = null;
  const flush = () => {
    const t = cur.trim();
    if (t) {
      if (parts.length) parts.push(pendingComb || ' ');
      parts.push(t);
      pendingComb = null;
    }
    cur = '';
  };
  for (let i = 0; i < sel.length; i++) {
    const c = sel[i];
    if (quote) { cur += c; if (c === '\\') { cur += sel[++i] || ''; } else if (c === quote) quote = null; continue; }
    if (c === '\\') { cur += c + (sel[++i] || ''); continue; }
    if (c === '"' || c === "'") { quote = c; cur += c; continue; }
    if (c === '(' || c === '[') { depth++; cur += c; continue; }
    if (c === ')' || c === ']') { depth--; cur += c; continue; }
    if (depth > 0) { cur += c; continue; }
    if (c === ',') { flush(); lists.push(parts); parts = []; pendingComb = null; continue; }
    if (c === '>' || c === '+' || c === '~') { flush(); pendingComb = c; continue; }
    if (/\s/.test(c)) { flush(); continue; }
    cur += c;
  }
  flush();
  lists.push(parts);
  return lists;
}

// Whether `el` matches the compounds parts[0..=i] (parts alternate compound, combinator).
function hjeCssMatches(el, parts, i) {
  if (!el.matches(parts[i])) return false;
  if (i === 0) return true;
  const comb = parts[i - 1];
  switch (comb) {
    case '>': { const p = hjeParent(el); return !!p && hjeCssMatches(p, parts, i - 2); }
    case '+': { const p = el.previousElementSibling; return !!p && hjeCssMatches(p, parts, i - 2); }
    case '~': for (let p = el.previousElementSibling; p; p = p.previousElementSibling) if (hjeCssMatches(p, parts, i - 2)) return true; return false;
    default: for (let p = hjeParent(el); p; p = hjeParent(p)) if (hjeCssMatches(p, parts, i - 2)) return true; return false;
  }
}

function hjeCssQuery(root, sel) {
  const direct = root.querySelectorAll(sel); // also throws on a bad selector
  const all = hjeAll(root);
  if (!root.shadowRoot && !all.some((e) => e.shadowRoot)) return Array.from(direct);
  const lists = hjeCssParse(sel);
  return all.filter((e) => lists.some((parts) => parts.length && hjeCssMatches(e, parts, parts.length - 1)));
}

const HJE_SKIP_TEXT = new Set(['HEAD', 'SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE']);

// The text an element shows for text matching: its content (shadow roots
// included); an input button's value.
function hjeElementText(el) {
  if (el.tagName === 'INPUT' && ['button', 'submit', 'reset'].includes(el.type)) return el.value;
  let s = '';
  const walk = (n) => {
    for (let c = n.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) s += c.nodeValue;
      else if (c.nodeType === 1 && !HJE_SKIP_TEXT.has(c.tagName)) {
        if (c.shadowRoot) walk(c.shadowRoot); else walk(c);
      }
    }
  };
  if (el.shadowRoot) walk(el.shadowRoot); else walk(el);
  return s;
}

function hjeLabelText(el) {
  const texts = [];
  const aria = el.getAttribute('aria-label');
  if (aria) texts.push(aria);
  const by = el.getAttribute('aria-labelledby');
  if (by) {
    const t = by.split(/\s+/).map((id) => el.getRootNode().getElementById ? el.getRootNode().getElementById(id) : document.getElementById(id)).filter(Boolean).map(hjeElementText).join(' ');
    if (t) texts.push(t);
  }
  if (el.labels) for (const l of el.labels) texts.push(hjeElementText(l));
  return texts;
}

// Playwright's visibility: a non-empty box and not visibility:hidden (opacity
// does not count).
function hjeVisible(el) {
  if (!el.isConnected) return false;
  const style = getComputedStyle(el);
  if (style.display === 'contents') {
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 1 && hjeVisible(c)) return true;
      if (c.nodeType === 3) {
        const r = document.createRange(); r.selectNodeContents(c);
        const b = r.getBoundingClientRect();
        if (b.width > 0 && b.height > 0) return true;
      }
    }
    return false;
  }
  if (el.checkVisibility && !el.checkVisibility({ visibilityProperty: true })) return false;
  if (style.visibility !== 'visible') return false;
  const rect = el.getBoundingClientRect();
  return rect.width > 0 && rect.height > 0;
}

function hjeDisabled(el) {
  const native = ['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'OPTION', 'OPTGROUP'];
  if (native.includes(el.tagName)) {
    if (el.disabled) return true;
    // A disabled fieldset disables its controls, except in its first legend.
    for (let p = el.parentElement; p; p = p.parentElement) {
      if (p.tagName === 'FIELDSET' && p.disabled) {
        const legend = p.querySelector(':scope > legend');
        if (!legend || !legend.contains(el)) return true;
      }
    }
  }
  for (let p = el; p; p = hjeParent(p)) {
    const a = p.getAttribute('aria-disabled');
    if (a === 'true') return true;
    if (a === 'false') return false;
  }
  return false;
}

function hjeEditableProblem(el) {
  if (hjeDisabled(el)) return 'element is not enabled';
  const t = el.tagName;
  if (t === 'INPUT') {
    const bad = ['checkbox', 'radio', 'button', 'submit', 'reset', 'file', 'image', 'hidden'];
    if (bad.includes(el.type)) return 'element is an <input type="' + el.type + '"> and cannot be filled';
    if (el.readOnly) return 'element is readonly';
    return null;
  }
  if (t === 'TEXTAREA') return el.readOnly ? 'element is readonly' : null;
  if (t === 'SELECT') return 'element is a <select>: use select_option';
  if (el.isContentEditable) return null;
  if (el.getAttribute('aria-readonly') === 'true') return 'element is readonly';
  const role = hjAriaRole(el);
  if (['textbox', 'searchbox', 'combobox', 'spinbutton'].includes(role)) return null;
  return 'element is not an <input>, <textarea> or [contenteditable] element';
}

function hjeChecked(el) {
  const c = hjAriaChecked(el);
  if (c === true || c === false || c === 'mixed') {
    if (el.tagName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) return el.checked;
    if (el.hasAttribute('aria-checked')) return c === true;
    const role = hjAriaRole(el);
    if (['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio', 'option', 'treeitem'].includes(role)) return c === true;
  }
  return null;
}

function hjePreview(el) {
  if (!el || el.nodeType !== 1) return String(el);
  const tag = el.tagName.toLowerCase();
  let s = '<' + tag;
  for (const a of ['id', 'class', 'data-testid', 'name', 'type', 'role', 'aria-label', 'placeholder', 'href', 'for']) {
    const v = el.getAttribute(a);
    if (v !== null) s += ' ' + a + '="' + (v.length > 40 ? v.slice(0, 40) + '…' : v) + '"';
  }
  s += '>';
  if (['input', 'img', 'br', 'hr', 'meta', 'link'].includes(tag)) return s;
  const text = hjeNorm(hjeElementText(el));
  s += text.length > 50 ? text.slice(0, 50) + '…' : text;
  return s + '</' + tag + '>';
}

// ---- resolving a chain ----------------------------------------------------------
function hjeQueryStep(roots, step) {
  const out = [];
  for (const root of roots) {
    switch (step.kind) {
      case 'css':
        for (const e of hjeCssQuery(root, step.sel)) out.push(e);
        break;
      case 'xpath': {
        const doc = root.nodeType === 9 ? root : root.ownerDocument;
        let expr = step.sel;
        if (root.nodeType !== 9 && expr.startsWith('/')) expr = '.' + expr;
        const r = doc.evaluate(expr, root, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
        for (let i = 0; i < r.snapshotLength; i++) { const n = r.snapshotItem(i); if (n.nodeType === 1) out.push(n); }
        break;
      }
      case 'text': {
        const m = hjeLocatorMatcher(step.m);
        for (const e of hjeAll(root)) {
          if (HJE_SKIP_TEXT.has(e.tagName) || e.closest('head,script,style,noscript,template')) continue;
          if (!m(hjeElementText(e))) continue;
          // The innermost element: skip one whose child element matches too.
          // A shadow host's text is its shadow root's: so are its children here.
          let child = false;
          for (const c of (e.shadowRoot || e).children) if (!HJE_SKIP_TEXT.has(c.tagName) && m(hjeElementText(c))) { child = true; break; }
          if (!child) out.push(e);
        }
        break;
      }
      case 'role': {
        const nm = step.name ? hjeLocatorMatcher(step.name) : null;
        for (const e of hjeAll(root)) {
          if (!hjRoleIs(e, step.role)) continue;
          if (!step.includeHidden && hjIsAriaHidden(e)) continue;
          if (step.level != null && hjAriaLevel(e) !== step.level) continue;
          if (step.checked != null) { const c = hjAriaChecked(e); if (c !== step.checked) continue; }
          if (step.pressed != null && hjAriaPressed(e) !== step.pressed) continue;
          if (step.expanded != null && hjAriaExpanded(e) !== step.expanded) continue;
          if (step.selected != null && hjAriaSelected(e) !== step.selected) continue;
          if (step.disabled != null && hjAriaDisabled(e) !== step.disabled) continue;
          if (nm && !nm(hjAccessibleName(e, { includeHidden: !!step.includeHidden }))) continue;
          out.push(e);
        }
        break;
      }
      case 'label': {
        const m = hjeLocatorMatcher(step.m);
        for (const e of hjeAll(root)) if (hjeLabelText(e).some(m)) out.push(e);
        break;
      }
      case 'attr': {
        const m = hjeLocatorMatcher(step.m);
        for (const e of hjeAll(root)) {
          if (step.tags && !step.tags.includes(e.tagName)) continue;
          const v = e.getAttribute(step.name);
          if (v !== null && m(v)) out.push(e);
        }
        break;
      }
      default:
        throw new Error('unknown locator step ' + step.kind);
    }
  }
  return hjeSortUnique(out);
}

// Resolves a chain from `scope` (the document, or elements).
function hjeResolve(chain, scope) {
  let roots = scope || [document];
  let current = roots;
  for (const step of chain) {
    switch (step.kind) {
      case 'nth': {
        const i = step.i < 0 ? current.length + step.i : step.i;
        current = i >= 0 && i < current.length ? [current[i]] : [];
        break;
      }
      case 'hasText': {
        const m = hjeLocatorMatcher(step.m);
        current = current.filter((e) => m(hjeElementText(e)) !== !!step.not);
        break;
      }
      case 'has':
        current = current.filter((e) => (hjeResolve(step.chain, [e]).length > 0) !== !!step.not);
        break;
      case 'visible':
        current = current.filter((e) => hjeVisible(e) === step.v);
        break;
      case 'and': {
        const other = new Set(hjeResolve(step.chain));
        current = current.filter((e) => other.has(e));
        break;
      }
      case 'or':
        current = hjeSortUnique(current.concat(hjeResolve(step.chain)));
        break;
      default:
        current = hjeQueryStep(current, step);
    }
  }
  return current;
}

// ---- waiting ----------------------------------------------------------------------
// The page's own timers and clock, as they were before `page.clock()`'s fake
// one (clock.js keeps them in `__harshjudgeReal`) took their place: waits
// follow real time whatever the page's clock does.
const hjeReal = window.__harshjudgeReal || {
  setTimeout: window.setTimeout.bind(window),
  clearTimeout: window.clearTimeout.bind(window),
  requestAnimationFrame: window.requestAnimationFrame ? window.requestAnimationFrame.bind(window) : null,
  now: performance.now.bind(performance),
};
function hjeFrame() {
  return new Promise((resolve) => {
    let done = false;
    const go = () => { if (!done) { done = true; resolve(); } };
    if (hjeReal.requestAnimationFrame) hjeReal.requestAnimationFrame(go);
    hjeReal.setTimeout(go, 50);
  });
}
const hjeSleep = (ms) => new Promise((r) => hjeReal.setTimeout(r, ms));

class HjeLog {
  constructor() { this.lines = []; }
  add(s) {
    const last = this.lines[this.lines.length - 1];
    if (last && last.text === s) last.n++;
    else this.lines.push({ text: s, n: 1 });
    if (this.lines.length > 40) this.lines.splice(1, 1);
  }
  out() { return this.lines.map((l) => l.n > 1 ? l.text + ' (×' + l.n + ')' : l.text); }
}

const HJE_POLL = [0, 20, 50, 100, 100, 250, 250, 500];

// Repeats `attempt` (returns {done, value} or {problem}) until done or the
// deadline; frames between attempts when `frames`, else Playwright's backoff.
async function hjeRetry(timeout, log, attempt, frames) {
  const deadline = hjeReal.now() + timeout;
  for (let n = 0; ; n++) {
    const r = await attempt(n);
    if (r.done) return r;
    if (r.problem) log.add(r.problem);
    if (r.fatal) return r;
    if (hjeReal.now() >= deadline) return Object.assign({ timedOut: true }, r);
    if (frames) await hjeFrame();
    else await hjeSleep(Math.min(HJE_POLL[Math.min(n, HJE_POLL.length - 1)], Math.max(0, deadline - hjeReal.now())));
  }
}

function hjeStrict(list) {
  return { fatal: true, done: false, strict: { count: list.length, matches: list.slice(0, 5).map(hjePreview) } };
}

// The one way every action, read, wait and assertion finds its element(s), as
// Playwright's querySelector(selector, root, strict): `strict` (a single-element
// call) with several matches is a strict mode violation, returned as
// `violation` (an attempt result that ends the retry loop); else `element` is
// the first match (or null) and `elements` all of them.
function hjeQuerySelector(chain, strict) {
  const elements = hjeResolve(chain);
  if (strict && elements.length > 1) return { elements, element: null, violation: hjeStrict(elements) };
  return { elements, element: elements.length ? elements[0] : null, violation: null };
}

// The one shape of a failed answer: {ok: false, error: {kind, ...fields}, log}.
// Kinds (Rust's EngineError): strict {count, matches}, timeout {problem},
// usage {message}, js {message}.
function hjeError(kind, fields, log) {
  return { ok: false, error: Object.assign({ kind }, fields), log: log || [] };
}

function hjeHitPoint(el) {
  const rects = el.getClientRects();
  const r = rects.length ? rects[0] : el.getBoundingClientRect();
  const vw = document.documentElement.clientWidth || innerWidth;
  const vh = document.documentElement.clientHeight || innerHeight;
  const left = Math.max(r.left, 0), right = Math.min(r.right, vw);
  const top = Math.max(r.top, 0), bottom = Math.min(r.bottom, vh);
  if (right <= left || bottom <= top) return null;
  return { x: Math.floor((left + right) / 2), y: Math.floor((top + bottom) / 2) };
}

function hjeHitTarget(x, y) {
  let hit = document.elementFromPoint(x, y);
  while (hit && hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  return hit;
}

function hjeReceives(el, hit) {
  if (!hit) return false;
  if (hjeContains(el, hit)) return true;
  // A click on an element's <label> reaches the element.
  for (let e = hit; e; e = hjeParent(e)) if (e.tagName === 'LABEL' && e.control === el) return true;
  return false;
}

