// Every name of this file starts with hjg/HJG_ so that it cannot clash with the
// files concatenated before it (roles.js, names.js, aria.js, engine.js, …).
//
// Locator generation: the locator a person would write for an element, as
// Playwright's generateLocator does it (its rules, in our own code): the
// element's own candidates first (test id, role and accessible name, label,
// placeholder, alt text, text, title, role alone), each checked for
// strictness against the live page with the engine's own resolver
// (hjeResolve); when none is unique, a unique ancestor scopes it (its test id
// or role, narrowed by its text with filter_has_text when needed); nth only
// when nothing else tells the element apart; a CSS path as the last resort.
//
// A generated locator is a list of parts, each {kind, value, name?, exact?}:
// kind testId | role | label | placeholder | altText | text | title |
// hasText | nth | css. Rust's GeneratedLocator reads it.

const HJG_MAX_TEXT = 80;
const HJG_MAX_ANCESTORS = 6;

// A part as the engine's chain step (what the Rust builder of the same call
// pushes: locator/mod.rs).
function hjgStep(p) {
  const m = { s: p.value, exact: !!p.exact };
  switch (p.kind) {
    case 'testId': return { kind: 'attr', name: 'data-testid', m: { s: p.value, exact: true } };
    case 'role': return { kind: 'role', role: p.value, name: p.name == null ? null : { s: p.name, exact: !!p.exact }, includeHidden: false };
    case 'label': return { kind: 'label', m };
    case 'placeholder': return { kind: 'attr', name: 'placeholder', m };
    case 'altText': return { kind: 'attr', name: 'alt', m };
    case 'title': return { kind: 'attr', name: 'title', m };
    case 'text': return { kind: 'text', m };
    case 'hasText': return { kind: 'hasText', m, not: false };
    case 'nth': return { kind: 'nth', i: p.value };
    case 'css': return { kind: 'css', sel: p.value };
  }
  throw new Error('unknown generated part ' + p.kind);
}

function hjgResolve(parts, scope) {
  return hjeResolve(parts.map(hjgStep), scope);
}

// A short text worth quoting, or null.
function hjgShort(s) {
  const t = hjeNorm(s);
  return t && t.length <= HJG_MAX_TEXT ? t : null;
}

