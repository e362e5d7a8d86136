// The engine's pointer-action check, actions, HTML5 drag and drop, reads and
// waitFor. Concatenated after engine.js (whose helpers it uses) in the same
// closure; every name starts with hje/Hje/HJE_.

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
// The events a mouse action starts with: one of another kind seen first here
// means the action's press went to another document (the page around this
// frame, or a frame over the element), and its release alone clicks nothing.
const HJE_PRESSES = ['pointerdown', 'mousedown'];
let hjeInterceptor = null;

function hjeStopIntercepting() {
  if (hjeInterceptor) hjeInterceptor.stop();
  hjeInterceptor = null;
}

function hjeIntercept(el, kind) {
  hjeStopIntercepting();
  const events = HJE_HIT_EVENTS[kind] || HJE_HIT_EVENTS.mouse;
  const state = { result: null, blocked: 0, events };
  const listener = (ev) => {
    if (!ev.isTrusted) return;
    if (state.result === null) {
      const path = ev.composedPath();
      const t = path.find((n) => n.nodeType === 1) || null;
      if (events === HJE_HIT_EVENTS.mouse && !HJE_PRESSES.includes(ev.type)) {
        state.result = window !== window.parent
          ? { unreached: true }
          : { hit: 'another document (a frame over it)', event: 'press' };
      } else {
        state.result = hjeReceives(el, t) ? { done: true } : { hit: t ? hjePreview(t) : 'nothing', event: ev.type };
      }
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
  const timer = hjeReal.setTimeout(() => { if (hjeInterceptor === state) hjeStopIntercepting(); }, 10000);
  state.stop = () => {
    hjeReal.clearTimeout(timer);
    for (const t of events) window.removeEventListener(t, listener, opts);
  };
  hjeInterceptor = state;
}

// After the action: {done} (the element got it, or no event of the action came:
// nothing to judge) or {hit, event} naming the element that got it instead.
// In a frame, a press or click of which no event came is {unreached}: every
// such event passes the frame's window, so the browser gave them to the page
// around the frame (something over it, or, under load, an out-of-process
// frame that did not take input yet), and the element was not clicked; so is
// one whose release came without its press (the page let the frame in between).
function hjeHitResult(req) {
  const st = hjeInterceptor;
  if (!st) return { ok: true, value: { done: true, none: true }, log: [] };
  if (!req.keep) hjeStopIntercepting();
  if (!st.result && st.events === HJE_HIT_EVENTS.mouse && window !== window.parent) return { ok: true, value: { unreached: true }, log: [] };
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
    const q = hjeQuerySelector(req.chain, true);
    if (q.violation) return q.violation;
    const el = q.element;
    if (!el) return { problem: 'no element matches' };
    // An action that times out names the element it last waited for.
    if (req.trace) hjtActed = el;
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
    if (checks.hit || checks.point) {
      // A click's `position`: from the top left of the padding box (so that
      // the event's offsetX/offsetY are that position), as Playwright's.
      let p = req.position ? hjeOffsetPoint(el, req.position) : hjeHitPoint(el);
      if (!p) {
        el.scrollIntoView({ block: ['center', 'end', 'start', 'nearest'][scrolled % 4], inline: 'center', behavior: 'instant' });
        scrolled++;
        lastRect = null;
        return { problem: 'scrolling into view' };
      }
      // `force`: wherever the pointer lands, nothing checked.
      if (!checks.hit) return { done: true, el, point: p };
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

function hjeFail(r, log) {
  if (r.strict) return hjeError('strict', r.strict, log.out());
  return hjeError('timeout', { problem: r.problem || '' }, log.out());
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
  fill: { visible: true, enabled: true, editable: true },
  selectOption: { visible: true, enabled: true },
  scrollIntoView: { visible: true, stable: true },
  screenshot: { visible: true, stable: true },
  focus: {}, blur: {}, dispatchEvent: {}, press: {}, setInputFiles: {},
};

// The viewport point `pos` from the top left of `el`'s padding box, or null
// when it is outside the viewport.
function hjeOffsetPoint(el, pos) {
  const r = el.getBoundingClientRect();
  const cs = getComputedStyle(el);
  const x = r.left + (parseFloat(cs.borderLeftWidth) || 0) + pos.x;
  const y = r.top + (parseFloat(cs.borderTopWidth) || 0) + pos.y;
  const vw = document.documentElement.clientWidth || innerWidth;
  const vh = document.documentElement.clientHeight || innerHeight;
  if (x < 0 || y < 0 || x >= vw || y >= vh) return null;
  return { x, y };
}

// ---- the trace's targets (docs/design/trace.md D4) --------------------------------------
// While a trace is recorded an action's request carries `trace: true`, and
// its answer then names the element it acted on (`traced`): its box, in the
// top page's CSS pixels as `boundingBox` reads it (moved there by the
// backend), and an id this document
// keeps it under (weakly), so that the step's end can ask for its generated
// locator (`traceTargets`) only when the trace is kept. The ids name their
// document: one left by a navigation is not found again (detached).
const HJT_DOC = Math.random().toString(36).slice(2, 10);
const HJT_MAX = 1000;
const hjtTargets = new Map();
let hjtNext = 0;
// The element the running action resolved (its answer's `traced`).
let hjtActed = null;

// The element's box in this document's viewport (in a frame, the backend
// moves it into the top page's by the frame's offset, which it reads from
// the frames' parents: a frame of another origin cannot read its own).
function hjtBox(el) {
  const b = el.getBoundingClientRect();
  return { x: b.x, y: b.y, width: b.width, height: b.height };
}

// What an answer says of the element an action resolved: {id, box}.
function hjtTraced(el) {
  const id = HJT_DOC + ':' + (++hjtNext);
  hjtTargets.set(id, new WeakRef(el));
  // The oldest first out: ids of steps whose trace was not kept.
  if (hjtTargets.size > HJT_MAX) hjtTargets.delete(hjtTargets.keys().next().value);
  return { id, box: hjtBox(el), style: hjtStyle(el) };
}

// What of its computed style tells whether it could be acted on.
function hjtStyle(el) {
  const s = getComputedStyle(el);
  return {
    display: s.display, visibility: s.visibility, opacity: s.opacity,
    pointerEvents: s.pointerEvents, position: s.position, zIndex: s.zIndex,
  };
}

// The generated locator of each element named by `ids` (in order), null for
// one no longer in this document; the ids are forgotten.
function hjtNames(ids) {
  return ids.map((id) => {
    const ref = hjtTargets.get(id);
    hjtTargets.delete(id);
    const el = ref && ref.deref();
    if (!el || !el.isConnected) return null;
    return hjgGenerate(el);
  });
}

// Whether typing into `el` types a password (the trace writes such text as
// dots): an <input type=password>, its type in any case.
function hjeIsPassword(el) {
  return el.localName === 'input' && String(el.type).toLowerCase() === 'password';
}

async function hjeAct(req) {
  const log = new HjeLog();
  if (req.action === 'check') {
    // Already in the wanted state: nothing to do.
    const q = hjeQuerySelector(req.chain, true);
    if (q.element && hjeChecked(q.element) === req.checked) {
      hjtActed = q.element;
      if (req.trace) hjsTaken = hjsSnapshot(q.element, null);
      return { ok: true, value: { done: true }, log: [] };
    }
  }
  let checks = HJE_ACTION_CHECKS[req.action];
  if (!checks) return hjeError('usage', { message: 'unknown action ' + req.action });
  // `force` (a click's option): no actionability check, only the point.
  if (req.force) checks = { point: true };
  const r = await hjeActionable(req, checks, log);
  // A trace's before: the page as the action met it, its element resolved
  // and actionable (or, when it timed out, the one it last waited for).
  if (req.trace) hjsTaken = hjsSnapshot(r.done ? r.el : hjtActed, null);
  if (!r.done) return hjeFail(r, log);
  const el = r.el;
  switch (req.action) {
    case 'check': {
      const c = hjeChecked(el);
      if (c === null) return hjeError('usage', { message: 'not a checkbox or radio button: ' + hjePreview(el) }, log.out());
      if (c === req.checked) return { ok: true, value: { done: true }, log: log.out() };
      return { ok: true, value: { point: r.point }, log: log.out() };
    }
    case 'fill':
      hjeFill(el, req.value);
      return { ok: true, value: { done: true, password: hjeIsPassword(el) }, log: log.out() };
    case 'selectOption': {
      const s = hjeSelect(el, req.options);
      if (s.missing !== undefined) return hjeError('usage', { message: 'no option ' + JSON.stringify(s.missing) + ' in ' + hjePreview(el) + '; options: ' + JSON.stringify(Array.from(el.options).map((o) => o.label)) }, log.out());
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
      return { ok: true, value: { done: true, password: hjeIsPassword(el) }, log: log.out() };
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
      // The clip in the page's document: in a frame, in the frame's
      // viewport (the backend moves it into the page's, the caller adds the
      // page's scroll, which a frame of another origin cannot read).
      el.scrollIntoView({ block: 'nearest', inline: 'nearest', behavior: 'instant' });
      const b = el.getBoundingClientRect();
      const [sx, sy] = window === window.parent ? [scrollX, scrollY] : [0, 0];
      return { ok: true, value: { x: b.x + sx, y: b.y + sy, width: b.width, height: b.height }, log: log.out() };
    }
    case 'drag': {
      const src = hjeDraggable(hjeHitTarget(r.point.x, r.point.y));
      if (!src || !req.target) return { ok: true, value: { point: r.point }, log: log.out() };
      return hjeHtml5Drag(req, src, r.point, log);
    }
    case 'setInputFiles':
      return { ok: true, value: { element: el }, log: log.out() };
    case 'click': case 'dblclick': case 'hover':
      return { ok: true, value: { point: r.point }, log: log.out() };
  }
  return hjeError('usage', { message: 'unknown action ' + req.action }, log.out());
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
  const started = hjeReal.now();
  const t = await hjeActionable({ chain: req.target, describe: req.targetDescribe, timeout: Math.max(0, req.timeout - (hjeReal.now() - started)) },
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
  const q = hjeQuerySelector(req.chain, true);
  if (q.violation || !q.element) return { ok: true, value: null, log: [] };
  return { ok: true, value: hjeChecked(q.element), log: [] };
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
    case 'boundingBox': return hjeVisible(el) ? hjtBox(el) : null;
    case 'ariaSnapshot': return hjAriaSnapshot(el);
    default: throw new Error('unknown read ' + what);
  }
}

async function hjeQuery(req) {
  const log = new HjeLog();
  if (req.all) {
    const q = hjeQuerySelector(req.chain, false);
    return { ok: true, value: q.elements.map((e) => hjeRead(e, req.read, req)), log: [] };
  }
  switch (req.read) {
    case 'count': return { ok: true, value: hjeQuerySelector(req.chain, false).elements.length, log: [] };
    case 'isVisible': case 'isHidden': {
      // No waiting: the state now.
      const q = hjeQuerySelector(req.chain, true);
      if (q.violation) return hjeFail(q.violation, log);
      if (req.trace) hjtActed = q.element || null;
      const v = !!q.element && hjeVisible(q.element);
      return { ok: true, value: req.read === 'isVisible' ? v : !v, log: [] };
    }
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
    const q = hjeQuerySelector(req.chain, true);
    if (q.violation) return q.violation;
    const el = q.element;
    if (req.trace) hjtActed = el || null;
    switch (req.state) {
      case 'attached': return el ? { done: true } : { problem: 'no element matches' };
      case 'detached': return el ? { problem: 'element is attached: ' + hjePreview(el) } : { done: true };
      case 'visible': return !el ? { problem: 'no element matches' } : hjeVisible(el) ? { done: true } : { problem: 'element is not visible: ' + hjePreview(el) };
      case 'hidden': return !el || !hjeVisible(el) ? { done: true } : { problem: 'element is visible: ' + hjePreview(el) };
      default: return { fatal: true, done: false, usage: 'unknown state ' + req.state };
    }
  }, false);
  if (r.usage) return hjeError('usage', { message: r.usage }, log.out());
  return r.done ? { ok: true, value: null, log: log.out() } : hjeFail(r, log);
}

