// Accessible names (accname 1.2 as Chromium computes it) and ARIA states (the
// ARIA snapshot is in aria.js). Part of the role functions: concatenated after
// roles.js, in the same closure (see roles.js for the API and the memoisation).

// ---- accessible names --------------------------------------------------------

// Names are built like rendered text: HJ_BOX stands for inline content that
// takes room on the line but adds no text (an image with alt="", an
// aria-hidden icon), HJ_BREAK for the edge of a block. hjCollapse turns them
// into what Chromium reports: white space collapsed, block edges become one
// space, and white space at the start or end of the line dropped, so the space
// after a decorative icon stays (" Profile" for <img alt=""> Profile).
var HJ_BOX = '\u0001';
var HJ_BREAK = '\u0002';

// The final form of a name: white space collapsed and block edges resolved,
// but (as in Chromium) a leading or trailing space that layout kept stays.
function hjFinalName(s) {
  s = s.replace(/\u0001/g, '').replace(/[ \t\n\r\f]+/g, ' ');
  // A block edge becomes one space inside the name, nothing at its ends; a
  // space the text itself had stays.
  s = s.replace(/[ \u0002]*\u0002[ \u0002]*/g, function (run, at) {
    var edge = at === 0 || at + run.length === s.length;
    return edge && run.indexOf(' ') < 0 ? '' : ' ';
  });
  return s;
}

// White space collapsed and trimmed (labels, options, snapshot text).
function hjCollapse(s) {
  s = s.replace(/\u0001/g, '').replace(/[ \t\n\r\f]+/g, ' ');
  s = s.replace(/ ?\u0002[\u0002 ]*/g, HJ_BREAK);
  s = s.replace(/^[ \u0002]+|[ \u0002]+$/g, '');
  s = s.replace(/\u0002/g, ' ').replace(/\u0001/g, '');
  return s.replace(/  +/g, ' ');
}

var HJ_REPLACED = new Set(['img', 'svg', 'input', 'select', 'textarea', 'button', 'video', 'audio',
  'canvas', 'iframe', 'object', 'embed', 'meter', 'progress']);

// The children of an element in the flat tree (shadow root, slotted nodes).
function hjFlatChildren(el) {
  if (el.shadowRoot) return Array.from(el.shadowRoot.childNodes);
  if (hjTag(el) === 'slot') {
    var assigned = el.assignedNodes();
    return assigned.length ? assigned : Array.from(el.childNodes);
  }
  return Array.from(el.childNodes);
}

// The element whose inline formatting context holds the text node: the
// nearest ancestor that is not display:inline (or contents).
function hjLineRoot(node) {
  var e = hjParent(node);
  while (e && hjParent(e)) {
    var d = hjStyle(e).display;
    if (d !== 'inline' && d !== 'contents') return e;
    e = hjParent(e);
  }
  return e;
}

// The text node's characters as layout keeps them: CSS white-space collapsing
// across the whole line box (a space after a space is dropped, as are spaces
// at the start and end of a line), as Chromium's accessible names do.
function hjLayoutText(node) {
  var root = hjLineRoot(node);
  // Text that is not laid out (hidden, referenced by aria-labelledby) is only
  // collapsed, never trimmed.
  if (!root || !hjIsRendered(root)) return node.data;
  var map = hjMemo('lineText', root, function () { return hjCollapseLine(root); });
  var text = map.get(node);
  return text === undefined ? node.data : text;
}

