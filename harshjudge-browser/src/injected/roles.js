// Roles, accessible names and ARIA states of elements, computed inside the page.
//
// Follows WAI-ARIA 1.2, HTML-AAM and accname 1.2 as Chromium implements them:
// the oracle is Chromium's own accessibility tree (WebDriver "Get Computed Role"
// and "Get Computed Label"), which tests/aria_roles.rs compares us against for
// every element of tests/fixtures/aria/corpus.html. Plain functions with an `hj`
// prefix: this file, then names.js (accessible names, states) and aria.js (the
// ARIA snapshot), are concatenated into the bigger injected script; there is no
// module system.
//
// The API (everything else is a helper):
//   hjRole(el)             what Chromium's "Get Computed Role" answers: "none" for
//                          nodes Chromium leaves out of its tree (hidden,
//                          presentational or uninteresting, e.g. a plain <span>),
//                          and Chromium's internal names for elements without an
//                          ARIA role ("LabelText", "Legend", "LayoutTable"...).
//   hjAccessibleName(el[, {includeHidden}])
//                          what "Get Computed Label" answers ("" for nodes out of
//                          the tree); includeHidden computes it for hidden nodes
//                          too, hidden content included (get_by_role(..).include_hidden).
//   hjAriaRole(el)         the ARIA role for locators and snapshots, whether or not
//                          the element is hidden or pruned: a <span> is "generic",
//                          a layout table "table", an <img> "img", a hidden button
//                          still "button"; null when it has none.
//   hjRoleIs(el, role)     hjAriaRole(el) == role, synonyms matching each other
//                          (img/image, none/presentation, list/directory).
//   hjIsAriaHidden(el)     excluded from the accessibility tree: display:none,
//                          visibility:hidden, aria-hidden="true" or inert on it or an
//                          ancestor, <template>/<script>/..., closed <details> content.
//   hjAriaLevel(el)        heading level (aria-level or hN; 2 for role=heading), the
//                          aria-level of listitem/treeitem/row, else 0.
//   hjAriaChecked(el)      true, false or "mixed"; null when the role has no checked state.
//   hjAriaDisabled(el)     native disabled (incl. disabled fieldsets) or aria-disabled
//                          on it or an ancestor.
//   hjAriaExpanded(el), hjAriaPressed(el), hjAriaSelected(el)
//                          true/false (pressed also "mixed"); null when not applicable.
//   hjAriaSnapshot(root)   a YAML outline like Playwright's ariaSnapshot.
//
// Everything computed during one synchronous run of the script is memoised
// (hjMemo) and dropped at the next microtask, so a page can be scanned whole.

var HJ_ROLES_VALID = new Set((
  'alert alertdialog application article banner blockquote button caption cell checkbox code ' +
  'columnheader combobox comment complementary contentinfo definition deletion dialog directory ' +
  'document emphasis feed figure form generic grid gridcell group heading img image insertion link ' +
  'list listbox listitem log main mark marquee math menu menubar menuitem menuitemcheckbox ' +
  'menuitemradio meter navigation none note option paragraph presentation progressbar radio ' +
  'radiogroup region row rowgroup rowheader scrollbar search searchbox separator slider ' +
  'spinbutton status strong subscript suggestion superscript switch tab table tablist tabpanel ' +
  'term textbox time timer toolbar tooltip tree treegrid treeitem ' +
  'doc-abstract doc-acknowledgments doc-afterword doc-appendix doc-backlink doc-biblioentry ' +
  'doc-bibliography doc-biblioref doc-chapter doc-colophon doc-conclusion doc-cover doc-credit ' +
  'doc-credits doc-dedication doc-endnote doc-endnotes doc-epigraph doc-epilogue doc-errata ' +
  'doc-example doc-footnote doc-foreword doc-glossary doc-glossref doc-index doc-introduction ' +
  'doc-noteref doc-notice doc-pagebreak doc-pagefooter doc-pageheader doc-pagelist doc-part ' +
  'doc-preface doc-prologue doc-pullquote doc-qna doc-subtitle doc-tip doc-toc ' +
  'graphics-document graphics-object graphics-symbol').split(' '));

// Global ARIA attributes: any of them on a role=none/presentation element makes
// the presentational role lose (WAI-ARIA 1.2, 9.3 presentational role conflict).
var HJ_GLOBAL_ARIA = ['aria-atomic', 'aria-busy', 'aria-controls', 'aria-current', 'aria-describedby',
  'aria-details', 'aria-dropeffect', 'aria-errormessage', 'aria-flowto', 'aria-grabbed',
  'aria-haspopup', 'aria-invalid', 'aria-keyshortcuts', 'aria-label', 'aria-labelledby',
  'aria-live', 'aria-owns', 'aria-relevant', 'aria-roledescription'];

