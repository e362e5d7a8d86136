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
// A request is {op, chain, timeout, ...}; every answer is
// {ok: true, value, log} or {ok: false, error: {kind, message, ...}, log}.

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
function hjeFrame() {
  return new Promise((resolve) => {
    let done = false;
    const go = () => { if (!done) { done = true; resolve(); } };
    requestAnimationFrame(go);
    setTimeout(go, 50);
  });
}
const hjeSleep = (ms) => new Promise((r) => setTimeout(r, ms));

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
  const deadline = performance.now() + timeout;
  for (let n = 0; ; n++) {
    const r = await attempt(n);
    if (r.done) return r;
    if (r.problem) log.add(r.problem);
    if (r.fatal) return r;
    if (performance.now() >= deadline) return Object.assign({ timedOut: true }, r);
    if (frames) await hjeFrame();
    else await hjeSleep(Math.min(HJE_POLL[Math.min(n, HJE_POLL.length - 1)], Math.max(0, deadline - performance.now())));
  }
}

function hjeStrict(list) {
  return { fatal: true, done: false, strict: { count: list.length, matches: list.slice(0, 5).map(hjePreview) } };
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

// ---- did the pointer action reach the element? ------------------------------------
// Stability is judged in the page but the pointer action comes in another
// command, so the element can move, or something can cover it, in between.
// Before a pointer action the engine listens (capturing, on the window) for the
// action's first trusted event; after it, `hitResult` says whether that event
// reached the element (or a descendant, or its <label>). An event that went
// elsewhere is stopped there, with every later event of the same action, so
// the element in the way is not clicked by mistake; the caller retries.
const HJE_HIT_EVENTS = {
  mouse: ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'auxclick', 'dblclick', 'contextmenu'],
  hover: ['pointerover', 'mouseover', 'pointermove', 'mousemove'],
};
let hjeInterceptor = null;

function hjeStopIntercepting() {
  if (hjeInterceptor) hjeInterceptor.stop();
  hjeInterceptor = null;
}

function hjeIntercept(el, kind) {
  hjeStopIntercepting();
  const events = HJE_HIT_EVENTS[kind] || HJE_HIT_EVENTS.mouse;
  const state = { result: null, blocked: 0 };
  const listener = (ev) => {
    if (!ev.isTrusted) return;
    if (state.result === null) {
      const path = ev.composedPath();
      const t = path.find((n) => n.nodeType === 1) || null;
      state.result = hjeReceives(el, t) ? { done: true } : { hit: t ? hjePreview(t) : 'nothing', event: ev.type };
    }
    if (!state.result.done) {
      ev.preventDefault();
      ev.stopImmediatePropagation();
      state.blocked++;
    }
  };
  const opts = { capture: true, passive: false };
  for (const t of events) window.addEventListener(t, listener, opts);
  // A safety net: never left listening when no hitResult comes.
  const timer = setTimeout(() => { if (hjeInterceptor === state) hjeStopIntercepting(); }, 10000);
  state.stop = () => {
    clearTimeout(timer);
    for (const t of events) window.removeEventListener(t, listener, opts);
  };
  hjeInterceptor = state;
}

// After the action: {done} (the element got it, or no event of the action came:
// nothing to judge) or {hit, event} naming the element that got it instead.
function hjeHitResult(req) {
  const st = hjeInterceptor;
  if (!st) return { ok: true, value: { done: true, none: true }, log: [] };
  if (!req.keep) hjeStopIntercepting();
  return { ok: true, value: st.result || { done: true, none: true }, log: [] };
}