function hjCollapseLine(root) {
  var items = [];
  (function walk(el) {
    var before = hjPseudoText(el, '::before');
    if (before) items.push({ text: before });
    hjFlatChildren(el).forEach(function (n) {
      if (n.nodeType === 3) {
        var ws = n.parentElement ? hjStyle(n.parentElement).whiteSpace : 'normal';
        items.push({ node: n, text: n.data, pre: /^(pre|pre-wrap|break-spaces)$/.test(ws) });
        return;
      }
      if (n.nodeType !== 1) return;
      var d = hjStyle(n).display;
      if (d === 'none') return;
      if (hjTag(n) === 'br') items.push({ brk: true });
      else if ((d === 'inline' || d === 'contents') && !HJ_REPLACED.has(hjTag(n))) walk(n);
      else if (hjIsInlineDisplay(d)) items.push({ atom: true });
      else items.push({ brk: true });
    });
    var after = hjPseudoText(el, '::after');
    if (after) items.push({ text: after });
  })(root);
  var map = new Map();
  var prevSpace = true;
  var spaceOwner = null;
  var out = [];
  function dropTrailingSpace() {
    if (spaceOwner !== null) out[spaceOwner] = out[spaceOwner].slice(0, -1);
    spaceOwner = null;
  }
  items.forEach(function (it, i) {
    out.push('');
    if (it.brk) { dropTrailingSpace(); prevSpace = true; return; }
    if (it.atom) { spaceOwner = null; prevSpace = false; return; }
    if (it.pre) {
      out[i] = it.text;
      if (it.text) { spaceOwner = null; prevSpace = /[ \t\n]$/.test(it.text); }
      return;
    }
    var s = '';
    for (var k = 0; k < it.text.length; k++) {
      var ch = it.text[k];
      if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || ch === '\f') {
        if (prevSpace) continue;
        s += ' ';
        prevSpace = true;
        spaceOwner = i;
      } else {
        s += ch;
        prevSpace = false;
        spaceOwner = null;
      }
    }
    out[i] = s;
  });
  dropTrailingSpace();
  items.forEach(function (it, i) { if (it.node) map.set(it.node, out[i]); });
  return map;
}

// The text of a text node as rendered: with its CSS text-transform applied.
function hjRenderedText(node) {
  var parent = node.parentElement;
  var transform = parent ? hjStyle(parent).textTransform : 'none';
  var text = hjLayoutText(node);
  if (transform === 'uppercase') return text.toUpperCase();
  if (transform === 'lowercase') return text.toLowerCase();
  if (transform !== 'capitalize') return text;
  // A word starts after a character that is not a letter, digit, ' or _,
  // looking back into the text before this node (as layout does).
  var prev = hjPreviousChar(node);
  var out = '';
  for (var i = 0; i < text.length; i++) {
    var ch = text[i];
    out += /[\p{L}\p{N}'_]/u.test(prev) ? ch : ch.toUpperCase();
    prev = ch;
  }
  return out;
}

function hjPreviousChar(node) {
  // Look back no further than the block that holds the text.
  var root = node.parentElement;
  while (root && root.parentElement && hjStyle(root).display === 'inline') root = root.parentElement;
  if (!root) return ' ';
  var walker = node.ownerDocument.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  walker.currentNode = node;
  for (var p = walker.previousNode(); p; p = walker.previousNode()) {
    if (p.data.length) return p.data[p.data.length - 1];
  }
  return ' ';
}

// Does the element have a box at all (aria-hidden content does, fallback
// content or a closed <details> body does not)?
function hjIsRendered(el) {
  return hjMemo('rendered', el, function () {
    return !el.checkVisibility || el.checkVisibility() || hjStyle(el).display === 'contents';
  });
}

// Does the element put something on the line (even if it adds no text)?
function hjTakesRoom(el) {
  var d = hjStyle(el).display;
  if (d === 'none') return false;
  return HJ_REPLACED.has(hjTag(el)) || d.startsWith('inline-') || /[^ \t\n\r\f]/.test(el.textContent || '');
}

// Text of CSS ::before/::after content (strings and alt text; no images).
function hjPseudoText(el, which) {
  return hjMemo(which + 'text', el, function () { return hjComputePseudoText(el, which); });
}

// Can any style sheet of the element's tree give it ::before/::after content?
// (Asking for a pseudo-element's style is slow; most pages have few such rules.)
function hjMayHavePseudo(el) {
  var root = el.getRootNode();
  return hjMemo('pseudoRules', root, function () {
    var sheets = Array.from(root.styleSheets || []).concat(Array.from(root.adoptedStyleSheets || []));
    if (root.host) return true;
    function scan(rules) {
      for (var i = 0; i < rules.length; i++) {
        var r = rules[i];
        if (r.selectorText && /:(before|after)/i.test(r.selectorText)) return true;
        if (r.cssRules && scan(r.cssRules)) return true;
      }
      return false;
    }
    for (var i = 0; i < sheets.length; i++) {
      var rules;
      try { rules = sheets[i].cssRules; } catch (e) { return true; }
      if (!rules || scan(rules)) return true;
    }
    return false;
  });
}

function hjComputePseudoText(el, which) {
  // The user-agent style sheet only generates content for <q> (quotes).
  if (hjTag(el) !== 'q' && !hjMayHavePseudo(el)) return '';
  var st = hjStyle(el, which);
  var c = st.content;
  if (!c || c === 'none' || c === 'normal') return '';
  if (st.display === 'none' || st.visibility === 'hidden' || st.visibility === 'collapse') return '';
  var slash = c.lastIndexOf(' / ');
  var alt = null;
  if (slash >= 0 && /^\s*"/.test(c.slice(slash + 3))) {
    alt = c.slice(slash + 3);
    c = c.slice(0, slash);
  }
  var out = '';
  var src = alt !== null ? alt : c;
  var re = /"((?:[^"\\]|\\.)*)"/g;
  var m;
  while ((m = re.exec(src))) out += m[1].replace(/\\(.)/g, '$1');
  if (!hjIsInlineDisplay(st.display) && out) out = HJ_BREAK + out + HJ_BREAK;
  // CSS alt text stands apart from the element's own content.
  else if (alt !== null && out && el.firstChild) out = which === '::before' ? out + ' ' : ' ' + out;
  return out;
}