// Roles whose own name comes from their content (Chromium's list).
var HJ_NAME_FROM_CONTENT = new Set(['button', 'cell', 'checkbox', 'columnheader', 'DisclosureTriangle',
  'DisclosureTriangleGrouped', 'gridcell', 'heading', 'LayoutTableCell', 'link', 'math', 'option', 'menuitem', 'menuitemcheckbox',
  'menuitemradio', 'radio', 'rowheader', 'switch', 'tab', 'tooltip', 'treeitem', 'term',
  'doc-backlink', 'doc-biblioref', 'doc-glossref', 'doc-noteref']);

// Roles that never take nor contribute a name from their content, even as part of
// an ancestor's name (containers of many objects, and controls that have a value).
var HJ_NO_CONTENT = new Set(['alert', 'alertdialog', 'application', 'article', 'banner', 'blockquote',
  'ColorWell', 'combobox', 'complementary', 'contentinfo', 'Date', 'DateTime', 'dialog', 'document',
  'EmbeddedObject', 'feed', 'figure', 'form', 'grid', 'group', 'Iframe', 'image', 'InputTime',
  'listbox', 'log', 'main', 'marquee', 'menu', 'menubar', 'meter', 'navigation', 'note',
  'PluginObject', 'progressbar', 'radiogroup', 'region', 'rowgroup', 'scrollbar', 'search',
  'searchbox', 'sectionfooter', 'sectionheader', 'separator', 'slider', 'spinbutton', 'status',
  'table', 'tablist', 'tabpanel', 'textbox', 'timer', 'toolbar', 'tree', 'treegrid', 'Audio', 'Video',
  'MathMLMath']);

// MathML elements and Chromium's roles for them.
var HJ_MATHML = {
  math: 'MathMLMath', mfrac: 'MathMLFraction', mi: 'MathMLIdentifier', mmultiscripts: 'MathMLMultiscripts',
  mn: 'MathMLNumber', mo: 'MathMLOperator', mover: 'MathMLOver', munder: 'MathMLUnder',
  munderover: 'MathMLUnderOver', mroot: 'MathMLRoot', mrow: 'MathMLRow', 'annotation-xml': 'MathMLRow',
  maction: 'MathMLRow', merror: 'MathMLRow', mpadded: 'MathMLRow', mphantom: 'MathMLRow',
  mstyle: 'MathMLRow', semantics: 'MathMLRow', mprescripts: 'MathMLPrescriptDelimiter',
  none: 'MathMLNoneScript', msqrt: 'MathMLSquareRoot', ms: 'MathMLStringLiteral', msub: 'MathMLSub',
  msubsup: 'MathMLSubSup', msup: 'MathMLSup', mtable: 'MathMLTable', mtd: 'MathMLTableCell',
  mtr: 'MathMLTableRow', mtext: 'MathMLText', annotation: 'MathMLText'
};

// Roles Chromium always keeps in its tree (when not hidden or presentational).
var HJ_ALWAYS_INCLUDED = new Set(['Abbr', 'application', 'article', 'Audio', 'banner', 'blockquote',
  'code', 'complementary', 'deletion', 'contentinfo', 'insertion', 'definition', 'DescriptionList',
  'group', 'dialog', 'emphasis', 'Figcaption', 'figure', 'sectionfooter', 'sectionheader', 'form',
  'list', 'listitem', 'main', 'mark', 'math', 'MathMLMath', 'meter', 'navigation', 'PluginObject',
  'progressbar', 'region', 'Ruby', 'search', 'separator', 'status', 'subscript', 'superscript',
  'strong', 'term', 'time', 'Video']);

// Roles that take no name from the title attribute (naming is prohibited).
var HJ_NO_TITLE = new Set(['caption', 'code', 'definition', 'deletion', 'emphasis', 'generic',
  'insertion', 'mark', 'none', 'paragraph', 'strong', 'subscript', 'superscript', 'time']);

var HJ_INPUT_TEXT_TYPES = new Set(['', 'text', 'email', 'tel', 'url', 'password', 'search', 'number']);

// Results computed during one synchronous run of the script are reused (a
// page with thousands of elements asks the same ancestors again and again);
// the cache is dropped at the next microtask, before the page can change.
var hjCacheMaps = null;

function hjMemo(kind, key, compute) {
  if (!hjCacheMaps) {
    hjCacheMaps = new Map();
    queueMicrotask(function () { hjCacheMaps = null; });
  }
  var map = hjCacheMaps.get(kind);
  if (!map) {
    map = new Map();
    hjCacheMaps.set(kind, map);
  }
  if (map.has(key)) return map.get(key);
  var value = compute();
  map.set(key, value);
  return value;
}

