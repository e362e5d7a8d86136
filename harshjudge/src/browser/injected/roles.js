// Roles, accessible names and ARIA states of elements, computed inside the page.
//
// Follows WAI-ARIA 1.2, HTML-AAM and accname 1.2 as Chromium implements them:
// the oracle is Chromium's own accessibility tree (WebDriver "Get Computed Role"
// and "Get Computed Label"), which tests/aria_roles.rs compares us against for
// every element of tests/fixtures/aria/corpus.html. Plain functions with an `hj`
// prefix: this file is concatenated into the bigger injected script, there is
// no module system.
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
  if (st.display === 'none') return '';
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

// ---- ARIA snapshot -----------------------------------------------------------

// Is a text node shown? Not when it is fallback content (<meter>, <video>...)
// or the body of a closed <details>.
function hjTextIsRendered(node) {
  var p = node.parentElement;
  if (!p) return true;
  var t = hjTag(p);
  if (['meter', 'progress', 'video', 'audio', 'object', 'textarea', 'select', 'datalist'].includes(t)) return false;
  if (t === 'details' && !p.open) return false;
  return !hjIsInvisible(p);
}

function hjYamlString(s) {
  return JSON.stringify(s);
}

// A YAML outline of the accessibility tree under root, like Playwright's
// ariaSnapshot: "- button \"Save\"", "- heading \"Title\" [level=1]", children
// indented under "- role \"name\":".
function hjAriaSnapshot(root) {
  root = root || document.body;
  var lines = [];
  var SKIP = new Set(['generic', 'none', 'paragraph', null]);

  function states(el, role) {
    var out = [];
    var checked = hjAriaChecked(el);
    if (checked === 'mixed') out.push('checked=mixed');
    else if (checked === true) out.push('checked');
    if (hjAriaDisabled(el) && (hjIsControlRole(role) || role === 'link')) out.push('disabled');
    var expanded = hjAriaExpanded(el);
    if (expanded === true) out.push('expanded');
    var level = hjAriaLevel(el);
    if (level) out.push('level=' + level);
    var pressed = hjAriaPressed(el);
    if (pressed === 'mixed') out.push('pressed=mixed');
    else if (pressed === true) out.push('pressed');
    if (hjAriaSelected(el) === true) out.push('selected');
    return out.length ? ' [' + out.join('] [') + ']' : '';
  }

  // Adjacent text runs join as rendered (raw text concatenated); a pruned
  // block (a <p>, a <div>) keeps its text apart from its neighbours.
  function mergeText(entries) {
    var out = [];
    entries.forEach(function (k) {
      var last = out[out.length - 1];
      if (k.text !== undefined && !k.sealed && last && last.text !== undefined && !last.sealed)
        last.text += k.text;
      else out.push(k.text !== undefined ? { text: k.text, sealed: k.sealed } : k);
    });
    return out.filter(function (k) { return k.text === undefined || hjCollapse(k.text); });
  }

  // Returns a list of entries: {text} or {role, name, extra, value, children}.
  function visit(node) {
    if (node.nodeType === 3) {
      if (!hjTextIsRendered(node)) return [];
      return /[^ \t\n\r\f]/.test(node.data) ? [{ text: hjRenderedText(node) }] : [{ text: ' ' }];
    }
    if (node.nodeType !== 1 && node.nodeType !== 11) return [];
    if (node.nodeType === 1 && hjIsAriaHidden(node)) {
      // visibility:hidden hides the element, not a descendant made visible again.
      if (!hjIsInvisible(node) || hjIsAriaHiddenIgnoringVisibility(node)) return [];
      var shown = [];
      hjFlatChildren(node).forEach(function (c) { if (c.nodeType === 1) shown = shown.concat(visit(c)); });
      return shown;
    }
    var kids = [];
    if (node.nodeType === 1) kids.push({ text: hjPseudoText(node, '::before') });
    var children = node.shadowRoot ? node.shadowRoot.childNodes : node.childNodes;
    if (node.nodeType === 1 && hjTag(node) === 'slot' && node.assignedNodes().length)
      children = node.assignedNodes();
    for (var i = 0; i < children.length; i++) kids = kids.concat(visit(children[i]));
    if (node.nodeType === 1) kids.push({ text: hjPseudoText(node, '::after') });
    if (node.nodeType !== 1) return mergeText(kids);
    var role = hjAriaRole(node);
    if (SKIP.has(role) || ['LabelText', 'Legend', 'Figcaption', 'caption', 'DescriptionList',
      'Abbr', 'emphasis', 'strong', 'code', 'mark', 'time', 'subscript', 'superscript',
      'deletion', 'insertion', 'definition', 'term', 'Ruby', 'generic'].includes(role) ||
      /^[A-Z]/.test(role)) {
      // Pruned: its children take its place.
      if (hjIsInlineDisplay(hjStyle(node).display)) return kids;
      var block = mergeText(kids);
      block.forEach(function (k) { if (k.text !== undefined) k.sealed = true; });
      return block;
    }
    var name = hjCollapse(hjNameOf(node, { recursive: false, visited: new Set() }));
    var entry = { role: role, name: name, extra: states(node, role), children: [] };
    if (['textbox', 'searchbox', 'combobox', 'spinbutton', 'slider'].includes(role)) {
      var v = hjEmbeddedValue(node, role);
      if (v) entry.value = v;
    } else {
      // A lone text child equal to the name says nothing more.
      var merged = mergeText(kids);
      if (merged.length === 1 && merged[0].text !== undefined) {
        var text = hjCollapse(merged[0].text);
        if (text !== name) entry.value = text;
      } else {
        entry.children = merged;
      }
    }
    return [entry];
  }

  function emit(entries, indent) {
    mergeText(entries).forEach(function (e) {
      if (e.text !== undefined) {
        lines.push(indent + '- text: ' + hjYamlString(hjCollapse(e.text)));
        return;
      }
      var head = indent + '- ' + e.role + (e.name ? ' ' + hjYamlString(e.name) : '') + e.extra;
      if (e.children.length) {
        lines.push(head + ':');
        emit(e.children, indent + '  ');
      } else if (e.value !== undefined) {
        lines.push(head + ': ' + hjYamlString(e.value));
      } else {
        lines.push(head);
      }
    });
  }

  emit(visit(root), '');
  return lines.join('\n');
}