// A form control: a label or placeholder is what a person names it by.
function hjgIsControl(el) {
  return ['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName);
}

// The element's own candidates, best first. Each: {parts, score}; a
// substring form and, where it differs, the exact form (tried when the
// substring one matches more than the element).
function hjgCandidates(el) {
  const out = [];
  const add = (score, part) => {
    out.push({ score, parts: [part] });
    if (part.kind !== 'testId' && (part.kind !== 'role' || part.name != null)) {
      out.push({ score: score + 1, parts: [Object.assign({}, part, { exact: true })] });
    }
  };
  const tid = el.getAttribute('data-testid');
  if (tid) out.push({ score: 1, parts: [{ kind: 'testId', value: tid }] });
  const role = hjAriaRole(el);
  const usefulRole = role && !['generic', 'none', 'presentation', 'LabelText', 'paragraph', 'group'].includes(role);
  const name = usefulRole ? hjgShort(hjAccessibleName(el)) : null;
  const labels = hjgIsControl(el) || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby')
    ? hjeLabelText(el).map(hjgShort).filter(Boolean) : [];
  const placeholder = hjgShort(el.getAttribute('placeholder'));
  // A control is named by its label, then its placeholder; anything else by
  // its role and name first.
  if (hjgIsControl(el)) {
    if (labels.length) add(10, { kind: 'label', value: labels[0] });
    if (placeholder) add(12, { kind: 'placeholder', value: placeholder });
    if (usefulRole && name) add(14, { kind: 'role', value: role, name });
  } else {
    if (usefulRole && name) add(10, { kind: 'role', value: role, name });
    if (labels.length) add(12, { kind: 'label', value: labels[0] });
    if (placeholder) add(14, { kind: 'placeholder', value: placeholder });
  }
  const alt = hjgShort(el.getAttribute('alt'));
  if (alt) add(16, { kind: 'altText', value: alt });
  if (!hjgIsControl(el)) {
    const text = hjgShort(hjeElementText(el));
    if (text) add(18, { kind: 'text', value: text });
  }
  const title = hjgShort(el.getAttribute('title'));
  if (title) add(20, { kind: 'title', value: title });
  if (usefulRole) out.push({ score: 50, parts: [{ kind: 'role', value: role }] });
  out.sort((a, b) => a.score - b.score);
  return out;
}

// Candidates of an ancestor that scopes: its own candidates, and its test id
// or role narrowed by its text.
function hjgScopeCandidates(a) {
  const out = hjgCandidates(a).filter((c) => c.parts[0].kind !== 'text');
  const text = hjgShort(hjeElementText(a));
  if (text) {
    const tid = a.getAttribute('data-testid');
    if (tid) out.push({ score: 3, parts: [{ kind: 'testId', value: tid }, { kind: 'hasText', value: text }] });
    const role = hjAriaRole(a);
    if (role && !['generic', 'none', 'presentation'].includes(role)) {
      out.push({ score: 30, parts: [{ kind: 'role', value: role }, { kind: 'hasText', value: text }] });
    }
  }
  out.sort((a, b) => a.score - b.score);
  return out;
}

const hjgOnly = (list, el) => list.length === 1 && list[0] === el;

// The best locator for `el`: {parts, unique} (unique: it matches el alone).
function hjgGenerate(el) {
  if (!el || el.nodeType !== 1) return null;
  const own = hjgCandidates(el);
  for (const c of own) if (hjgOnly(hjgResolve(c.parts), el)) return { parts: c.parts, unique: true };
  // Scoped by an ancestor that is itself unique, nearest first; of the
  // scopes of one ancestor, the best score.
  let best = null;
  let depth = 0;
  for (let a = hjeParent(el); a && a !== document.body && a !== document.documentElement && depth < HJG_MAX_ANCESTORS; a = hjeParent(a), depth++) {
    for (const sc of hjgScopeCandidates(a)) {
      if (best && sc.score >= best.score) break;
      if (!hjgOnly(hjgResolve(sc.parts), a)) continue;
      for (const c of own) {
        const score = sc.score + c.score + depth;
        if (best && score >= best.score) break;
        if (hjgOnly(hjgResolve(c.parts, [a]), el)) { best = { score, parts: sc.parts.concat(c.parts) }; break; }
      }
    }
  }
  if (best) return { parts: best.parts, unique: true };
  // nth of the best own candidate.
  for (const c of own) {
    const list = hjgResolve(c.parts);
    const i = list.indexOf(el);
    if (i >= 0) return { parts: c.parts.concat([{ kind: 'nth', value: i }]), unique: true };
  }
  // A CSS path.
  const path = [];
  for (let e = el; e && e.nodeType === 1 && e !== document.body; e = e.parentElement) {
    if (e.id && /^[A-Za-z][\w-]*$/.test(e.id) && document.querySelectorAll('#' + e.id).length === 1) { path.unshift('#' + e.id); break; }
    let i = 1;
    for (let s = e.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === e.tagName) i++;
    path.unshift(e.tagName.toLowerCase() + ':nth-of-type(' + i + ')');
  }
  const sel = (path[0] && path[0][0] === '#' ? '' : 'body > ') + path.join(' > ');
  return { parts: [{ kind: 'css', value: sel }], unique: hjgOnly(hjgResolve([{ kind: 'css', value: sel }]), el) };
}

window.__harshjudgeEngine.generateLocator = function (selector) {
  const found = hjeResolve([{ kind: 'css', sel: selector }]);
  if (found.length !== 1) return { found: found.length };
  return { found: 1, locator: hjgGenerate(found[0]) };
};

// An element's ARIA role and accessible name, as locators and aria snapshots
// compute them: what a tool's own page outline lists (an element of a
// same-origin frame too: the computation reads only the element's document).
window.__harshjudgeEngine.describe = function (el) {
  return { role: hjAriaRole(el), name: hjAccessibleName(el) };
};

// harshjudge-mcp's browser_snapshot: the ARIA tree of the page as YAML lines
// with a ref and test id on each node (hjAgentNode in aria.js), at most max
// nodes. ref(el) and frame(iframe) come from the caller, which keeps the refs.
window.__harshjudgeEngine.agentSnapshot = function (opts) {
  var agent = { max: opts.max, count: 0, truncated: false, ref: opts.ref, frame: opts.frame };
  var tree = hjAriaTree(document.body || document.documentElement, agent);
  return { yaml: hjAriaYaml(tree, true), nodes: agent.count, truncated: agent.truncated };
};