function hjStyle(el, pseudo) {
  return hjMemo(pseudo || 'style', el, function () {
    return el.ownerDocument.defaultView.getComputedStyle(el, pseudo || null);
  });
}

function hjParent(node) {
  if (node.assignedSlot) return node.assignedSlot;
  if (node.parentElement) return node.parentElement;
  var p = node.parentNode;
  if (p && p.nodeType === 11 && p.host) return p.host;
  return null;
}

function hjTag(el) {
  return el.localName || '';
}

function hjAttr(el, name) {
  var v = el.getAttribute(name);
  return v === null ? '' : v;
}

// ---- hidden / excluded -------------------------------------------------------

// Hidden by style, aria-hidden, inert or by not being rendered at all.
function hjIsAriaHidden(el) {
  return hjIsExcluded(el, false);
}

function hjIsExcluded(el, ignoreVisibility) {
  if (!el) return true;
  return hjMemo(ignoreVisibility ? 'excludedIgnoringVisibility' : 'excluded', el, function () {
    return hjComputeExcluded(el, ignoreVisibility);
  });
}

function hjComputeExcluded(el, ignoreVisibility) {
  if (!el.isConnected) return true;
  var tag = hjTag(el);
  if (tag === 'template' || tag === 'script' || tag === 'style' || tag === 'noscript' ||
    tag === 'head' || tag === 'title' || tag === 'meta' || tag === 'link' || tag === 'datalist')
    return true;
  if (tag === 'input' && (el.type || '').toLowerCase() === 'hidden') return true;
  // Options are not rendered themselves: their select decides.
  var sel = hjOwnerSelect(el);
  if (sel) return hjIsExcluded(sel, ignoreVisibility);
  if (hjIsCutOff(el)) return true;
  return !ignoreVisibility && hjIsInvisible(el);
}

// Hidden together with its whole subtree: aria-hidden, inert, display:none,
// never rendered, or skipped content (content-visibility, closed <details>).
function hjIsCutOff(el) {
  return hjMemo('cutOff', el, function () {
    if (hjAttr(el, 'aria-hidden').trim().toLowerCase() === 'true' || el.hasAttribute('inert')) return true;
    var t = hjTag(el);
    if (t === 'template' || t === 'datalist' || t === 'noscript') return true;
    var display = hjStyle(el).display;
    if (display === 'none') return true;
    // Not rendered at all: fallback content of <meter>, <progress>, <video>...
    // (canvas fallback content is the exception: it stands for the canvas).
    if (display !== 'contents' && el.checkVisibility && !el.checkVisibility() && !el.closest('canvas'))
      return true;
    var p = hjParent(el);
    if (!p || p.nodeType !== 1) return false;
    if (hjStyle(p).contentVisibility === 'hidden') return true;
    // Only the first <summary> of a closed <details> is rendered.
    if (hjTag(p) === 'details' && !p.open && p.querySelector(':scope > summary') !== el) return true;
    return hjIsCutOff(p);
  });
}

function hjIsInvisible(el) {
  var v = hjStyle(el).visibility;
  return v === 'hidden' || v === 'collapse';
}

// Hidden for a reason other than visibility (which descendants can override).
function hjIsAriaHiddenIgnoringVisibility(el) {
  return hjIsExcluded(el, true);
}

function hjOwnerSelect(el) {
  var t = hjTag(el);
  if (t !== 'option' && t !== 'optgroup') return null;
  var p = hjParent(el);
  if (p && hjTag(p) === 'optgroup') p = hjParent(p);
  return p && hjTag(p) === 'select' ? p : null;
}

// ---- focus -------------------------------------------------------------------

function hjIsNativelyDisabled(el) {
  var t = hjTag(el);
  if (!['button', 'input', 'select', 'textarea', 'option', 'optgroup', 'fieldset'].includes(t)) return false;
  if (el.hasAttribute('disabled')) return true;
  if (t === 'option' || t === 'optgroup') {
    var p = hjParent(el);
    return !!p && hjTag(p) === 'optgroup' && p.hasAttribute('disabled');
  }
  // Inside a disabled fieldset, except within its first legend.
  for (var e = hjParent(el); e; e = hjParent(e)) {
    if (hjTag(e) === 'fieldset' && e.hasAttribute('disabled')) {
      var legend = e.querySelector(':scope > legend');
      if (!legend || !legend.contains(el)) return true;
    }
  }
  return false;
}

function hjIsFocusable(el) {
  return hjMemo('focusable', el, function () { return hjComputeFocusable(el); });
}

