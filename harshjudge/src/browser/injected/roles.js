// Stand-in for the role and accessible-name engine (the full one replaces this
// file): implicit roles of common elements, names from aria-labelledby,
// aria-label, <label>, alt, title, placeholder and content.
function hjIsAriaHidden(el) {
  for (let e = el; e && e.nodeType === 1; e = e.parentElement || (e.getRootNode() && e.getRootNode().host)) {
    if (e.getAttribute('aria-hidden') === 'true' || e.hasAttribute('inert')) return true;
    const s = getComputedStyle(e);
    if (s.display === 'none') return true;
    if (e === el && s.visibility !== 'visible') return true;
    const t = e.tagName;
    if (t === 'TEMPLATE' || t === 'SCRIPT' || t === 'STYLE' || t === 'NOSCRIPT' || t === 'HEAD') return true;
  }
  return false;
}
function hjRole(el) {
  const explicit = (el.getAttribute('role') || '').trim().split(/\s+/)[0];
  if (explicit) return explicit;
  const t = el.tagName.toLowerCase();
  const type = (el.getAttribute('type') || '').toLowerCase();
  switch (t) {
    case 'a': case 'area': return el.hasAttribute('href') ? 'link' : 'generic';
    case 'button': return 'button';
    case 'input':
      if (type === 'checkbox') return 'checkbox';
      if (type === 'radio') return 'radio';
      if (['button', 'submit', 'reset', 'image'].includes(type)) return 'button';
      if (type === 'range') return 'slider';
      if (type === 'number') return 'spinbutton';
      if (type === 'search') return el.hasAttribute('list') ? 'combobox' : 'searchbox';
      if (type === 'hidden') return null;
      return el.hasAttribute('list') ? 'combobox' : 'textbox';
    case 'textarea': return 'textbox';
    case 'select': return (el.multiple || el.size > 1) ? 'listbox' : 'combobox';
    case 'option': return 'option';
    case 'ul': case 'ol': case 'menu': return 'list';
    case 'li': return 'listitem';
    case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
    case 'img': return el.getAttribute('alt') === '' ? 'presentation' : 'img';
    case 'nav': return 'navigation';
    case 'main': return 'main';
    case 'header': return 'banner';
    case 'footer': return 'contentinfo';
    case 'aside': return 'complementary';
    case 'form': return 'form';
    case 'table': return 'table';
    case 'tr': return 'row';
    case 'td': return 'cell';
    case 'th': return 'columnheader';
    case 'dialog': return 'dialog';
    case 'p': return 'paragraph';
    case 'section': return 'region';
    case 'article': return 'article';
    case 'label': case 'span': case 'div': return 'generic';
    default: return null;
  }
}
function hjAccessibleName(el) {
  const by = el.getAttribute('aria-labelledby');
  if (by) {
    const parts = by.split(/\s+/).map(id => document.getElementById(id)).filter(Boolean);
    if (parts.length) return parts.map(e => (e.textContent || '')).join(' ').replace(/\s+/g, ' ').trim();
  }
  const label = el.getAttribute('aria-label');
  if (label && label.trim()) return label.trim();
  if (el.labels && el.labels.length) return Array.from(el.labels).map(l => l.textContent || '').join(' ').replace(/\s+/g, ' ').trim();
  const t = el.tagName;
  if (t === 'IMG' || (t === 'INPUT' && el.type === 'image')) { const a = el.getAttribute('alt'); if (a) return a.trim(); }
  if (t === 'INPUT' && ['button', 'submit', 'reset'].includes(el.type)) return el.value || (el.type === 'submit' ? 'Submit' : el.type === 'reset' ? 'Reset' : '');
  const role = hjRole(el);
  if (['button', 'link', 'heading', 'option', 'cell', 'columnheader', 'checkbox', 'radio', 'tab', 'menuitem'].includes(role) && !['INPUT', 'SELECT', 'TEXTAREA'].includes(t)) {
    const text = (el.innerText || el.textContent || '').replace(/\s+/g, ' ').trim();
    if (text) return text;
  }
  const title = el.getAttribute('title');
  if (title) return title.trim();
  const ph = el.getAttribute('placeholder');
  if (ph && (t === 'INPUT' || t === 'TEXTAREA')) return ph.trim();
  return '';
}
function hjAriaLevel(el) {
  const a = parseInt(el.getAttribute('aria-level') || '', 10);
  if (a > 0) return a;
  const m = /^H([1-6])$/.exec(el.tagName);
  return m ? Number(m[1]) : 0;
}
function hjAriaChecked(el) {
  const a = el.getAttribute('aria-checked');
  if (a === 'true') return true;
  if (a === 'mixed') return 'mixed';
  if (el.tagName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) return el.indeterminate ? 'mixed' : el.checked;
  return false;
}
function hjAriaDisabled(el) {
  for (let e = el; e; e = e.parentElement) {
    if (e.getAttribute('aria-disabled') === 'true') return true;
  }
  return !!el.disabled;
}
function hjAriaExpanded(el) { const a = el.getAttribute('aria-expanded'); return a === null ? null : a === 'true'; }
function hjAriaPressed(el) { const a = el.getAttribute('aria-pressed'); return a === 'mixed' ? 'mixed' : a === 'true'; }
function hjAriaSelected(el) { return el.getAttribute('aria-selected') === 'true' || (el.tagName === 'OPTION' && el.selected); }
function hjAriaSnapshot(root) {
  const out = [];
  const q = s => JSON.stringify(s);
  const walk = (node, depth) => {
    for (const child of node.children) {
      if (hjIsAriaHidden(child)) continue;
      const role = hjRole(child);
      if (role && role !== 'generic' && role !== 'presentation' && role !== 'none') {
        const name = hjAccessibleName(child);
        let line = '  '.repeat(depth) + '- ' + role + (name ? ' ' + q(name) : '');
        if (role === 'heading') line += ' [level=' + hjAriaLevel(child) + ']';
        if ((role === 'checkbox' || role === 'radio') && hjAriaChecked(child) === true) line += ' [checked]';
        const before = out.length;
        out.push(line);
        walk(child, depth + 1);
        if (out.length === before + 1 && !name) {
          const text = (child.textContent || '').replace(/\s+/g, ' ').trim();
          if (text) out[before] += ': ' + q(text);
        }
      } else {
        const own = Array.from(child.childNodes).filter(n => n.nodeType === 3).map(n => n.textContent).join(' ').replace(/\s+/g, ' ').trim();
        if (own && child.children.length === 0) out.push('  '.repeat(depth) + '- text: ' + q(own));
        else walk(child, depth);
      }
    }
  };
  walk(root.nodeType === 9 ? root.body : root, 0);
  return out.join('\n');
}
