//! The loopback app of the network tests (`tests/bidi.rs` in Chromium,
//! `tests/engines_network.rs` in Firefox and WebKit): a page with buttons that
//! fetch, throw and log, a real document, a JSON API, and a record of every
//! request the server was sent, headers included.

use std::io::{BufRead, BufReader, Read};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

pub const PLAY: &str = r#"<!doctype html><html><head><title>play</title></head><body>
<p id="out">idle</p>
<script>
function show(t) { document.getElementById('out').textContent = t; }
async function load(path, init) {
  try { const r = await fetch(path, init); show(r.status + ' ' + await r.text()); }
  catch (e) { show('failed: ' + e.message); }
}
</script>
<button id="items" onclick="load('/api/items')">items</button>
<button id="echo" onclick="load('/api/echo')">echo</button>
<button id="post" onclick="load('/api/items', {method: 'POST', body: '{}'})">post</button>
<button id="throw" onclick="throw new Error('boom from click')">throw</button>
<button id="reject" onclick="Promise.reject(new Error('rejected quietly'))">reject</button>
<button id="log" onclick="console.error('logged error'); console.log('hello log')">log</button>
</body></html>"#;

/// What the server was sent: (method, path, headers lower-cased).
pub type Seen = Arc<Mutex<Vec<(String, String, Vec<(String, String)>)>>>;

/// The tests' app: `/play`, `/doc` (a real document), `/api/items` (GET:
/// `["real"]`, POST: 201), `/api/echo` (the request's `x-` headers as JSON);
/// anything else is a 404.
pub fn serve() -> (String, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen: Seen = Arc::default();
    let log = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let log = log.clone();
            std::thread::spawn(move || {
                let _ = app(stream, &log);
            });
        }
    });
    (base, seen)
}

/// One request as the server reads it (its body is read and dropped).
struct Req {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
}

fn read_request(r: &mut BufReader<TcpStream>) -> Option<Req> {
    let mut line = String::new();
    if r.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next()?.to_string(), parts.next()?.to_string());
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        r.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (k, v) = h.split_once(':')?;
        headers.push((k.trim().to_lowercase(), v.trim().to_string()));
    }
    let len: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    r.read_exact(&mut body).ok()?;
    Some(Req {
        method,
        path,
        headers,
    })
}

fn app(stream: TcpStream, log: &Seen) -> std::io::Result<()> {
    let mut out = stream.try_clone()?;
    let mut r = BufReader::new(stream);
    while let Some(Req {
        method,
        path,
        headers,
    }) = read_request(&mut r)
    {
        log.lock()
            .unwrap()
            .push((method.clone(), path.clone(), headers.clone()));
        let (status, kind, body) = match (method.as_str(), path.as_str()) {
            (_, "/play") => ("200 OK", "text/html", PLAY.to_string()),
            (_, "/doc") => (
                "200 OK",
                "text/html",
                "<!doctype html><title>real</title><p id=\"doc\">real document</p>".into(),
            ),
            ("POST", "/api/items") => ("201 Created", "application/json", "{\"id\":1}".into()),
            (_, "/api/items") => ("200 OK", "application/json", "[\"real\"]".into()),
            (_, "/api/echo") => (
                "200 OK",
                "application/json",
                harshjudge::serde_json::to_string(
                    &headers
                        .iter()
                        .filter(|(k, _)| k.starts_with("x-"))
                        .cloned()
                        .collect::<Vec<_>>(),
                )
                .unwrap(),
            ),
            _ => ("404 Not Found", "text/plain", "no".into()),
        };
        super::respond(&mut out, status, kind, &body)?;
    }
    Ok(())
}