function hjIdRefs(el, attr) {
  var v = hjAttr(el, attr).trim();
  if (!v) return [];
  var root = el.getRootNode();
  var out = [];
  v.split(/\s+/).forEach(function (id) {
    var e = root.getElementById ? root.getElementById(id) : el.ownerDocument.getElementById(id);
    if (e) out.push(e);
  });
  return out;
}

function hjIsTextField(el) {
  var t = hjTag(el);
  if (t === 'textarea') return true;
  if (t !== 'input') return false;
  return HJ_INPUT_TEXT_TYPES.has((el.getAttribute('type') || '').toLowerCase()) ||
    !['button', 'submit', 'reset', 'image', 'file', 'checkbox', 'radio', 'range', 'color', 'hidden',
      'date', 'datetime-local', 'month', 'week', 'time'].includes((el.type || '').toLowerCase());
}

// The value an embedded control contributes to an ancestor's name.
function hjEmbeddedValue(el, role) {
  var t = hjTag(el);
  if (role === 'textbox' || role === 'searchbox') {
    if (t === 'input' || t === 'textarea') return el.value;
    return el.textContent || '';
  }
  if (role === 'combobox' || role === 'listbox') {
    if (t === 'select') {
      var sel = Array.from(el.selectedOptions || []);
      return sel.map(function (o) { return hjCollapse(o.label || o.text); }).join(' ');
    }
    if (t === 'input') return el.value;
    var opts = el.querySelectorAll('[role=option][aria-selected=true]');
    return Array.from(opts).map(function (o) { return hjNameOf(o, { recursive: true, visited: new Set() }); }).join(' ');
  }
  if (['slider', 'spinbutton', 'progressbar', 'meter', 'scrollbar'].includes(role)) {
    if (el.hasAttribute('aria-valuetext')) return hjAttr(el, 'aria-valuetext');
    if (el.hasAttribute('aria-valuenow')) return hjAttr(el, 'aria-valuenow');
    if (t === 'input' || t === 'meter') return String(el.value);
    if (t === 'progress') return el.hasAttribute('value') ? String(el.value) : '';
    return '';
  }
  return null;
}

// The accessible name, as Chromium's "Get Computed Label" reports it: "" for
// nodes out of the tree. opts.includeHidden computes it even for hidden ones.
function hjAccessibleName(el, opts) {
  if (!el || el.nodeType !== 1) return '';
  var includeHidden = !!(opts && opts.includeHidden);
  return hjMemo(includeHidden ? 'nameIncludingHidden' : 'name', el, function () {
    return hjComputeAccessibleName(el, includeHidden);
  });
}