// Waits until the single element of `chain` passes `checks`
// (visible, stable, enabled, editable, hit). Returns {done, el, point} or a failure.
async function hjeActionable(req, checks, log) {
  let lastRect = null;
  let sameFrames = 0;
  let scrolled = 0;
  const want = [];
  if (checks.visible) want.push('visible');
  if (checks.enabled) want.push('enabled');
  if (checks.editable) want.push('editable');
  if (checks.stable) want.push('stable');
  log.add('waiting for ' + req.describe + (want.length ? ' to be ' + want.join(', ').replace(/, ([^,]*)$/, ' and $1') : ''));
  return hjeRetry(req.timeout, log, (n) => {
    const list = hjeResolve(req.chain);
    if (list.length === 0) return { problem: 'no element matches' };
    if (list.length > 1 && !req.nonStrict) return hjeStrict(list);
    const el = list[0];
    if (n === 0 || log.lines.length < 3) log.add('resolved to ' + hjePreview(el));
    if (checks.visible && !hjeVisible(el)) { lastRect = null; return { problem: 'element is not visible' }; }
    if (checks.enabled && hjeDisabled(el)) return { problem: 'element is not enabled' };
    if (checks.editable) { const p = hjeEditableProblem(el); if (p) return { problem: p }; }
    if (checks.stable) {
      // The same box over three frames in a row (two frame intervals): under
      // load a frame can repeat the previous layout while an animation runs,
      // so one equal pair is not enough to call the element stable.
      const r = el.getBoundingClientRect();
      const same = lastRect && r.x === lastRect.x && r.y === lastRect.y && r.width === lastRect.width && r.height === lastRect.height;
      lastRect = r;
      sameFrames = same ? sameFrames + 1 : 0;
      if (sameFrames < 2) return { problem: n < 2 ? 'checking that the element is stable' : 'element is not stable' };
    }
    if (checks.hit) {
      let p = hjeHitPoint(el);
      if (!p) {
        el.scrollIntoView({ block: ['center', 'end', 'start', 'nearest'][scrolled % 4], inline: 'center', behavior: 'instant' });
        scrolled++;
        lastRect = null;
        return { problem: 'scrolling into view' };
      }
      const hit = hjeHitTarget(p.x, p.y);
      if (!hjeReceives(el, hit)) {
        return { problem: (hit ? hjePreview(hit) : 'nothing') + ' intercepts pointer events' };
      }
      if (req.verify) hjeIntercept(el, req.verify);
      return { done: true, el, point: p };
    }
    return { done: true, el };
  }, true);
}

function hjeFail(r, log, what) {
  if (r.strict) return { ok: false, error: Object.assign({ kind: 'strict' }, r.strict), log: log.out() };
  return { ok: false, error: { kind: 'timeout', message: r.problem || what, problem: r.problem || '' }, log: log.out() };
}

// ---- actions -----------------------------------------------------------------------
function hjeDispatchInput(el) {
  el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
}

const HJE_SET_VALUE = new Set(['color', 'date', 'time', 'datetime-local', 'month', 'week', 'range']);

function hjeFill(el, value) {
  if (el.tagName === 'INPUT' && HJE_SET_VALUE.has(el.type)) {
    el.focus();
    el.value = value;
    if (el.value !== value) throw new Error('malformed value for <input type=' + el.type + '>: ' + JSON.stringify(value));
    hjeDispatchInput(el);
    return;
  }
  if (el.ownerDocument.activeElement !== el) el.focus();
  if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') {
    el.select();
  } else {
    const range = document.createRange();
    range.selectNodeContents(el);
    const sel = getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }
  if (value) document.execCommand('insertText', false, value);
  else document.execCommand('delete', false, null);
  const now = (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') ? el.value : el.textContent;
  if (now !== value && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA')) {
    // Some inputs (e.g. type=number in some states) refuse insertText: set the value.
    const proto = el.tagName === 'INPUT' ? HTMLInputElement.prototype : HTMLTextAreaElement.prototype;
    Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, value);
    el.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, inputType: 'insertText', data: value }));
  }
}

