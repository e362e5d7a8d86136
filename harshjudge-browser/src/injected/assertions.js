// The engine's web-first assertions and its entry point (`window.__harshjudgeEngine`).
// Concatenated last, after engine.js and actions.js, in the same closure.

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

// One check of an assertion: {pass, received} (pass before `not`), or an
// attempt result that ends the retry (a strict mode violation, a misuse).
function hjeCheckOnce(req) {
  const e = req.expected;
  switch (req.matcher) {
    // The page's own: no locator.
    case 'url': case 'title': {
      const v = req.matcher === 'url' ? location.href : document.title;
      return { pass: hjeExpectMatcher(Object.assign({ full: true, normalize: req.matcher !== 'url' }, e))(v), received: v };
    }
  }
  // Lists and counts look at every match; every other matcher at the single one.
  const many = ['count', 'texts', 'containTexts', 'classes', 'containClasses'].includes(req.matcher);
  const q = hjeQuerySelector(req.chain, !many);
  if (q.violation) return q.violation;
  const list = q.elements;
  if (req.trace && !many) hjtActed = list[0] || null;
  const textOf = (el) => req.useInnerText ? el.innerText : el.textContent;
  switch (req.matcher) {
    case 'count': return { pass: list.length === e, received: list.length };
    case 'attached': return { pass: list.length === 1, received: list.length ? 'attached' : 'detached' };
    case 'visible': case 'hidden': {
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
      if (!list.length) return { pass: false, received: HJE_NOT_FOUND };
      const el = list[0];
      if (el.tagName !== 'SELECT' || !el.multiple) return { fatal: true, done: false, usage: 'to_have_values needs a <select multiple>: ' + hjePreview(el) };
      const received = Array.from(el.selectedOptions).map((o) => o.value);
      const pass = received.length === e.length && e.every((m, i) => hjeExpectMatcher(Object.assign({ full: true }, m))(received[i]));
      return { pass, received };
    }
  }
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
    case 'ariaSnapshot': {
      if (!req.prepared) {
        try { req.prepared = hjAriaPrepare(e); } catch (msg) { return { fatal: true, done: false, usage: String(msg) }; }
      }
      const tree = hjAriaTree(el);
      return { pass: hjAriaTreeMatches(tree, req.prepared), received: hjAriaYaml(tree) };
    }
  }
  return { fatal: true, done: false, usage: 'unknown matcher ' + req.matcher };
}

async function hjeExpect(req) {
  const log = new HjeLog();
  log.add('expect ' + req.describe + (req.not ? ' not ' : ' ') + req.what);
  let last = null;
  const r = await hjeRetry(req.timeout, log, () => {
    const c = hjeCheckOnce(req);
    if (c.fatal) return c;
    last = c;
    if (c.pass !== !!req.not) return { done: true };
    return { problem: (c.missing ? 'waiting for ' + req.describe : 'unexpected value ' + JSON.stringify(c.received)) };
  }, false);
  if (r.strict) return hjeFail(r, log);
  if (r.usage) return hjeError('usage', { message: r.usage }, log.out());
  return { ok: true, value: { pass: !!r.done, received: last ? last.received : null }, log: log.out() };
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

// One request (Rust's protocol::Request), one answer; a script error is a `js` error.
// A request whose target asks (`trace`: a trace is recorded) has its answer
// name the element it resolved (`traced`): an action's, a read's, a wait's,
// a single-element assertion's, or the one it last waited for.
// While traced, an `act` answers the snapshot it took before acting and an
// `expect` the one of its last check (`snapshot`: snapshot.js's {json,
// frames, doc}); a `snapshot` leaves a pointer action's check listening.
async function hjeRun(req) {
  if (req.op !== 'hitResult' && req.op !== 'snapshot') hjeStopIntercepting();
  hjtActed = null;
  hjsTaken = null;
  const a = await hjeRunOp(req);
  const acted = hjtActed && hjtActed.isConnected ? hjtActed : null;
  if (req.trace && acted) a.traced = hjtTraced(acted);
  if (req.trace && req.op === 'expect') hjsTaken = hjsSnapshot(acted, null);
  if (req.trace && hjsTaken) a.snapshot = hjsTaken;
  hjsTaken = null;
  return a;
}

async function hjeRunOp(req) {
  switch (req.op) {
    case 'hitResult': return hjeHitResult(req);
    case 'act': {
      // Listening for the pointer action's event only when one comes.
      const a = await hjeAct(req);
      if (!(a.ok && a.value && a.value.point)) hjeStopIntercepting();
      return a;
    }
    case 'checked': return hjeCheckedNow(req);
    case 'query': return hjeQuery(req);
    case 'waitFor': return hjeWaitFor(req);
    case 'expect': return hjeExpect(req);
    case 'ariaSnapshot': return { ok: true, value: hjAriaSnapshot(document.body), log: [] };
    case 'traceTargets': return { ok: true, value: hjtNames(req.ids), log: [] };
    case 'snapshot': {
      // The trace's target, when this document holds it (an id of `traced`).
      const ref = req.target ? hjtTargets.get(req.target) : null;
      const el = ref ? ref.deref() : null;
      return { ok: true, value: hjsSnapshot(el && el.isConnected ? el : null, req.skip || null), log: [] };
    }
  }
  return hjeError('usage', { message: 'unknown op ' + req.op });
}

window.__harshjudgeEngine = {
  run(req) {
    return hjeRun(req).catch((e) => hjeError('js', { message: String(e && e.message || e) }));
  },
  waitForFunction: hjeWaitForFunction,
};