function hjComputeFocusable(el) {
  var t = hjTag(el);
  if (hjIsNativelyDisabled(el)) return false;
  if (el.hasAttribute('tabindex')) return true;
  if (t === 'a' || t === 'area') return el.hasAttribute('href');
  if (t === 'input') return el.type !== 'hidden';
  if (['button', 'select', 'textarea', 'iframe', 'summary'].includes(t)) {
    if (t === 'summary') {
      var p = hjParent(el);
      return !!p && hjTag(p) === 'details' && p.querySelector(':scope > summary') === el;
    }
    return true;
  }
  if (el.isContentEditable && (!el.parentElement || !el.parentElement.isContentEditable)) return true;
  return false;
}

function hjHasGlobalAria(el) {
  for (var i = 0; i < HJ_GLOBAL_ARIA.length; i++) if (el.hasAttribute(HJ_GLOBAL_ARIA[i])) return true;
  return false;
}

function hjHasAnyAria(el) {
  for (var i = 0; i < el.attributes.length; i++) {
    if (el.attributes[i].name.toLowerCase().startsWith('aria-')) return true;
  }
  return false;
}

// ---- roles -------------------------------------------------------------------

// The first valid token of role="...", as Chromium maps it; "" when none.
function hjExplicitRole(el) {
  var raw = hjAttr(el, 'role').trim().toLowerCase();
  if (!raw) return '';
  var tokens = raw.split(/\s+/);
  for (var i = 0; i < tokens.length; i++) {
    var r = tokens[i];
    if (!HJ_ROLES_VALID.has(r)) continue;
    // An unnamed form or region is no landmark: try the next token.
    if ((r === 'form' || r === 'region') && !hjHasAuthorName(el)) continue;
    if (r === 'img') return 'image';
    if (r === 'presentation') return 'none';
    if (r === 'directory') return 'list';
    return r;
  }
  return '';
}

function hjHasAuthorName(el) {
  if (hjAttr(el, 'aria-label').trim()) return true;
  if (hjAttr(el, 'title').trim()) return true;
  var ids = hjAttr(el, 'aria-labelledby').trim();
  if (ids) {
    var list = ids.split(/\s+/);
    for (var i = 0; i < list.length; i++) if (el.ownerDocument.getElementById(list[i])) return true;
  }
  return false;
}

// role=none/presentation that holds (no focus, no global ARIA attribute).
function hjIsPresentational(el) {
  if (hjExplicitRole(el) !== 'none') return false;
  return !hjIsFocusable(el) && !hjHasGlobalAria(el);
}

function hjTableOf(el) {
  for (var e = hjParent(el); e; e = hjParent(e)) {
    var t = hjTag(e);
    if (t === 'table') return e;
    if (t !== 'tbody' && t !== 'thead' && t !== 'tfoot' && t !== 'tr') return null;
  }
  return null;
}

// Chromium's heuristic: a <table> used for data rather than layout.
function hjIsDataTable(table) {
  return hjMemo('dataTable', table, function () { return hjComputeIsDataTable(table); });
}

function hjComputeIsDataTable(table) {
  if (table.hasAttribute('role')) return true;
  if (table.isContentEditable) return true;
  if (hjAttr(table, 'summary') || table.tHead || table.tFoot || table.caption) return true;
  if (hjAttr(table, 'rules')) return true;
  if (table.querySelector(':scope > col, :scope > colgroup')) return true;
  var rows = table.rows;
  if (rows.length >= 20) return true;
  if (rows.length === 0) return false;
  if (rows.length === 1 && rows[0].cells.length === 1) return false;
  var tableStyle = hjStyle(table);
  var spacing = tableStyle.borderSpacing.split(' ').every(function (v) { return parseFloat(v) > 0; });
  var valid = 0, bordered = 0, bg = 0, top = 0, bottom = 0, left = 0, right = 0;
  var rowColors = [];
  for (var r = 0; r < rows.length; r++) {
    var cells = rows[r].cells;
    for (var c = 0; c < cells.length; c++) {
      var cell = cells[c];
      if (hjTag(cell) === 'th') return true;
      if (hjAttr(cell, 'headers') || hjAttr(cell, 'abbr') || hjAttr(cell, 'axis') || hjAttr(cell, 'scope'))
        return true;
      var cs = hjStyle(cell);
      if (cs.display === 'none') continue;
      var box = cell.getBoundingClientRect();
      if (box.width < 1 || box.height < 1) continue;
      valid++;
      if (cs.emptyCells === 'hide') return true;
      var bt = parseFloat(cs.borderTopWidth) > 0 && cs.borderTopStyle !== 'none';
      var bb = parseFloat(cs.borderBottomWidth) > 0 && cs.borderBottomStyle !== 'none';
      var bl = parseFloat(cs.borderLeftWidth) > 0 && cs.borderLeftStyle !== 'none';
      var br = parseFloat(cs.borderRightWidth) > 0 && cs.borderRightStyle !== 'none';
      if ((bt && bb) || (bl && br)) bordered++;
      if (bt) top++;
      if (bb) bottom++;
      if (bl) left++;
      if (br) right++;
      var color = cs.backgroundColor;
      if (spacing && color !== tableStyle.backgroundColor && color !== 'rgba(0, 0, 0, 0)') bg++;
      if (bordered >= 10 || bg >= 10) return true;
      if (r < 5 && r === rowColors.length) rowColors.push(hjStyle(rows[r]).backgroundColor);
    }
  }
  if (valid <= 1) return false;
  var need = Math.floor(valid / 2);
  if (bordered >= need || top >= need || bottom >= need || left >= need || right >= need) return true;
  if (bg >= need) return true;
  if (rowColors.length > 2) {
    for (var k = 1; k < rowColors.length; k++) {
      if (k % 2 === 1 && rowColors[k] === rowColors[0]) return false;
      if (k % 2 === 0 && rowColors[k] !== rowColors[0]) return false;
    }
    return true;
  }
  return false;
}