function hjeSelect(el, wanted) {
  if (el.tagName !== 'SELECT') throw new Error('element is not a <select>: ' + hjePreview(el));
  const options = Array.from(el.options);
  const picked = [];
  for (const w of wanted) {
    const o = options.find((o) => (w.value != null && o.value === w.value) || (w.label != null && o.label === w.label) || (w.index != null && o.index === w.index) || (w.any != null && (o.value === w.any || o.label === w.any)));
    if (!o) return { missing: w.any ?? w.value ?? w.label ?? w.index };
    if (o.disabled) return { missing: (w.any ?? w.value ?? w.label) + ' (the option is disabled)' };
    picked.push(o);
    if (!el.multiple) break;
  }
  for (const o of options) o.selected = picked.includes(o);
  el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
  return { value: picked.map((o) => o.value) };
}

const HJE_ACTION_CHECKS = {
  click: { visible: true, stable: true, enabled: true, hit: true },
  dblclick: { visible: true, stable: true, enabled: true, hit: true },
  check: { visible: true, stable: true, enabled: true, hit: true },
  hover: { visible: true, stable: true, hit: true },
  drag: { visible: true, stable: true, hit: true },
  tap: { visible: true, stable: true, enabled: true, hit: true },
  fill: { visible: true, enabled: true, editable: true },
  selectOption: { visible: true, enabled: true },
  scrollIntoView: { visible: true, stable: true },
  screenshot: { visible: true, stable: true },
  focus: {}, blur: {}, dispatchEvent: {}, press: {}, element: {}, setInputFiles: {},
};

async function hjeAct(req) {
  const log = new HjeLog();
  if (req.action === 'check') {
    // Already in the wanted state: nothing to do.
    const list = hjeResolve(req.chain);
    if (list.length === 1) {
      const c = hjeChecked(list[0]);
      if (c === req.checked) return { ok: true, value: { done: true }, log: [] };
    }
  }
  const r = await hjeActionable(req, HJE_ACTION_CHECKS[req.action] || {}, log);
  if (!r.done) return hjeFail(r, log);
  const el = r.el;
  switch (req.action) {
    case 'check': {
      const c = hjeChecked(el);
      if (c === null) return { ok: false, error: { kind: 'usage', message: 'not a checkbox or radio button: ' + hjePreview(el) }, log: log.out() };
      if (c === req.checked) return { ok: true, value: { done: true }, log: log.out() };
      return { ok: true, value: { point: r.point }, log: log.out() };
    }
    case 'fill':
      hjeFill(el, req.value);
      return { ok: true, value: { done: true }, log: log.out() };
    case 'selectOption': {
      const s = hjeSelect(el, req.options);
      if (s.missing !== undefined) return { ok: false, error: { kind: 'usage', message: 'no option ' + JSON.stringify(s.missing) + ' in ' + hjePreview(el) + '; options: ' + JSON.stringify(Array.from(el.options).map((o) => o.label)) }, log: log.out() };
      return { ok: true, value: s.value, log: log.out() };
    }
    case 'focus': el.focus(); return { ok: true, value: { done: true }, log: log.out() };
    case 'press': {
      const doc = el.ownerDocument;
      if (el === doc.body || el === doc.documentElement) {
        // Keys "in the page": nothing else keeps the focus.
        if (doc.activeElement && doc.activeElement !== doc.body) doc.activeElement.blur();
      } else if (doc.activeElement !== el && !el.contains(doc.activeElement)) {
        el.focus();
      }
    }
      return { ok: true, value: { done: true }, log: log.out() };
    case 'blur': el.blur(); return { ok: true, value: { done: true }, log: log.out() };
    case 'dispatchEvent': {
      const init = Object.assign({ bubbles: true, cancelable: true, composed: true }, req.init || {});
      const t = req.type;
      let ev;
      if (/^(click|dblclick|mouse\w+|contextmenu)$/.test(t)) ev = new MouseEvent(t, init);
      else if (/^pointer\w+$/.test(t)) ev = new PointerEvent(t, init);
      else if (/^key\w+$/.test(t)) ev = new KeyboardEvent(t, init);
      else if (/^(focus|blur|focusin|focusout)$/.test(t)) ev = new FocusEvent(t, init);
      else if (/^(input|beforeinput)$/.test(t)) ev = new InputEvent(t, init);
      else ev = new Event(t, init);
      el.dispatchEvent(ev);
      return { ok: true, value: { done: true }, log: log.out() };
    }
    case 'scrollIntoView':
      el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
      return { ok: true, value: { done: true }, log: log.out() };
    case 'screenshot': {
      el.scrollIntoView({ block: 'nearest', inline: 'nearest', behavior: 'instant' });
      const b = el.getBoundingClientRect();
      return { ok: true, value: { x: b.x + scrollX, y: b.y + scrollY, width: b.width, height: b.height }, log: log.out() };
    }
    case 'drag': {
      const src = hjeDraggable(hjeHitTarget(r.point.x, r.point.y));
      if (!src || !req.target) return { ok: true, value: { point: r.point }, log: log.out() };
      return hjeHtml5Drag(req, src, r.point, log);
    }
    case 'element': case 'setInputFiles':
      return { ok: true, value: { element: el }, log: log.out() };
    default:
      return { ok: true, value: { point: r.point }, log: log.out() };
  }
}

