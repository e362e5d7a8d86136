  // ---------- a traced step's timeline (timeline.js, D16 of docs/design/trace.md) ----------
  // Put inside the page's script (it uses esc, dur, load, state). A traced
  // step opens to its timeline: one row per entry of its trace.json (and a
  // row for the requests and console lines between entries), on the step's
  // time axis; choosing a row shows the page at that moment, rebuilt from
  // trace-dom.json by hjrRender (snapshot.js) in an
  // `<iframe sandbox="allow-scripts">` (never allow-same-origin), its call
  // log, requests, console lines and source line. The trace comes from
  // data/traces/{slug}/{runId}/{step}.js, loaded when the step is opened.
  state.traces = {};
  // The timeline shown: { key, d, s, data, rows, sel, moment, open, seekedTo }.
  var tl = null;
  window.__hj.trace = function (t) { state.traces[t.slug + "/" + t.runId + "/" + t.step] = t; };

  function tlKey(d, s) { return d.slug + "/" + d.runId + "/" + s.id; }
  function tlBadRequest(n) { return !!(n.failure || (n.status && n.status >= 400)); }
  function tlBadConsole(c) { return c.level === "error"; }
  // Failed requests and errors first, the rest in their order.
  function tlFirst(list, bad) {
    return list.filter(bad).concat(list.filter(function (x) { return !bad(x); }));
  }

  // The timeline's section of step `s` (drawn by tlOpen once the step's
  // markup is in place).
  function tlSection(s) {
    if (!s.trace) return "";
    var t = s.trace;
    var counts = t.entries != null ? t.entries + (t.entries === 1 ? " call" : " calls") + (t.failed ? ", " + t.failed + " failed" : "") : "";
    return '<div id="timeline" class="timeline" data-step="' + esc(s.id) + '"><h3>Trace' + (counts ? ' <span class="kv">' + esc(counts) + "</span>" : "") + "</h3>" +
      (t.notice ? '<div class="notice warn">' + esc(t.notice) + "</div>" : "") + '<div class="tl-video"></div><div class="tl-body">Loading the trace…</div></div>';
  }

  // ---------- the run's video with the timeline ----------
  // A run with a video (HARSHJUDGE_VIDEO) shows it above a traced step's
  // rows (its card moved there from the top of the run view, its home, and
  // back for a step without a trace: one element, its playback kept).
  // The video's time t is d.video.startedAt + 1000 t on the trace's clock
  // (ms since the Unix epoch; video.vtt's `NOTE startedAt=`): choosing a row
  // pauses the video at the row's start; playing it (its `timeupdate`)
  // selects the row of the last call begun by its time, within the open
  // step's time range. A video without startedAt (an older run) only plays.

  // The card back home, before the step's markup that may hold it is replaced.
  function tlVideoHome() {
    var card = document.getElementById("video"), home = document.getElementById("video-home");
    if (card && home && card.parentNode !== home) home.appendChild(card);
  }

  // The card above the open timeline's rows.
  function tlVideoPlace() {
    var card = document.getElementById("video"), slot = document.querySelector("#timeline .tl-video");
    if (!card || !slot) return;
    slot.appendChild(card);
    var v = card.querySelector("video");
    if (v && !v.__hjTimeline) {
      v.__hjTimeline = true;
      v.addEventListener("timeupdate", function () { tlVideoTime(v); });
    }
  }

  // The video beside the open timeline and its time 0 (trace's clock), when both.
  function tlVideo() {
    var v = document.querySelector("#timeline .tl-video video");
    var at = tl && tl.d.video ? tl.d.video.startedAt : null;
    return v && typeof at === "number" && isFinite(at) ? { v: v, at: at } : null;
  }

  // Pauses the video at `row`'s start (an entry's, or its gap's for a
  // `between` row): the frame of that moment.
  function tlVideoSeek(row) {
    var x = tlVideo();
    if (!x || typeof row.start !== "number") return;
    var t = Math.max(0, (row.start - x.at) / 1000);
    if (isFinite(x.v.duration)) t = Math.min(t, x.v.duration);
    x.v.pause();
    x.v.currentTime = t;
    // The seek's own timeupdate leaves this row chosen (a `between` row's
    // start is its previous call's end).
    tl.seekedTo = t;
  }

  // The video's time moved: the row of the last call that began by then,
  // when the open step's range holds that time.
  function tlVideoTime(v) {
    var x = tlVideo();
    if (!x || x.v !== v || !tl.data || !tl.data.trace || !tl.rows.length) return;
    if (tl.seekedTo != null && Math.abs(v.currentTime - tl.seekedTo) < 0.001) return;
    tl.seekedTo = null;
    var tr = tl.data.trace, now = x.at + v.currentTime * 1000;
    var from = typeof tr.startedAt === "number" ? tr.startedAt : tl.rows[0].start;
    var to = typeof tr.endedAt === "number" ? tr.endedAt : tl.rows[tl.rows.length - 1].end;
    if (!(now >= from && now <= to)) return;
    var found = -1;
    tl.rows.forEach(function (r, i) { if (r.entry && r.entry.start <= now) found = i; });
    if (found >= 0 && found !== tl.sel) tlSelect(found, true);
  }

  function tlOpen(d, s) {
    if (!s.trace) { tl = null; return; }
    var key = tlKey(d, s);
    tl = { key: key, d: d, s: s, data: null, rows: [], sel: -1, moment: null, open: true, seekedTo: null };
    tlVideoPlace();
    // Its title closes the timeline and opens it again (Esc stays the run
    // view's: back to the overview).
    var title = document.querySelector("#timeline h3");
    if (title) title.addEventListener("click", function () {
      if (!tl || tl.key !== key) return;
      tl.open = !tl.open;
      document.getElementById("timeline").classList.toggle("closed", !tl.open);
    });
    var show = function () {
      if (!tl || tl.key !== key) return;
      tl.data = state.traces[key];
      tlDraw();
    };
    if (state.traces[key]) return show();
    load("data/traces/" + encodeURIComponent(d.slug) + "/" + encodeURIComponent(d.runId) + "/" + encodeURIComponent(s.id) + ".js", function (ok) {
      if (!ok || !state.traces[key]) {
        var body = document.querySelector("#timeline .tl-body");
        if (body && tl && tl.key === key) body.innerHTML = '<div class="empty">The trace\'s data script is missing: write the report again (<code>harshjudge-mcp report</code>).</div>';
        return;
      }
      show();
    });
  }

  // The rows: each entry, and before an entry the requests and console lines
  // that began in the gap before it (trace.json's `between`, by time; those
  // without a time at the end).
  function tlRows(tr) {
    var entries = tr.entries || [];
    var gaps = {};
    var place = function (list, kind, timeOf) {
      (list || []).forEach(function (x) {
        var at = timeOf(x), g = entries.length;
        if (typeof at === "number") { g = 0; while (g < entries.length && entries[g].start <= at) g++; }
        (gaps[g] = gaps[g] || { network: [], console: [] })[kind].push(x);
      });
    };
    var b = tr.between || {};
    place(b.network, "network", function (r) { return r.startedAt; });
    place(b.console, "console", function (c) { return c.timestamp; });
    var rows = [];
    for (var i = 0; i <= entries.length; i++) {
      if (gaps[i]) {
        rows.push({ between: true, network: gaps[i].network, console: gaps[i].console,
          start: i > 0 ? entries[i - 1].end : tr.startedAt, end: i < entries.length ? entries[i].start : tr.endedAt });
      }
      if (i < entries.length) rows.push({ entry: entries[i], start: entries[i].start, end: entries[i].end });
    }
    return rows;
  }

  function tlDraw() {
    var body = document.querySelector("#timeline .tl-body");
    if (!body || !tl) return;
    var t = tl.data, tr = t.trace;
    var notes = (t.notices || []).map(function (n) { return '<div class="notice warn">' + esc(n) + "</div>"; }).join("");
    if (!tr) { body.innerHTML = notes || '<div class="empty">No trace.</div>'; return; }
    tl.rows = tlRows(tr);
    var t0 = tr.startedAt, span = Math.max((tr.endedAt || t0) - t0, 1);
    var pct = function (v) { return Math.max(0, Math.min(100, (v - t0) / span * 100)); };
    var html = notes + tlFilm(tr) + '<div class="tl-rows" role="listbox" aria-label="The step\'s calls">' + tl.rows.map(function (r, i) {
      var e = r.entry, left = pct(r.start), width = Math.max(pct(r.end) - left, 0.4);
      var bar = '<span class="tl-time"><span class="tl-bar" style="left:' + left.toFixed(2) + "%;width:" + width.toFixed(2) + '%"></span></span>';
      if (!e) {
        return '<div class="tl-row between" role="option" data-row="' + i + '"><span class="tl-kind">between</span><span class="tl-call">' +
          r.network.length + " request" + (r.network.length === 1 ? "" : "s") + ", " + r.console.length + " console line" + (r.console.length === 1 ? "" : "s") + " between calls</span>" + bar + '<span class="tl-out"></span></div>';
      }
      var st = e.outcome && e.outcome.status || "";
      return '<div class="tl-row ' + esc(e.kind) + (st === "failed" ? " failed" : st === "ok" ? "" : " " + esc(st)) + '" role="option" data-row="' + i + '" data-n="' + esc(e.n) + '">' +
        '<span class="tl-kind">' + esc(e.kind) + '</span><span class="tl-call" title="' + esc(e.call) + '">' + esc(e.call) + "</span>" + bar +
        '<span class="tl-out">' + (st === "ok" ? dur(Math.round(e.end - e.start)) : esc(st + (e.outcome.kind ? ": " + e.outcome.kind : ""))) + "</span></div>";
    }).join("") + '</div><div class="tl-detail"></div>' +
      '<div class="hint">Keys: <kbd>j</kbd><kbd>k</kbd> between calls · <kbd>b</kbd> before, <kbd>a</kbd> after · its title closes it · <kbd>↑</kbd><kbd>↓</kbd> between steps, <kbd>Esc</kbd> back.' +
      (tlVideo() ? " A call chosen shows its moment in the video; the video playing chooses its calls." : "") + "</div>";
    body.innerHTML = html;
    body.querySelectorAll(".tl-row").forEach(function (row) {
      row.addEventListener("click", function () { tlSelect(+row.getAttribute("data-row")); });
    });
    body.querySelectorAll(".filmstrip [data-row]").forEach(function (img) {
      img.addEventListener("click", function (e) { e.stopPropagation(); tlSelect(+img.getAttribute("data-row")); });
    });
    var failed = -1;
    tl.rows.forEach(function (r, i) { if (failed < 0 && r.entry && r.entry.outcome && r.entry.outcome.status === "failed") failed = i; });
    tlSelect(failed >= 0 ? failed : 0);
  }

  // The film strip: an image per action when the trace has them, else the
  // step's before, after and failure screenshots.
  function tlFilm(tr) {
    var base = tl.s.trace.evidence || "";
    var own = [];
    tl.rows.forEach(function (r, i) {
      if (r.entry && typeof r.entry.screenshot === "string" && r.entry.screenshot) own.push({ src: base + r.entry.screenshot, cap: "#" + r.entry.n + " " + r.entry.call, row: i });
    });
    var shots = own;
    if (!shots.length) {
      tl.s.shots.forEach(function (g) {
        var p = g.probe ? g.probe + " · " : "";
        if (g.before) shots.push({ src: g.before, cap: p + "before the step" });
        if (g.after) shots.push({ src: g.after, cap: p + "after the step" });
        if (g.failure && g.failure !== g.after) shots.push({ src: g.failure, cap: p + "at the failure" });
      });
    }
    if (!shots.length) return "";
    return '<div class="filmstrip">' + shots.map(function (f) {
      return '<figure><img class="zoomable" src="' + esc(f.src) + '" alt="' + esc(f.cap) + '" data-cap="' + esc(f.cap) + '"' + (f.row != null ? ' data-row="' + f.row + '"' : "") + "><figcaption>" + esc(f.cap) + "</figcaption></figure>";
    }).join("") + "</div>";
  }

  // The screenshot taken after a call (HARSHJUDGE_TRACE_SCREENSHOTS=on),
  // beside the rebuilt page; or a line saying there is none.
  function tlShot(e) {
    var src = typeof e.screenshot === "string" && e.screenshot ? (tl.s.trace.evidence || "") + e.screenshot : null;
    if (!src) {
      var any = (tl.data.trace.entries || []).some(function (x) { return typeof x.screenshot === "string" && x.screenshot; });
      return '<div class="tl-shot"><div class="none">' + (any ? "no screenshot of the page after this call" : "no screenshots in this trace (<code>HARSHJUDGE_TRACE_SCREENSHOTS=on</code> takes one after each action)") + "</div></div>";
    }
    var cap = "#" + e.n + " " + e.call + ": the screen after it";
    return '<div class="tl-shot"><img class="zoomable" src="' + esc(src) + '" alt="' + esc(cap) + '" data-cap="' + esc(cap) + '"></div>';
  }

  // `fromVideo`: chosen by the video's time (which then is not moved).
  function tlSelect(i, fromVideo) {
    if (!tl || !tl.rows.length) return;
    i = Math.max(0, Math.min(tl.rows.length - 1, i));
    if (!fromVideo) tlVideoSeek(tl.rows[i]);
    if (i !== tl.sel) tl.moment = null;
    tl.sel = i;
    document.querySelectorAll("#timeline .tl-row").forEach(function (row) {
      var on = +row.getAttribute("data-row") === i;
      row.classList.toggle("sel", on);
      row.setAttribute("aria-selected", on ? "true" : "false");
      if (on) row.scrollIntoView({ block: "nearest" });
    });
    tlDetail();
  }

  // The next call's row in direction `dir` (the rows of the gaps between
  // calls are skipped: a gap has one only when something happened in it, so
  // j/k would otherwise land on them or not by timing); none: stays.
  function tlStep(dir) {
    for (var i = tl.sel + dir; i >= 0 && i < tl.rows.length; i += dir) {
      if (!tl.rows[i].between) { tlSelect(i); return; }
    }
  }

  // The moments a row has: an action's before and after, an assertion's at.
  function tlMoments(e) {
    var m = e && e.snapshots || {};
    return ["before", "after", "at"].filter(function (k) { return typeof m[k] === "number"; });
  }

  function tlMoment(m) {
    if (!tl || tl.sel < 0) return;
    var row = tl.rows[tl.sel];
    if (!row.entry || tlMoments(row.entry).indexOf(m) < 0) return;
    tl.moment = m;
    tlDetail();
  }

  function tlTable(cls, head, rows) {
    return '<table class="log ' + cls + '"><thead><tr>' + head.map(function (h) { return "<th>" + h + "</th>"; }).join("") + "</tr></thead><tbody>" + rows + "</tbody></table>";
  }
  function tlLogs(network, consoleLines) {
    var html = "";
    var net = tlFirst(network || [], tlBadRequest), con = tlFirst(consoleLines || [], tlBadConsole);
    html += "<h4>Requests (" + net.length + ")</h4>" + (net.length ? tlTable("network tl-requests", ["Method", "URL", "Status", "Time"], net.map(function (n) {
      return '<tr class="' + (tlBadRequest(n) ? "bad" : "") + '"><td>' + esc(n.method) + '</td><td class="m">' + esc(n.url) + "</td><td>" + esc(n.failure || n.status || "") + "</td><td>" + (n.timing != null ? esc(Math.round(n.timing)) + " ms" : "") + "</td></tr>";
    }).join("")) : '<div class="none">none</div>');
    html += "<h4>Console (" + con.length + ")</h4>" + (con.length ? tlTable("console tl-console", ["Level", "Message"], con.map(function (c) {
      return '<tr class="' + (tlBadConsole(c) ? "bad" : c.level === "warning" ? "warn" : "") + '"><td>' + esc(c.level) + '</td><td class="m">' + esc(c.text) + "</td></tr>";
    }).join("")) : '<div class="none">none</div>');
    return html;
  }

  function tlDetail() {
    var box = document.querySelector("#timeline .tl-detail");
    if (!box || !tl) return;
    var row = tl.rows[tl.sel];
    if (!row.entry) {
      box.innerHTML = '<div class="tl-head"><b>Between calls</b> <span class="kv">' + dur(Math.max(0, Math.round(row.end - row.start))) + "</span></div>" + tlLogs(row.network, row.console);
      return;
    }
    var e = row.entry, o = e.outcome || {};
    var moments = tlMoments(e);
    if (!tl.moment || moments.indexOf(tl.moment) < 0) tl.moment = moments.indexOf("before") >= 0 ? "before" : moments[0] || null;
    var dom = tl.data.dom;
    var toggle = "";
    if (moments.indexOf("at") >= 0) toggle = '<span class="tl-moment at">At the last check</span>';
    else if (moments.length) {
      toggle = ["before", "after"].map(function (m) {
        return '<button type="button" class="tl-moment' + (tl.moment === m ? " on" : "") + '" data-moment="' + m + '"' + (moments.indexOf(m) < 0 ? " disabled" : "") + ">" + (m === "before" ? "Before" : "After") + "</button>";
      }).join("");
    }
    var html = '<div class="tl-head"><span class="pill ' + (o.status === "ok" ? "pass" : "fail") + '">' + esc(o.status || "") + '</span> <code class="tl-which">' + esc(e.call) + "</code> " +
      '<span class="kv">' + dur(Math.round(e.end - e.start)) + "</span>" + (e.frame ? ' <span class="kv">in ' + esc(e.frame) + "</span>" : "") + "</div>" +
      '<div class="loc tl-at">at ' + esc(e.at) + "</div>" +
      (o.error ? '<pre class="err">' + esc(o.error) + "</pre>" : "") +
      '<div class="tl-snap"><div class="tl-toggle">' + toggle + "</div>" + '<div class="tl-views"><div class="tl-frame"></div>' + tlShot(e) + "</div></div>" +
      "<h4>Call log</h4>" + ((o.log || []).length ? "<pre class=\"tl-log\">" + esc(o.log.join("\n")) + "</pre>" : '<div class="none">none</div>') +
      tlLogs(e.network, e.console);
    box.innerHTML = html;
    box.querySelectorAll("button.tl-moment").forEach(function (b) {
      b.addEventListener("click", function () { tlMoment(b.getAttribute("data-moment")); });
    });
    var slot = box.querySelector(".tl-frame");
    var index = tl.moment ? e.snapshots[tl.moment] : null;
    if (!dom || index == null) {
      slot.innerHTML = '<div class="none">' + (dom ? "no snapshot of the page for this call" : tl.s.trace.snapshots ? "the snapshots were left out (see above)" : "no DOM snapshots in this trace") + "</div>";
      return;
    }
    // The page at that moment: srcdoc in a sandbox that lets only our nonced
    // script run, never with the report's origin.
    var frame = document.createElement("iframe");
    frame.className = "snapshot";
    frame.setAttribute("sandbox", "allow-scripts");
    frame.setAttribute("title", "The page " + (tl.moment === "at" ? "at the last check" : tl.moment) + " " + e.call);
    frame.setAttribute("data-moment", tl.moment);
    // The stylesheets (and later images) the snapshots name, inlined by the
    // step's data script as data: URLs.
    frame.srcdoc = hjrRender(dom, index, tl.data.resources || {});
    slot.appendChild(frame);
  }

  // Keys while a timeline is shown: true when the key was the timeline's.
  function tlKeydown(e) {
    if (!tl || !document.getElementById("timeline")) return false;
    if (!tl.open || !tl.rows.length) return false;
    // j/k only: ↑/↓ stay the run view's keys between steps.
    if (e.key === "j") { tlStep(1); return true; }
    if (e.key === "k") { tlStep(-1); return true; }
    if (e.key === "b") { tlMoment("before"); return true; }
    if (e.key === "a") { tlMoment("after"); return true; }
    return false;
  }