function hjTableRole(table) {
  var r = hjRawRole(table);
  if (r === 'table' || r === 'grid' || r === 'treegrid' || r === 'LayoutTable') return r;
  return '';
}

// A <th>: row or column header, from scope or from its neighbours (Chromium).
function hjHeaderCellRole(th) {
  var scope = hjAttr(th, 'scope').toLowerCase();
  if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
  if (scope === 'col' || scope === 'colgroup') return 'columnheader';
  var isTh = function (n) { return !!n && hjTag(n) === 'th'; };
  var isTd = function (n) { return !!n && hjTag(n) === 'td' && n.hasChildNodes(); };
  var next = th.nextElementSibling, prev = th.previousElementSibling;
  if (!next && !prev) return 'columnheader';
  if (isTh(next) && isTh(prev)) return 'columnheader';
  if (isTd(next) || isTd(prev)) return 'rowheader';
  var row = th.parentElement;
  if (!row || hjTag(row) !== 'tr') return 'columnheader';
  var first = row.firstElementChild, last = row.lastElementChild;
  if (isTd(first) || isTd(last)) return 'rowheader';
  if (isTd(first && first.nextElementSibling) || isTd(last && last.previousElementSibling)) return 'rowheader';
  return 'columnheader';
}

// Landmark header/footer/aside unless inside sectioning content or main.
function hjInSectioning(el, forAside) {
  for (var e = hjParent(el); e; e = hjParent(e)) {
    var r = hjRawRole(e);
    var t = hjTag(e);
    if (r === 'article' || r === 'complementary' || r === 'navigation' || t === 'section' || r === 'region')
      return true;
    if (!forAside && r === 'main') return true;
  }
  return false;
}

function hjListIsPresentational(li) {
  var p = hjParent(li);
  if (!p) return false;
  var t = hjTag(p);
  if (t !== 'ul' && t !== 'ol' && t !== 'menu') return false;
  return hjIsPresentational(p);
}

// Explicit roles that mean nothing outside their container (Chromium makes
// them generic there).
var HJ_REQUIRED_CONTEXT = {
  option: ['listbox', 'group'],
  treeitem: ['tree', 'group'],
  listitem: ['list', 'group']
};

// The role of the nearest ancestor that is not generic or presentational.
function hjContextRole(el) {
  for (var e = hjParent(el); e; e = hjParent(e)) {
    var r = hjRawRole(e);
    if (r !== 'generic' && r !== 'none') return r;
  }
  return '';
}

// The role Chromium computes for the element, before any pruning of hidden or
// uninteresting nodes (so a <span> is "generic", a hidden button "button").
function hjRawRole(el) {
  if (!el || el.nodeType !== 1) return '';
  return hjMemo('role', el, function () { return hjComputeRawRole(el); });
}

function hjComputeRawRole(el) {
  var explicit = hjExplicitRole(el);
  if (explicit && explicit !== 'none') {
    var context = HJ_REQUIRED_CONTEXT[explicit];
    var native = { listitem: 'li', option: 'option' }[explicit];
    if (context && hjTag(el) !== native && !context.includes(hjContextRole(el))) return hjNativeRole(el);
    return explicit;
  }
  // A presentational iframe still holds a document: Chromium has a role for it.
  if (explicit === 'none' && hjTag(el) === 'iframe') return 'IframePresentational';
  if (explicit === 'none' && hjIsPresentational(el)) return 'none';
  // An image with alt="" is decorative, unless something else makes it matter.
  if (hjTag(el) === 'img' && el.getAttribute('alt') === '' && !hjAttr(el, 'title') && !hjHasAnyAria(el) &&
    !hjIsFocusable(el)) return 'none';
  return hjNativeRole(el);
}