function hjComputeAccessibleName(el, includeHidden) {
  var role = hjRawRole(el);
  if (!includeHidden && !hjIsIncluded(el, role)) return '';
  if (role === 'LineBreak') return '\n';
  return hjFinalName(hjNameOf(el, { recursive: false, visited: new Set(), hiddenOk: includeHidden }));
}

function hjNameOf(el, ctx) {
  if (ctx.visited.has(el)) return '';
  var role = hjRawRole(el);
  var t = hjTag(el);
  // Hidden nodes count only inside a labelledby traversal of a hidden node.
  if (!ctx.hiddenOk && hjIsAriaHidden(el)) return '';

  // aria-labelledby (not followed again from inside a labelledby traversal).
  if (!ctx.inLabelledBy) {
    var refs = hjIdRefs(el, 'aria-labelledby');
    if (refs.length) {
      var parts = refs.map(function (r) {
        return hjNameOf(r, {
          recursive: true, inLabelledBy: true, visited: ctx.visited,
          hiddenOk: ctx.hiddenOk || hjIsAriaHidden(r), self: r
        });
      });
      var joined = parts.join(' ');
      if (hjCollapse(joined)) return joined;
    }
  }

  // An embedded control contributes its value (for a progress bar or meter,
  // which are no controls, only when it has no aria-label).
  var readOnlyRange = role === 'progressbar' || role === 'meter';
  if (ctx.recursive && el !== ctx.label && !(readOnlyRange && hjAttr(el, 'aria-label').trim())) {
    // An embedded control's value stands apart from the text around it.
    var v = hjEmbeddedValue(el, role);
    if (v !== null) return HJ_BREAK + v + HJ_BREAK;
  }

  var label = hjAttr(el, 'aria-label');
  if (label.trim()) return label;

  var native = hjNativeName(el, t, role, ctx);
  if (native !== null && native !== '') return native;

  var fromContent = HJ_NAME_FROM_CONTENT.has(role) || ctx.inLabelledBy ||
    (ctx.recursive && t === 'details' && !hjExplicitRole(el)) ||
    (role === 'row' && hjRowInGrid(el)) ||
    (ctx.recursive && !HJ_NO_CONTENT.has(role));
  if (t === 'option' && (el.hasAttribute('label'))) fromContent = false;
  if (fromContent) {
    ctx.visited.add(el);
    var text = hjContentText(el, ctx);
    ctx.visited.delete(el);
    if (hjCollapse(text)) return text;
  }
  if (native === '') return '';
  // The tooltip, unless the role prohibits a name or it repeats the text.
  var title = hjAttr(el, 'title');
  if (hjCollapse(title) && !HJ_NO_TITLE.has(role) && hjCollapse(title) !== hjCollapse(el.innerText || ''))
    return title;
  if (hjIsTextField(el) && hjAttr(el, 'placeholder').trim()) return hjAttr(el, 'placeholder');
  if (hjAttr(el, 'aria-placeholder').trim() && (role === 'textbox' || role === 'searchbox'))
    return hjAttr(el, 'aria-placeholder');
  return '';
}

// Chromium names rows from their content only inside a grid or treegrid.
function hjRowInGrid(row) {
  for (var e = hjParent(row); e; e = hjParent(e)) {
    var r = hjRawRole(e);
    if (r === 'grid' || r === 'treegrid') return true;
    if (r !== 'generic' && r !== 'none' && r !== 'group' && r !== 'rowgroup') return false;
  }
  return false;
}

