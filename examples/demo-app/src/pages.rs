//! The HTML pages. Everything is inline: no external CSS, JS, fonts or images.

use std::collections::HashMap;

use axum::extract::{Query, State};
use axum::http::{StatusCode, Uri};
use axum::response::{Html, IntoResponse, Response};

use crate::{AppState, Item, Variant, api};

/// What `/slow` waits without `?ms=`, in milliseconds.
const SLOW_PAGE_DEFAULT_MS: u64 = 1_500;
/// The longest `/slow` waits, in milliseconds.
const SLOW_PAGE_CAP_MS: u64 = 60_000;

const STYLE: &str = r#"
*{box-sizing:border-box}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;font-size:16px;line-height:1.5;background:#f4f5f7;color:#1d2330}
header{background:#24324a;padding:12px 24px}
header a{color:#fff;text-decoration:none;font-weight:600;letter-spacing:.02em}
main{max-width:640px;margin:32px auto;background:#fff;border:1px solid #dde1e7;border-radius:10px;padding:24px 32px;box-shadow:0 1px 3px rgba(0,0,0,.06)}
h1{margin:0 0 16px;font-size:1.8rem}
a{color:#2f6fde}
nav ul{list-style:none;padding:0;margin:0}
nav li{margin:8px 0}
label{display:block;margin:12px 0 4px;font-weight:600}
label.inline{display:inline-flex;align-items:center;gap:6px;margin:0;font-weight:normal}
input[type=text],input[type=email],input[type=password],select{font:inherit;padding:8px 10px;border:1px solid #b9c0cc;border-radius:6px;background:#fff}
form input[type=email],form input[type=password]{width:100%}
button{font:inherit;padding:8px 16px;border:0;border-radius:6px;background:#2f6fde;color:#fff;cursor:pointer}
button:hover{background:#2459b8}
button.secondary{background:#e6e9ef;color:#1d2330;padding:4px 12px}
button.secondary:hover{background:#d5dae3}
button.danger{background:#c0392b}
.actions{margin-top:16px;display:flex;gap:8px;flex-wrap:wrap;align-items:center}
[data-testid=login-error],[data-testid=item-error],.error{color:#b3261e;background:#fdecea;border:1px solid #f5c2bd;padding:8px 12px;border-radius:6px}
[data-testid=data-message],[data-testid=slow-result],.ok{color:#1e6b34;background:#e8f5ec;border:1px solid #b9dfc4;padding:8px 12px;border-radius:6px}
.muted{color:#5d6675}
[data-testid=item-list]{list-style:none;padding:0;margin:0 0 16px}
[data-testid=item]{display:flex;align-items:center;gap:10px;padding:8px 0;border-bottom:1px solid #eceff3}
[data-testid=item] span{flex:1}
.tag{font-size:.8rem;background:#eef1f6;color:#46505f;border-radius:999px;padding:2px 10px}
.urgent{font-size:.8rem;background:#fdecea;color:#b3261e;border-radius:999px;padding:2px 10px}
.add-row{display:flex;gap:8px;flex-wrap:wrap;align-items:center}
.add-row input[type=text]{flex:1;min-width:160px}
"#;

/// Escapes text for use in HTML content and double-quoted attributes.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(ch),
        }
    }
    out
}

/// Wraps a page body (already HTML) and an optional inline script in the layout.
pub(crate) fn layout(title: &str, body: &str, script: &str) -> String {
    let title = if title.is_empty() {
        "Demo App".to_owned()
    } else {
        format!("{} - Demo App", escape(title))
    };
    let mut page = String::with_capacity(STYLE.len() + body.len() + script.len() + 512);
    page.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    page.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    // An empty data: icon keeps the browser from requesting /favicon.ico.
    page.push_str("<link rel=\"icon\" href=\"data:,\">\n<title>");
    page.push_str(&title);
    page.push_str("</title>\n<style>");
    page.push_str(STYLE);
    page.push_str("</style>\n</head>\n<body>\n");
    page.push_str("<header><a href=\"/\" data-testid=\"nav-home\">Demo App</a></header>\n<main>\n");
    page.push_str(body);
    page.push_str("\n</main>\n");
    if !script.is_empty() {
        page.push_str("<script>");
        page.push_str(script);
        page.push_str("</script>\n");
    }
    page.push_str("</body>\n</html>\n");
    page
}

/// `GET /`.
pub(crate) async fn home() -> Html<String> {
    Html(layout(
        "",
        r#"<h1>Demo App</h1>
<p class="muted">A small app for end-to-end tests.</p>
<nav>
<ul>
<li><a href="/login" data-testid="nav-login">Login</a></li>
<li><a href="/items" data-testid="nav-items">Items</a></li>
<li><a href="/console" data-testid="nav-console">Console</a></li>
<li><a href="/slow" data-testid="nav-slow">Slow page</a></li>
</ul>
</nav>"#,
        "",
    ))
}

const LOGIN_SCRIPT: &str = r#"
(function () {
  var form = document.getElementById('login-form');
  var slot = document.getElementById('login-error-slot');
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var body = JSON.stringify({
      email: document.getElementById('email').value,
      password: document.getElementById('password').value
    });
    fetch('/api/login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: body })
      .then(function (res) {
        return res.json().catch(function () { return {}; }).then(function (data) {
          if (res.ok && data.ok) {
            var next = new URLSearchParams(window.location.search).get('next');
            window.location.href = next && /^\/[^\/\\]/.test(next) ? next : '/dashboard?name=' + encodeURIComponent(data.name);
          } else {
            slot.innerHTML = '<p data-testid="login-error" role="alert">Invalid email or password</p>';
          }
        });
      })
      .catch(function () {
        slot.innerHTML = '<p data-testid="login-error" role="alert">Invalid email or password</p>';
      });
  });
})();
"#;

/// `GET /login` (its button or label changed by `DEMO_APP_VARIANT`).
pub(crate) async fn login(State(state): State<AppState>) -> Html<String> {
    let variant = state.lock().variant;
    let label = if variant == Variant::ChangedLabel {
        "E-mail"
    } else {
        "Email"
    };
    let button = if variant == Variant::RenamedButton {
        "Log in"
    } else {
        "Sign in"
    };
    Html(layout(
        "Login",
        &format!(
            r#"<h1>Sign in</h1>
<form id="login-form" data-testid="login-form" novalidate>
<label for="email">{label}</label>
<input id="email" name="email" type="email" data-testid="email" autocomplete="username" placeholder="you@example.com">
<label for="password">Password</label>
<input id="password" name="password" type="password" data-testid="password" autocomplete="current-password">
<div id="login-error-slot"></div>
<div class="actions"><button type="submit" data-testid="sign-in">{button}</button></div>
</form>"#
        ),
        LOGIN_SCRIPT,
    ))
}

/// `GET /dashboard?name=Ada`.
pub(crate) async fn dashboard(
    State(state): State<AppState>,
    Query(query): Query<HashMap<String, String>>,
) -> Html<String> {
    let greeting = if state.lock().variant == Variant::ChangedText {
        "Hello"
    } else {
        "Welcome"
    };
    let name = query
        .get("name")
        .map(|name| name.trim())
        .filter(|name| !name.is_empty())
        .unwrap_or("guest");
    let body = format!(
        r#"<h1>{greeting}, {}</h1>
<p class="muted">You are signed in.</p>
<p><a href="/login" data-testid="sign-out">Sign out</a></p>"#,
        escape(name)
    );
    Html(layout("Dashboard", &body, ""))
}

/// The `<li>` of one item; `ITEMS_SCRIPT`'s `renderItem` builds the same markup.
fn item_li(item: &Item) -> String {
    let urgent = if item.urgent {
        r#" <strong class="urgent" data-testid="item-urgent">urgent</strong>"#
    } else {
        ""
    };
    format!(
        r#"<li data-testid="item"><span data-testid="item-text">{text}</span> <small class="tag" data-testid="item-category">{category}</small>{urgent} <button type="button" class="secondary" data-testid="remove-{id}" data-id="{id}">Remove</button></li>"#,
        id = item.id,
        text = escape(&item.text),
        category = escape(&item.category),
    )
}

fn count_text(count: usize) -> String {
    format!("{count} items")
}

const ITEMS_SCRIPT: &str = r#"
(function () {
  var list = document.querySelector('[data-testid="item-list"]');
  var count = document.querySelector('[data-testid="item-count"]');
  var input = document.getElementById('new-item');
  var category = document.getElementById('category');
  var urgent = document.getElementById('urgent');
  var slot = document.getElementById('item-error-slot');

  function showError(message) {
    slot.innerHTML = '<p data-testid="item-error" role="alert"></p>';
    slot.firstChild.textContent = message;
  }
  function clearError() { slot.innerHTML = ''; }

  function renderItem(item) {
    var li = document.createElement('li');
    li.setAttribute('data-testid', 'item');
    var text = document.createElement('span');
    text.setAttribute('data-testid', 'item-text');
    text.textContent = item.text;
    li.appendChild(text);
    li.appendChild(document.createTextNode(' '));
    var tag = document.createElement('small');
    tag.className = 'tag';
    tag.setAttribute('data-testid', 'item-category');
    tag.textContent = item.category;
    li.appendChild(tag);
    if (item.urgent) {
      li.appendChild(document.createTextNode(' '));
      var flag = document.createElement('strong');
      flag.className = 'urgent';
      flag.setAttribute('data-testid', 'item-urgent');
      flag.textContent = 'urgent';
      li.appendChild(flag);
    }
    li.appendChild(document.createTextNode(' '));
    var remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'secondary';
    remove.setAttribute('data-testid', 'remove-' + item.id);
    remove.setAttribute('data-id', String(item.id));
    remove.textContent = 'Remove';
    li.appendChild(remove);
    return li;
  }

  function render(items) {
    list.textContent = '';
    items.forEach(function (item) { list.appendChild(renderItem(item)); });
    count.textContent = items.length + ' items';
  }

  function refresh() {
    return fetch('/api/items')
      .then(function (res) { return res.json(); })
      .then(render)
      .catch(function (err) { showError('could not load items: ' + err); });
  }

  function addItem() {
    var body = JSON.stringify({ text: input.value, category: category.value, urgent: urgent.checked });
    return fetch('/api/items', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: body })
      .then(function (res) {
        if (res.status === 201) {
          input.value = '';
          urgent.checked = false;
          clearError();
          return refresh();
        }
        return res.json()
          .catch(function () { return { error: 'request failed (' + res.status + ')' }; })
          .then(function (data) { showError(data.error || ('request failed (' + res.status + ')')); });
      })
      .catch(function (err) { showError('request failed: ' + err); })
      .then(function () { input.focus(); });
  }

  function removeItem(id) {
    return fetch('/api/items/' + encodeURIComponent(id), { method: 'DELETE' })
      .then(function (res) {
        if (res.status === 204) { clearError(); return refresh(); }
        return res.json()
          .catch(function () { return { error: 'request failed (' + res.status + ')' }; })
          .then(function (data) { showError(data.error); return refresh(); });
      })
      .catch(function (err) { showError('request failed: ' + err); });
  }

  document.getElementById('add-item').addEventListener('click', function () { addItem(); });
  input.addEventListener('keydown', function (event) {
    if (event.key === 'Enter') { event.preventDefault(); addItem(); }
  });
  list.addEventListener('click', function (event) {
    var button = event.target.closest('button[data-id]');
    if (button) { removeItem(button.getAttribute('data-id')); }
  });
})();
"#;

/// `GET /items`.
pub(crate) async fn items(State(state): State<AppState>) -> Html<String> {
    let items = state.lock().items.clone();
    let lis: String = items.iter().map(item_li).collect::<Vec<_>>().join("\n");
    let body = format!(
        r#"<h1>Items</h1>
<ul data-testid="item-list">
{lis}
</ul>
<p><span data-testid="item-count">{count}</span></p>
<div class="add-row">
<input id="new-item" type="text" data-testid="new-item" placeholder="New item" aria-label="New item">
<select id="category" data-testid="category" aria-label="Category">
<option value="general" selected>general</option>
<option value="fruit">fruit</option>
<option value="tools">tools</option>
</select>
<label class="inline" for="urgent"><input id="urgent" type="checkbox" data-testid="urgent"> Urgent</label>
<button type="button" id="add-item" data-testid="add-item">Add</button>
</div>
<div id="item-error-slot"></div>"#,
        count = count_text(items.len()),
    );
    Html(layout("Items", &body, ITEMS_SCRIPT))
}

const CONSOLE_SCRIPT: &str = r#"
(function () {
  console.log("demo: page loaded");
  console.warn("demo: low stock");
  console.error("demo: something failed");

  var dataSlot = document.getElementById('data-slot');
  fetch('/api/data')
    .then(function (res) { return res.json(); })
    .then(function (data) {
      dataSlot.innerHTML = '<p data-testid="data-message"></p>';
      dataSlot.firstChild.textContent = data.message;
    })
    .catch(function (err) {
      dataSlot.innerHTML = '<p data-testid="data-message"></p>';
      dataSlot.firstChild.textContent = 'error: ' + err;
    });

  var missingSlot = document.getElementById('missing-slot');
  document.getElementById('load-missing').addEventListener('click', function () {
    fetch('/api/missing')
      .then(function (res) {
        missingSlot.innerHTML = '<p data-testid="missing-status"></p>';
        missingSlot.firstChild.textContent = res.status === 404 ? 'not found' : 'status ' + res.status;
      })
      .catch(function (err) {
        missingSlot.innerHTML = '<p data-testid="missing-status"></p>';
        missingSlot.firstChild.textContent = 'error: ' + err;
      });
  });

  document.getElementById('throw').addEventListener('click', function () {
    throw new Error("demo: boom");
  });
})();
"#;

/// `GET /console`.
pub(crate) async fn console() -> Html<String> {
    Html(layout(
        "Console",
        r#"<h1>Console</h1>
<p class="muted">This page writes to the browser console, calls the API and can fail on purpose.</p>
<div id="data-slot"></div>
<div class="actions">
<button type="button" id="load-missing" data-testid="load-missing">Load missing</button>
<button type="button" id="throw" class="danger" data-testid="throw">Throw an error</button>
</div>
<div id="missing-slot"></div>"#,
        CONSOLE_SCRIPT,
    ))
}

/// `GET /slow?ms=N`.
pub(crate) async fn slow(Query(query): Query<HashMap<String, String>>) -> Html<String> {
    let ms = query
        .get("ms")
        .and_then(|ms| ms.trim().parse::<u64>().ok())
        .unwrap_or(SLOW_PAGE_DEFAULT_MS)
        .min(SLOW_PAGE_CAP_MS);
    let script = format!(
        r#"
setTimeout(function () {{
  document.getElementById('slow-slot').innerHTML = '<div data-testid="slow-result">Ready</div>';
  document.querySelector('[data-testid="slow-status"]').textContent = 'Done';
}}, {ms});
"#
    );
    Html(layout(
        "Slow",
        r#"<h1>Slow page</h1>
<p data-testid="slow-status">Loading…</p>
<div id="slow-slot"></div>"#,
        &script,
    ))
}

/// `GET /favicon.ico`: no icon, and no 404 in the browser's console either.
/// A TodoMVC-like app, all in the page (custom opacity-0 checkboxes, a delete
/// button shown on hover, an edit field that commits on blur).
pub(crate) async fn todos() -> Html<&'static str> {
    Html(include_str!("static/todos.html"))
}

/// Elements that test actionability: an opacity-0 checkbox, a covered button,
/// one enabled late, one detached and re-attached, a moving one, a field that
/// commits on blur, selects, a file input, a drag source.
/// `GET /device`: what the browser says of its device, place and time (its
/// language, time zone, colour scheme, …, read by the page's script), and
/// the headers its request carried (read by the server): a page to test
/// emulation against.
pub(crate) async fn device(headers: axum::http::HeaderMap) -> Html<String> {
    let header = |name: &str| {
        escape(
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("(none)"),
        )
    };
    let body = format!(
        r#"<h1>Device</h1>
<dl>
<dt>Language</dt><dd data-testid="language">(no script)</dd>
<dt>Time zone</dt><dd data-testid="time-zone">(no script)</dd>
<dt>A number</dt><dd data-testid="number">(no script)</dd>
<dt>Colour scheme</dt><dd data-testid="color-scheme">(no script)</dd>
<dt>Online</dt><dd data-testid="online">(no script)</dd>
<dt>Viewport</dt><dd data-testid="viewport">(no script)</dd>
<dt>Touch</dt><dd data-testid="touch">(no script)</dd>
<dt>User agent (page)</dt><dd data-testid="user-agent">(no script)</dd>
<dt>User agent (request)</dt><dd data-testid="request-user-agent">{}</dd>
<dt>Accept-Language (request)</dt><dd data-testid="request-accept-language">{}</dd>
<dt>X-Tenant (request)</dt><dd data-testid="request-x-tenant">{}</dd>
</dl>"#,
        header("user-agent"),
        header("accept-language"),
        header("x-tenant"),
    );
    Html(layout("Device", &body, DEVICE_SCRIPT))
}

const DEVICE_SCRIPT: &str = r#"
function show(id, v) { document.querySelector('[data-testid="' + id + '"]').textContent = String(v); }
show('language', navigator.language);
show('time-zone', Intl.DateTimeFormat().resolvedOptions().timeZone);
show('number', new Intl.NumberFormat().format(1234.5));
show('color-scheme', matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
show('online', navigator.onLine);
show('viewport', innerWidth + 'x' + innerHeight + '@' + devicePixelRatio);
show('touch', 'ontouchstart' in window);
show('user-agent', navigator.userAgent);
"#;

pub(crate) async fn play() -> Html<&'static str> {
    Html(include_str!("static/play.html"))
}

pub(crate) async fn favicon() -> StatusCode {
    StatusCode::NO_CONTENT
}

/// Any other path: an HTML 404 page (JSON for paths under `/api/`).
pub(crate) async fn not_found(uri: Uri) -> Response {
    let path = uri.path();
    if path == "/api" || path.starts_with("/api/") {
        return api::not_found(path);
    }
    let body = format!(
        r#"<h1>Not found</h1>
<p class="muted">Nothing lives at <code data-testid="not-found-path">{}</code>.</p>
<p><a href="/">Back to the home page</a></p>"#,
        escape(path)
    );
    (StatusCode::NOT_FOUND, Html(layout("Not found", &body, ""))).into_response()
}