// ---- HTML5 drag and drop -------------------------------------------------------------
// The element a press at a point would drag natively: the nearest (composed)
// ancestor with draggable="true". Other sources are dragged with the mouse.
function hjeDraggable(hit) {
  for (let e = hit; e; e = hjeParent(e)) {
    const d = e.getAttribute && e.getAttribute('draggable');
    if (d === 'true') return e;
    if (d === 'false') return null;
  }
  return null;
}

// The dropEffect a dragover starts with, from effectAllowed (HTML's table).
function hjeDropEffect(allowed) {
  if (allowed === 'none') return 'none';
  if (allowed === 'move') return 'move';
  if (allowed === 'link' || allowed === 'linkMove') return 'link';
  return allowed === 'copy' || allowed === 'copyLink' || allowed === 'copyMove' || allowed === 'all' || allowed === 'uninitialized' ? 'copy' : 'move';
}

// Drags `src` onto the target of `req.target` as Chromium's drag and drop does
// (Playwright drives it through the browser's drag interception; a WebDriver
// mouse does not start a native drag): dragstart and drag on the source,
// dragenter (and dragleave) and dragover on the element under the drop point,
// drop when a dragover handler accepted it (preventDefault), dragend on the
// source; one DataTransfer carries the data from dragstart to drop.
async function hjeHtml5Drag(req, src, from, log) {
  const started = performance.now();
  const t = await hjeActionable({ chain: req.target, describe: req.targetDescribe, timeout: Math.max(0, req.timeout - (performance.now() - started)) },
    { visible: true, stable: true, hit: true }, log);
  if (!t.done) return hjeFail(t, log);
  const to = t.point;
  // A DataTransfer made by script keeps effectAllowed and dropEffect at "none"
  // whatever is set: the drag's own values live on the object, with HTML's
  // rules (effectAllowed set in dragstart only, starting "uninitialized").
  const dt = new DataTransfer();
  let phase = 'dragstart', effectAllowed = 'uninitialized', dropEffect = 'none';
  const EFFECTS = ['none', 'copy', 'copyLink', 'copyMove', 'link', 'linkMove', 'move', 'all', 'uninitialized'];
  Object.defineProperty(dt, 'effectAllowed', {
    configurable: true,
    get: () => effectAllowed,
    set: (v) => { if (phase === 'dragstart' && EFFECTS.includes(v)) effectAllowed = v; },
  });
  Object.defineProperty(dt, 'dropEffect', {
    configurable: true,
    get: () => dropEffect,
    set: (v) => { if ((phase === 'dragenter' || phase === 'dragover') && ['none', 'copy', 'link', 'move'].includes(v)) dropEffect = v; },
  });
  const allows = (op) => op !== 'none' && (effectAllowed === 'all' || effectAllowed === 'uninitialized' || effectAllowed.toLowerCase().includes(op));
  const fire = (type, target, p, cancelable) => {
    phase = type;
    const ev = new DragEvent(type, {
      bubbles: true, cancelable, composed: true, view: window, dataTransfer: dt, buttons: 1,
      clientX: p.x, clientY: p.y, screenX: p.x + screenX, screenY: p.y + screenY,
    });
    target.dispatchEvent(ev);
    return ev;
  };
  log.add('dragging ' + hjePreview(src) + ' with HTML5 drag and drop');
  if (fire('dragstart', src, from, true).defaultPrevented) {
    log.add('dragstart was cancelled by the page: nothing dragged');
    return { ok: true, value: { html5: true, dropped: false }, log: log.out() };
  }
  fire('drag', src, from, true);
  const over = hjeHitTarget(to.x, to.y) || t.el;
  const left = hjeHitTarget(from.x, from.y);
  dropEffect = hjeDropEffect(effectAllowed);
  fire('dragenter', over, to, true);
  if (left && left !== over) fire('dragleave', left, to, false);
  fire('drag', src, to, true);
  dropEffect = hjeDropEffect(effectAllowed);
  const accepted = fire('dragover', over, to, true).defaultPrevented && allows(dropEffect);
  let dropped = false;
  if (accepted) {
    fire('drop', over, to, true);
    dropped = true;
    log.add('dropped on ' + hjePreview(over));
  } else {
    dropEffect = 'none';
    fire('dragleave', over, to, false);
    log.add(hjePreview(over) + ' did not accept the drop (no dragover handler called preventDefault with an allowed dropEffect)');
  }
  fire('dragend', src, to, false);
  return { ok: true, value: { html5: true, dropped }, log: log.out() };
}