// Names from host language features: labels, alt, value, legend, caption...
// Returns null when the element has none, "" when it has an empty one that
// must not fall back (alt="").
function hjNativeName(el, t, role, ctx) {
  if (el.namespaceURI === 'http://www.w3.org/2000/svg') {
    var title = el.querySelector(':scope > title');
    return title ? title.textContent : null;
  }
  var labelable = ['button', 'input', 'meter', 'output', 'progress', 'select', 'textarea'].includes(t);
  if (t === 'input') {
    var type = (el.type || '').toLowerCase();
    if (type === 'image') {
      var lab = hjLabelsText(el, ctx);
      if (lab) return lab;
      if (hjAttr(el, 'alt').trim()) return hjAttr(el, 'alt');
      if (hjAttr(el, 'value').trim()) return hjAttr(el, 'value');
      if (hjAttr(el, 'title').trim()) return hjAttr(el, 'title');
      return 'Submit';
    }
    if (type === 'button' || type === 'submit' || type === 'reset') {
      var l2 = hjLabelsText(el, ctx);
      if (l2) return l2;
      if (el.hasAttribute('value')) return hjAttr(el, 'value');
      if (type === 'submit') return 'Submit';
      if (type === 'reset') return 'Reset';
      return null;
    }
  }
  if (labelable) {
    var l3 = hjLabelsText(el, ctx);
    if (l3) return l3;
    if (t === 'input' && (el.type || '').toLowerCase() === 'file' && !hjAttr(el, 'title').trim())
      return el.multiple ? 'Choose Files' : 'Choose File';
    return null;
  }
  if (t === 'img' || t === 'area') {
    if (el.hasAttribute('alt')) {
      return hjAttr(el, 'alt');
    }
    return null;
  }
  if (t === 'fieldset') {
    var legend = el.querySelector(':scope > legend');
    if (legend && !hjIsAriaHidden(legend)) {
      var lt = hjCollapse(hjContentText(legend, { recursive: true, visited: ctx.visited, hiddenOk: ctx.hiddenOk }));
      if (lt) return lt;
    }
    return null;
  }
  if (t === 'table') {
    var cap = el.caption;
    if (cap && !hjIsAriaHidden(cap)) {
      var ct = hjCollapse(hjContentText(cap, { recursive: true, visited: ctx.visited, hiddenOk: ctx.hiddenOk }));
      if (ct) return ct;
    }
    if (hjAttr(el, 'summary').trim()) return hjAttr(el, 'summary');
    return null;
  }
  if (t === 'optgroup') return hjAttr(el, 'label').trim() ? hjAttr(el, 'label') : null;
  if (t === 'option' && el.hasAttribute('label')) return hjAttr(el, 'label');
  // An option shows its text with white space stripped and collapsed.
  if (t === 'option' && hjCollapse(el.text)) return hjCollapse(el.text);
  return null;
}

// The <label>s of a control, from one index of the control's tree per run
// (el.labels searches the whole document on every call).
function hjLabelsOf(el) {
  var root = el.getRootNode();
  var index = hjMemo('labels', root, function () {
    var map = new Map();
    if (!root.querySelectorAll) return map;
    root.querySelectorAll('label').forEach(function (l) {
      var c = l.control;
      if (!c) return;
      if (!map.has(c)) map.set(c, []);
      map.get(c).push(l);
    });
    return map;
  });
  return index.get(el) || [];
}

function hjLabelsText(el, ctx) {
  var labels = hjLabelsOf(el);
  var parts = [];
  labels.forEach(function (l) {
    if (!ctx.hiddenOk && hjIsAriaHidden(l)) return;
    var s = hjCollapse(hjNameOf(l, {
      recursive: true, inLabelledBy: ctx.inLabelledBy, visited: ctx.visited,
      hiddenOk: ctx.hiddenOk, label: el, labelFor: el
    }));
    if (s) parts.push(s);
  });
  return parts.join(' ');
}

