// The CSS selector a person would write for an iframe, in its own document:
// its id, name, title or src when that names it alone, else its path of
// :nth-of-type steps from the nearest ancestor with a unique id (or from
// body). What `page.frame_locator(…)` is given in a recording.
const hjFrameCss = (f) => {
  const doc = f.ownerDocument;
  const tag = f.tagName.toLowerCase();
  const one = (css) => { try { return doc.querySelectorAll(css).length === 1; } catch (err) { return false; } };
  const q = (v) => JSON.stringify(v);
  if (f.id && one(tag + '#' + CSS.escape(f.id))) return tag + '#' + CSS.escape(f.id);
  for (const a of ['name', 'title', 'src']) {
    const v = f.getAttribute(a);
    if (v && one(tag + '[' + a + '=' + q(v) + ']')) return tag + '[' + a + '=' + q(v) + ']';
  }
  if (doc.querySelectorAll(tag).length === 1) return tag;
  const steps = [];
  let el = f;
  while (el && el !== doc.body && el.parentElement) {
    if (el !== f && el.id && one('#' + CSS.escape(el.id))) { steps.unshift('#' + CSS.escape(el.id)); break; }
    const t = el.tagName.toLowerCase();
    const k = Array.from(el.parentElement.children).filter((c) => c.tagName === el.tagName).indexOf(el) + 1;
    steps.unshift(t + ':nth-of-type(' + k + ')');
    el = el.parentElement;
  }
  if (el === doc.body) steps.unshift('body');
  return steps.join(' > ');
};