// Verifies a check/uncheck changed the state.
function hjeCheckedNow(req) {
  const list = hjeResolve(req.chain);
  if (list.length !== 1) return { ok: true, value: null };
  return { ok: true, value: hjeChecked(list[0]) };
}

// ---- reads --------------------------------------------------------------------------
function hjeRead(el, what, req) {
  switch (what) {
    case 'textContent': return el.textContent;
    case 'innerText': return el.innerText;
    case 'inputValue':
      if (!['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName)) throw new Error('not an <input>, <textarea> or <select>: ' + hjePreview(el));
      return el.value;
    case 'attribute': return el.getAttribute(req.name);
    case 'isVisible': return hjeVisible(el);
    case 'isChecked': {
      const c = hjeChecked(el);
      if (c === null) throw new Error('not a checkbox or radio button: ' + hjePreview(el));
      return c;
    }
    case 'isEnabled': return !hjeDisabled(el);
    case 'isEditable': return !hjeEditableProblem(el);
    case 'boundingBox': {
      if (!hjeVisible(el)) return null;
      const b = el.getBoundingClientRect();
      return { x: b.x, y: b.y, width: b.width, height: b.height };
    }
    case 'ariaSnapshot': return hjAriaSnapshot(el);
    case 'role': return hjAriaRole(el);
    case 'name': return hjAccessibleName(el);
    default: throw new Error('unknown read ' + what);
  }
}

async function hjeQuery(req) {
  const log = new HjeLog();
  if (req.all) {
    const list = hjeResolve(req.chain);
    return { ok: true, value: list.map((e) => hjeRead(e, req.read, req)), log: [] };
  }
  if (req.read === 'count') return { ok: true, value: hjeResolve(req.chain).length, log: [] };
  if (req.read === 'isVisible' || req.read === 'isHidden') {
    // No waiting: the state now.
    const list = hjeResolve(req.chain);
    if (list.length > 1) return hjeFail(hjeStrict(list), log);
    const v = list.length === 1 && hjeVisible(list[0]);
    return { ok: true, value: req.read === 'isVisible' ? v : !v, log: [] };
  }
  const r = await hjeActionable(req, {}, log);
  if (!r.done) return hjeFail(r, log);
  return { ok: true, value: hjeRead(r.el, req.read, req), log: log.out() };
}

// ---- waitFor(state) -------------------------------------------------------------------
async function hjeWaitFor(req) {
  const log = new HjeLog();
  log.add('waiting for ' + req.describe + ' to be ' + req.state);
  const r = await hjeRetry(req.timeout, log, () => {
    const list = hjeResolve(req.chain);
    if (list.length > 1) return hjeStrict(list);
    const el = list[0];
    switch (req.state) {
      case 'attached': return el ? { done: true } : { problem: 'no element matches' };
      case 'detached': return el ? { problem: 'element is attached: ' + hjePreview(el) } : { done: true };
      case 'visible': return !el ? { problem: 'no element matches' } : hjeVisible(el) ? { done: true } : { problem: 'element is not visible: ' + hjePreview(el) };
      default: return !el || !hjeVisible(el) ? { done: true } : { problem: 'element is visible: ' + hjePreview(el) };
    }
  }, false);
  return r.done ? { ok: true, value: null, log: log.out() } : hjeFail(r, log);
}

// ---- assertions -------------------------------------------------------------------------
const HJE_NOT_FOUND = '<element(s) not found>';

function hjeClassMatch(m, cls, contain) {
  if (contain && m.re === undefined) {
    const have = new Set(cls.split(/\s+/).filter(Boolean));
    return m.s.split(/\s+/).filter(Boolean).every((c) => have.has(c));
  }
  if (contain) return hjeExpectMatcher(m)(cls);
  return hjeExpectMatcher(Object.assign({ full: true }, m))(cls);
}

// One check of a locator assertion: {pass, received} (pass before `not`).
function hjeCheckOnce(req) {
  const list = hjeResolve(req.chain);
  const e = req.expected;
  const one = () => {
    if (list.length > 1) return hjeStrict(list);
    return null;
  };
  const textOf = (el) => req.useInnerText ? el.innerText : el.textContent;
  switch (req.matcher) {
    case 'count': return { pass: list.length === e, received: list.length };
    case 'attached': { const s = one(); if (s) return s; return { pass: list.length === 1, received: list.length ? 'attached' : 'detached' }; }
    case 'visible': case 'hidden': {
      const s = one(); if (s) return s;
      const v = list.length === 1 && hjeVisible(list[0]);
      return { pass: req.matcher === 'visible' ? v : !v, received: list.length === 0 ? HJE_NOT_FOUND : v ? 'visible' : 'hidden' };
    }
    case 'texts': case 'containTexts': case 'classes': case 'containClasses': {
      // A list: element by element, in order.
      const received = list.map((el) => req.matcher.endsWith('lasses') ? (el.getAttribute('class') || '') : hjeNorm(textOf(el)));
      let pass = list.length === e.length;
      if (pass) {
        for (let i = 0; i < e.length; i++) {
          const ok = req.matcher === 'classes' ? hjeClassMatch(e[i], received[i], false)
            : req.matcher === 'containClasses' ? hjeClassMatch(e[i], received[i], true)
            : hjeExpectMatcher(Object.assign({ full: req.matcher === 'texts' }, e[i]))(received[i]);
          if (!ok) { pass = false; break; }
        }
      }
      return { pass, received };
    }
    case 'valuesList': {
      const s = one(); if (s) return s;
      if (!list.length) return { pass: false, received: HJE_NOT_FOUND };
      const el = list[0];
      if (el.tagName !== 'SELECT' || !el.multiple) return { fatal: true, done: false, usage: 'to_have_values needs a <select multiple>: ' + hjePreview(el) };
      const received = Array.from(el.selectedOptions).map((o) => o.value);
      const pass = received.length === e.length && e.every((m, i) => hjeExpectMatcher(Object.assign({ full: true }, m))(received[i]));
      return { pass, received };
    }
  }
  const s = one(); if (s) return s;
  if (list.length === 0) return { pass: false, received: HJE_NOT_FOUND, missing: true };
  const el = list[0];
  switch (req.matcher) {
    case 'enabled': { const v = !hjeDisabled(el); return { pass: v, received: v ? 'enabled' : 'disabled' }; }
    case 'disabled': { const v = hjeDisabled(el); return { pass: v, received: v ? 'disabled' : 'enabled' }; }
    case 'editable': { const p = hjeEditableProblem(el); return { pass: !p, received: p ? 'not editable (' + p + ')' : 'editable' }; }
    case 'checked': {
      const c = hjeChecked(el);
      if (c === null) return { fatal: true, done: false, usage: 'not a checkbox or radio button: ' + hjePreview(el) };
      return { pass: c === e, received: c ? 'checked' : 'unchecked' };
    }
    case 'focused': { const v = el.ownerDocument.activeElement === el || (el.shadowRoot && el.shadowRoot.activeElement); return { pass: !!v, received: v ? 'focused' : 'not focused' }; }
    case 'empty': {
      const v = ['INPUT', 'TEXTAREA'].includes(el.tagName) ? !el.value : !hjeNorm(el.textContent);
      return { pass: v, received: v ? 'empty' : 'not empty' };
    }
    case 'inViewport': {
      const ratio = e || 0;
      const b = el.getBoundingClientRect();
      const vw = innerWidth, vh = innerHeight;
      const w = Math.max(0, Math.min(b.right, vw) - Math.max(b.left, 0));
      const h = Math.max(0, Math.min(b.bottom, vh) - Math.max(b.top, 0));
      const area = b.width * b.height;
      const r = area > 0 ? (w * h) / area : 0;
      return { pass: ratio > 0 ? r >= ratio : r > 0, received: 'intersection ratio ' + (Math.round(r * 100) / 100) };
    }
    case 'text': case 'containText': {
      const t = hjeNorm(textOf(el));
      return { pass: hjeExpectMatcher(Object.assign({ full: req.matcher === 'text' }, e))(t), received: t };
    }
    case 'value': {
      if (!['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName)) return { fatal: true, done: false, usage: 'not an <input>, <textarea> or <select>: ' + hjePreview(el) };
      return { pass: hjeExpectMatcher(Object.assign({ full: true, normalize: false }, e))(el.value), received: el.value };
    }
    case 'attribute': {
      const v = el.getAttribute(req.name);
      if (e == null) return { pass: v !== null, received: v === null ? 'no ' + req.name + ' attribute' : v };
      return { pass: v !== null && hjeExpectMatcher(Object.assign({ full: true, normalize: false }, e))(v), received: v === null ? 'no ' + req.name + ' attribute' : v };
    }
    case 'class': case 'containClass': {
      const cls = el.getAttribute('class') || '';
      return { pass: hjeClassMatch(e, cls, req.matcher === 'containClass'), received: cls };
    }
    case 'css': {
      const v = getComputedStyle(el).getPropertyValue(req.name);
      return { pass: hjeExpectMatcher(Object.assign({ full: true, normalize: false }, e))(v), received: v };
    }
    case 'id': { const v = el.id; return { pass: hjeExpectMatcher(Object.assign({ full: true, normalize: false }, e))(v), received: v }; }
    case 'role': { const v = hjAriaRole(el) || ''; return { pass: v === e, received: v }; }
    case 'accessibleName': { const v = hjAccessibleName(el); return { pass: hjeExpectMatcher(Object.assign({ full: true }, e))(v), received: v }; }
    case 'ariaSnapshot': { const v = hjAriaSnapshot(el); return { pass: hjeAriaMatches(e, v), received: v }; }
  }
  return { fatal: true, done: false, usage: 'unknown matcher ' + req.matcher };
}

function hjeDedent(text) {
  const lines = String(text).split('\n').filter((l) => l.trim());
  const indent = Math.min(...lines.map((l) => l.match(/^ */)[0].length));
  return lines.map((l) => ({ depth: l.length - l.trimStart().length - indent, text: l.trim() }));
}

// A template matches when its lines appear in order in the snapshot, each at
// the same depth relative to the first; a template line may leave out the
// attributes ([level=1]) or text of the line it matches.
function hjeAriaMatches(template, snapshot) {
  const want = hjeDedent(template);
  const have = hjeDedent(snapshot);
  if (!want.length) return true;
  const same = (w, h) => h.text === w.text || h.text.startsWith(w.text + ' [') || h.text.startsWith(w.text + ':') || (w.text.endsWith(':') && h.text.startsWith(w.text.slice(0, -1)));
  for (let start = 0; start < have.length; start++) {
    if (!same(want[0], have[start])) continue;
    const base = have[start].depth - want[0].depth;
    let j = start + 1, ok = true;
    for (let i = 1; i < want.length && ok; i++) {
      while (j < have.length && !(have[j].depth - base === want[i].depth && same(want[i], have[j]))) j++;
      if (j >= have.length) ok = false; else j++;
    }
    if (ok) return true;
  }
  return false;
}

async function hjeExpect(req) {
  const log = new HjeLog();
  log.add('expect ' + req.describe + (req.not ? ' not ' : ' ') + req.what);
  let last = null;
  const r = await hjeRetry(req.timeout, log, () => {
    const c = req.page ? hjeCheckPage(req) : hjeCheckOnce(req);
    if (c.fatal) return c;
    last = c;
    if (c.pass !== !!req.not) return { done: true };
    return { problem: (c.missing ? 'waiting for ' + req.describe : 'unexpected value ' + JSON.stringify(c.received)) };
  }, false);
  if (r.strict) return hjeFail(r, log);
  if (r.usage) return { ok: false, error: { kind: 'usage', message: r.usage }, log: log.out() };
  return { ok: true, value: { pass: !!r.done, received: last ? last.received : null }, log: log.out() };
}

function hjeCheckPage(req) {
  const v = req.matcher === 'url' ? location.href : document.title;
  return { pass: hjeExpectMatcher(Object.assign({ full: true, normalize: req.matcher !== 'url' }, req.expected))(v), received: v };
}

async function hjeWaitForFunction(req, fn) {
  const log = new HjeLog();
  log.add('waiting for the function to return a truthy value');
  let value;
  const r = await hjeRetry(req.timeout, log, async () => {
    value = typeof fn === 'function' ? await fn(req.arg) : fn;
    return value ? { done: true } : { problem: 'returned ' + JSON.stringify(value) };
  }, !!req.raf);
  return r.done ? { ok: true, value, log: [] } : hjeFail(r, log);
}

window.__harshjudgeEngine = {
  run(req) {
    if (req.op !== 'hitResult') hjeStopIntercepting();
    switch (req.op) {
      case 'hitResult': return Promise.resolve(hjeHitResult(req));
      case 'act':
        // Listening for the pointer action's event only when one comes.
        return hjeAct(req).then((a) => { if (!(a.ok && a.value && a.value.point)) hjeStopIntercepting(); return a; });
      case 'checked': return Promise.resolve(hjeCheckedNow(req));
      case 'query': return hjeQuery(req);
      case 'waitFor': return hjeWaitFor(req);
      case 'expect': return hjeExpect(req);
      case 'ariaSnapshot': return Promise.resolve({ ok: true, value: hjAriaSnapshot(document.body), log: [] });
      default: return Promise.resolve({ ok: false, error: { kind: 'usage', message: 'unknown op ' + req.op } });
    }
  },
  waitForFunction: hjeWaitForFunction,
};