// Name from content: ::before, children (text, and each child's own name), ::after.
function hjContentText(el, ctx) {
  var out = hjPseudoText(el, '::before');
  // A <details> without a <summary> shows the browser's own "Details".
  if (hjTag(el) === 'details' && !el.querySelector(':scope > summary')) out += HJ_BREAK + 'Details' + HJ_BREAK;
  var kids = [];
  if (el.shadowRoot) {
    for (var c = el.shadowRoot.firstChild; c; c = c.nextSibling) kids.push(c);
  } else if (hjTag(el) === 'slot') {
    var assigned = el.assignedNodes();
    kids = assigned.length ? assigned : Array.from(el.childNodes);
  } else {
    for (var k = el.firstChild; k; k = k.nextSibling) kids.push(k);
  }
  var invisible = !ctx.hiddenOk && hjIsInvisible(el);
  kids.forEach(function (n) {
    if (n.nodeType === 3) {
      if (!invisible) out += hjRenderedText(n);
      else if (/[^ \t\n\r\f]/.test(n.data)) out += HJ_BOX;
      return;
    }
    if (n.nodeType !== 1) return;
    if (ctx.labelFor && n === ctx.labelFor) return;
    if (!ctx.hiddenOk && hjIsAriaHidden(n)) {
      // A visibility:hidden element may still hold visible descendants.
      if (hjIsInvisible(n) && !hjIsAriaHiddenIgnoringVisibility(n)) out += hjContentText(n, ctx);
      else if (hjTakesRoom(n) && hjIsRendered(n)) out += hjIsInlineDisplay(hjStyle(n).display) ? HJ_BOX : HJ_BREAK;
      return;
    }
    var part = hjNameOf(n, {
      recursive: true, inLabelledBy: ctx.inLabelledBy, visited: ctx.visited,
      hiddenOk: ctx.hiddenOk, labelFor: ctx.labelFor, label: ctx.label
    });
    var d = hjStyle(n).display;
    if (hjTag(n) === 'br' || hjTag(n) === 'wbr' || (d !== 'inline' && !(hjIsInlineDisplay(d) && !part)))
      out += HJ_BREAK + part + HJ_BREAK;
    else if (!part && hjTakesRoom(n)) out += HJ_BOX;
    else out += part;
  });
  out += hjPseudoText(el, '::after');
  return out;
}

// ---- states ------------------------------------------------------------------

function hjAriaLevel(el) {
  var role = hjAriaRole(el);
  var t = hjTag(el);
  var lvl = parseInt(hjAttr(el, 'aria-level'), 10);
  if (role === 'heading') {
    if (lvl >= 1) return lvl;
    var m = /^h([1-6])$/.exec(t);
    return m && hjExplicitRole(el) === '' ? Number(m[1]) : 2;
  }
  if (['listitem', 'treeitem', 'row', 'comment'].includes(role) && lvl >= 1) return lvl;
  return 0;
}

// true, false or "mixed"; null when the role has no checked state.
function hjAriaChecked(el) {
  var role = hjAriaRole(el);
  var t = hjTag(el);
  if (t === 'input' && (el.type === 'checkbox' || el.type === 'radio') && !hjExplicitRole(el)) {
    if (el.type === 'checkbox' && el.indeterminate) return 'mixed';
    return el.checked;
  }
  if (!['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio', 'option', 'treeitem'].includes(role))
    return null;
  if (t === 'input' && (el.type === 'checkbox' || el.type === 'radio')) return el.checked;
  var v = hjAttr(el, 'aria-checked').toLowerCase();
  if (v === 'true') return true;
  if (v === 'mixed' && role !== 'radio' && role !== 'menuitemradio' && role !== 'switch') return 'mixed';
  return false;
}

function hjAriaDisabled(el) {
  if (hjIsNativelyDisabled(el)) return true;
  for (var e = el; e; e = hjParent(e)) {
    if (e.nodeType === 1 && hjAttr(e, 'aria-disabled').toLowerCase() === 'true') return true;
  }
  return false;
}

// true/false when the element has an expanded state, else null.
function hjAriaExpanded(el) {
  if (hjTag(el) === 'summary') {
    var p = hjParent(el);
    if (p && hjTag(p) === 'details') return p.open;
  }
  var v = hjAttr(el, 'aria-expanded').toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  return null;
}

// true, false or "mixed" for toggle buttons, else null.
function hjAriaPressed(el) {
  if (hjAriaRole(el) !== 'button') return null;
  var v = hjAttr(el, 'aria-pressed').toLowerCase();
  if (v === 'true') return true;
  if (v === 'mixed') return 'mixed';
  if (v === 'false') return false;
  return null;
}

// true/false for roles with a selected state, else null.
function hjAriaSelected(el) {
  var role = hjAriaRole(el);
  if (hjTag(el) === 'option' && !hjExplicitRole(el)) return el.selected;
  if (!['gridcell', 'option', 'row', 'tab', 'columnheader', 'rowheader', 'treeitem'].includes(role)) return null;
  return hjAttr(el, 'aria-selected').toLowerCase() === 'true';
}