// Does an <svg> hold something accessible of its own (text, links, named or
// role-bearing parts)? Then Chromium keeps it as a document, else an image.
function hjSvgHasContent(svg) {
  return !!svg.querySelector('text, a[href], foreignObject, [role], [aria-label], [aria-labelledby], ' +
    ':not(svg) > title, :not(svg) > desc');
}

function hjNativeRole(el) {
  var t = hjTag(el);
  var ns = el.namespaceURI;
  if (ns === 'http://www.w3.org/2000/svg') {
    if (t === 'svg') return hjSvgHasContent(el) ? 'SvgRoot' : 'image';
    if (t === 'g' || t === 'foreignObject') return 'group';
    if (t === 'a') return el.hasAttribute('href') ? 'link' : 'group';
    return 'generic';
  }
  if (ns === 'http://www.w3.org/1998/Math/MathML') return HJ_MATHML[t] || 'generic';
  switch (t) {
    case 'a': return el.hasAttribute('href') ? 'link' : 'generic';
    case 'area': return el.hasAttribute('href') ? 'link' : 'generic';
    case 'img': return 'image';
    case 'button': return 'button';
    case 'details': return 'group';
    case 'summary': {
      var p = hjParent(el);
      if (!p || hjTag(p) !== 'details') return 'generic';
      return p.getAttribute('name') ? 'DisclosureTriangleGrouped' : 'DisclosureTriangle';
    }
    case 'table': return hjIsDataTable(el) ? 'table' : 'LayoutTable';
    case 'tr': {
      var table = hjTableOf(el);
      var tr = table ? hjTableRole(table) : '';
      if (!tr) return 'generic';
      return tr === 'LayoutTable' ? 'LayoutTableRow' : 'row';
    }
    case 'td': case 'th': {
      var row = hjParent(el);
      var rr = row && hjTag(row) === 'tr' ? hjRawRole(row) : '';
      if (rr !== 'row' && rr !== 'LayoutTableRow') return 'generic';
      if (!hjTableOf(row) || !hjTableRole(hjTableOf(row))) return 'generic';
      if (rr === 'LayoutTableRow') return 'LayoutTableCell';
      if (t === 'td') return 'cell';
      return hjHeaderCellRole(el);
    }
    case 'thead': case 'tbody': case 'tfoot': {
      var tb = hjParent(el);
      var role = tb && hjTag(tb) === 'table' ? hjTableRole(tb) : '';
      return role && role !== 'LayoutTable' ? 'rowgroup' : 'generic';
    }
    case 'input': {
      var type = (el.type || 'text').toLowerCase();
      if (el.list && type !== 'color') return 'combobox';
      switch (type) {
        case 'button': case 'reset': case 'submit': case 'image': case 'file': return 'button';
        case 'checkbox': return 'checkbox';
        case 'radio': return 'radio';
        case 'date': return 'Date';
        case 'datetime-local': case 'month': case 'week': return 'DateTime';
        case 'time': return 'InputTime';
        case 'number': return 'spinbutton';
        case 'range': return 'slider';
        case 'search': return 'searchbox';
        case 'color': return 'ColorWell';
        case 'hidden': return 'none';
        default: return 'textbox';
      }
    }
    case 'select': {
      // An explicit size="1" keeps even a multiple select a drop-down.
      var size = parseInt(hjAttr(el, 'size'), 10);
      if (size > 1) return 'listbox';
      return el.multiple && size !== 1 ? 'listbox' : 'combobox';
    }
    case 'option': return 'option';
    case 'optgroup': return 'group';
    case 'textarea': return 'textbox';
    case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
    case 'ul': case 'ol': case 'menu': return 'list';
    case 'li': return hjListIsPresentational(el) ? 'none' : 'listitem';
    case 'meter': return 'meter';
    case 'progress': return 'progressbar';
    case 'output': return 'status';
    case 'p': return 'paragraph';
    case 'label': return 'LabelText';
    case 'legend': return 'Legend';
    case 'ruby': return 'Ruby';
    case 'dl': return 'DescriptionList';
    case 'audio': return 'Audio';
    case 'video': return 'Video';
    case 'dd': return 'definition';
    case 'dfn': case 'dt': return 'term';
    case 'rp': case 'rt': return 'RubyAnnotation';
    case 'form': return 'form';
    case 'abbr': return 'Abbr';
    case 'article': return 'article';
    case 'code': return 'code';
    case 'em': return 'emphasis';
    case 'strong': return 'strong';
    case 'search': return 'search';
    case 'del': case 's': return 'deletion';
    case 'ins': return 'insertion';
    case 'sub': return 'subscript';
    case 'sup': return 'superscript';
    case 'main': return 'main';
    case 'mark': return 'mark';
    case 'nav': return 'navigation';
    case 'aside':
      return hjInSectioning(el, true) && !hjHasAuthorName(el) ? 'generic' : 'complementary';
    case 'section': return hjHasAuthorName(el) ? 'region' : 'generic';
    case 'address': case 'hgroup': case 'fieldset': return 'group';
    case 'dialog': return 'dialog';
    case 'html': return 'generic';
    case 'iframe': case 'frame': case 'fencedframe': return 'Iframe';
    case 'header': return hjInSectioning(el, false) ? 'sectionheader' : 'banner';
    case 'footer': return hjInSectioning(el, false) ? 'sectionfooter' : 'contentinfo';
    case 'blockquote': return 'blockquote';
    case 'caption': return 'caption';
    case 'figcaption': return 'Figcaption';
    case 'figure': return 'figure';
    case 'time': return 'time';
    case 'embed': return 'EmbeddedObject';
    case 'object': return 'PluginObject';
    case 'hr': return 'separator';
    case 'br': return 'LineBreak';
    case 'canvas': return 'Canvas';
  }
  // Minimum role of an otherwise generic element that is a popup trigger,
  // autofocused or draggable.
  if (!el.hasAttribute('role') && (el.hasAttribute('aria-haspopup') || el.hasAttribute('autofocus') ||
    hjAttr(el, 'draggable') === 'true'))
    return 'group';
  return 'generic';
}

// A label that just names its checkbox or radio button (and holds nothing else
// one can interact with) adds nothing to the tree.
function hjIsRedundantLabel(label) {
  var c = label.control;
  if (!c || hjTag(c) !== 'input' || (c.type !== 'checkbox' && c.type !== 'radio')) return false;
  if (hjAttr(c, 'aria-label').trim() || hjIdRefs(c, 'aria-labelledby').length) return false;
  var inner = label.querySelectorAll('a[href], button, input, select, textarea, [tabindex]');
  for (var i = 0; i < inner.length; i++) if (inner[i] !== c) return false;
  return true;
}

// Is the element in Chromium's accessibility tree (not hidden, not pruned)?
function hjIsIncluded(el, role) {
  return hjMemo('included', el, function () { return hjComputeIncluded(el, role); });
}

function hjComputeIncluded(el, role) {
  if (hjIsAriaHidden(el)) return false;
  var t = hjTag(el);
  if (role === 'none') return false;
  if (t === 'html' || t === 'body') return false;
  if (el.namespaceURI === 'http://www.w3.org/2000/svg') {
    if (t === 'svg' && el.firstElementChild) return true;
    if (el.querySelector(':scope > title, :scope > desc')) return true;
    // Other SVG parts only when something makes them matter.
    return t !== 'svg' && (hjExplicitRole(el) !== '' || hjHasAnyAria(el) || hjIsFocusable(el) ||
      role === 'link' || (t === 'text' && /[^ \t\n\r\f]/.test(el.textContent || '')));
  }
  if (['table', 'LayoutTable', 'grid', 'treegrid', 'row', 'LayoutTableRow', 'cell', 'LayoutTableCell',
    'gridcell', 'columnheader', 'rowheader'].includes(role)) return true;
  if (t === 'thead' || t === 'tfoot') return true;
  if (t !== 'body' && hjIsFocusable(el)) return true;
  if (role === 'link' || role === 'heading') return true;
  if (el.hasAttribute('onclick')) return true;
  if (t === 'header' || t === 'footer') return true;
  if (hjIsControlRole(role) || t === 'optgroup') return true;
  // An explicit role that holds (not one dropped for lack of its container).
  var explicit = hjExplicitRole(el);
  if (explicit && (explicit === role || !HJ_REQUIRED_CONTEXT[explicit])) return true;
  if (el.isContentEditable && (!el.parentElement || !el.parentElement.isContentEditable)) return true;
  if (t === 'legend') return true;
  if (HJ_ALWAYS_INCLUDED.has(role) || t === 'hgroup' || t === 'section') return true;
  if (role.startsWith('MathML')) return true;
  if (hjHasAnyAria(el) || hjAttr(el, 'title')) return true;
  if (t === 'img') return !el.hasAttribute('alt') || hjAttr(el, 'alt') !== '';
  // A label that names a checkbox or radio button is redundant.
  if (t === 'label' && hjIsRedundantLabel(el)) return false;
  if (el.id || (t === 'a' && el.hasAttribute('name'))) return true;
  // An inline-block (or other atomic inline box) among siblings is kept: it
  // matters for moving by line.
  var display = hjStyle(el).display;
  if (display.startsWith('inline-') && role !== 'SvgRoot' && role !== 'Canvas' && role !== 'EmbeddedObject' &&
    el.parentNode && el.parentNode.childElementCount > 1) return true;
  if (t === 'span') return false;
  if (t === 'label') return true;
  // Default behaviour: rendered blocks that directly hold inline content, frames,
  // line breaks, positioned and scrolling boxes; the rest is pruned.
  var st = hjStyle(el);
  if (st.display === 'contents') return false;
  if (t === 'iframe' || t === 'object' || t === 'br') return true;
  if (st.position !== 'static') return true;
  if ((st.overflowX === 'auto' || st.overflowX === 'scroll' || st.overflowY === 'auto' ||
    st.overflowY === 'scroll') && (el.scrollHeight > el.clientHeight || el.scrollWidth > el.clientWidth))
    return true;
  return hjIsBlockWithInlineChildren(el, st);
}

function hjIsControlRole(role) {
  return ['button', 'checkbox', 'radio', 'textbox', 'searchbox', 'combobox', 'listbox', 'slider',
    'spinbutton', 'switch', 'option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab',
    'treeitem', 'Date', 'DateTime', 'InputTime', 'ColorWell', 'scrollbar', 'DisclosureTriangle',
    'DisclosureTriangleGrouped',
    'menu', 'menubar', 'tree', 'treegrid', 'grid', 'tablist', 'radiogroup', 'toolbar'].includes(role);
}

function hjIsInlineDisplay(display) {
  return display === 'inline' || display.startsWith('inline-') || display === 'ruby' ||
    display === 'contents';
}

function hjIsBlockWithInlineChildren(el, st) {
  var d = st.display;
  if (st.contentVisibility === 'hidden') return false;
  if (!(d === 'block' || d === 'inline-block' || d === 'list-item' || d === 'flow-root' ||
    d === 'table-cell' || d === 'table-caption')) return false;
  var r = hjInlineContent(el);
  if (r === null) return false;
  if (!r) {
    var before = hjStyle(el, '::before').content, after = hjStyle(el, '::after').content;
    r = (before && before !== 'none' && before !== 'normal') || (after && after !== 'none' && after !== 'normal');
  }
  return !!r;
}

// Whether the children of el put inline content on a line: true, false (none),
// or null when a block-level child makes them a stack of blocks.
function hjInlineContent(el) {
  var any = false;
  for (var n = el.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 3) {
      if (/[^ \t\n\r\f]/.test(n.data)) any = true;
      continue;
    }
    if (n.nodeType !== 1) continue;
    var cs = hjStyle(n);
    if (cs.display === 'none') continue;
    if (cs.position === 'absolute' || cs.position === 'fixed') { any = true; continue; }
    if (cs.float !== 'none') { any = true; continue; }
    if (cs.display === 'contents') {
      var inner = hjInlineContent(n);
      if (inner === null) return null;
      any = any || inner;
      continue;
    }
    if (!hjIsInlineDisplay(cs.display)) return null;
    any = true;
  }
  return any;
}

// The role Chromium's "Get Computed Role" reports.
function hjRole(el) {
  if (!el || el.nodeType !== 1) return null;
  var role = hjRawRole(el);
  return hjIsIncluded(el, role) ? role : 'none';
}

// The ARIA role for locators and snapshots, regardless of visibility.
function hjAriaRole(el) {
  var r = hjRawRole(el);
  switch (r) {
    case 'LayoutTable': return 'table';
    case 'LayoutTableRow': return 'row';
    case 'LayoutTableCell': return 'cell';
    case 'DisclosureTriangle': case 'DisclosureTriangleGrouped': return 'button';
    case 'Date': case 'DateTime': case 'InputTime': case 'ColorWell': return 'textbox';
    case 'sectionheader': case 'sectionfooter': return 'generic';
    case 'LineBreak': case 'RubyAnnotation': return null;
    case 'SvgRoot': return 'img';
    case 'image': return 'img';
    case '': return null;
  }
  if (/^[A-Z]/.test(r)) return 'generic';
  return r;
}

// Does the element have this ARIA role? Synonyms match each other
// (img/image, none/presentation, list/directory).
function hjRoleIs(el, role) {
  var want = String(role).toLowerCase();
  var synonyms = { image: 'img', presentation: 'none', directory: 'list' };
  want = synonyms[want] || want;
  return hjAriaRole(el) === want;
}

