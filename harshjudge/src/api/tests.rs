use serde_json::json;

use super::cookies::{CookieJar, parse_set_cookie};
use super::mask::{self, Secrets};
use super::{EVIDENCE_LIMIT, OutputMatch, contains};
use harshjudge_browser::Cookie;

#[test]
fn secret_headers_keep_their_shape_and_lose_their_values() {
    let mut s = Secrets::default();
    assert_eq!(
        s.header("Authorization", "Bearer tok-123456"),
        "Bearer ****"
    );
    assert_eq!(
        s.header("proxy-authorization", "Basic dXNlcjpwYXNz"),
        "Basic ****"
    );
    assert_eq!(
        s.header("cookie", "sid=abcdef; theme=dark"),
        "sid=****; theme=****"
    );
    assert_eq!(
        s.header("set-cookie", "sid=zyxwvu; Path=/; HttpOnly"),
        "sid=****; Path=/; HttpOnly"
    );
    assert_eq!(s.header("x-other", "visible"), "visible");
    assert_eq!(s.header("X-Api-Key", "k-998877"), "****");
    assert_eq!(s.header("x-auth-token", "t-665544"), "****");
    let echoed = "got tok-123456 and abcdef and zyxwvu and dXNlcjpwYXNz and k-998877";
    let scrubbed = s.scrub_str(echoed);
    for secret in ["tok-123456", "abcdef", "zyxwvu", "dXNlcjpwYXNz", "k-998877"] {
        assert!(!scrubbed.contains(secret), "{scrubbed}");
    }
}

#[test]
fn secret_fields_of_json_forms_and_queries_are_masked() {
    let mut s = Secrets::default();
    let mut v = json!({"user": "ada", "password": "hunter22", "nested": [{"api_token": "t0k3n!"}]});
    s.json(&mut v);
    assert_eq!(
        v,
        json!({"user": "ada", "password": "****", "nested": [{"api_token": "****"}]})
    );
    assert_eq!(
        s.form("user=ada&password=p%40ss%21w"),
        "user=ada&password=****"
    );
    let url = url::Url::parse("http://u:pw-secret@127.0.0.1/x?q=1&access_token=abcd1234").unwrap();
    let shown = s.url(&url);
    assert!(
        !shown.contains("pw-secret") && !shown.contains("abcd1234"),
        "{shown}"
    );
    assert!(shown.contains("q=1"), "{shown}");
    // Elsewhere, as JSON or percent-encoded, the values are scrubbed too.
    let mut echo = json!({"seen": "hunter22 p@ss!w p%40ss%21w"});
    s.scrub(&mut echo);
    assert_eq!(echo, json!({"seen": "**** **** ****"}));
}

#[test]
fn bodies_are_bounded_and_say_their_size() {
    let mut s = Secrets::default();
    let big = vec![b'x'; EVIDENCE_LIMIT + 10];
    let v = mask::body(&mut s, &big, Some("text/plain"));
    assert_eq!(v["size"], EVIDENCE_LIMIT + 10);
    assert_eq!(v["truncated"], true);
    assert_eq!(v["text"].as_str().unwrap().len(), EVIDENCE_LIMIT);
    let small = mask::body(&mut s, br#"{"a":1}"#, None);
    assert_eq!(small, json!({"size": 7, "json": {"a": 1}}));
    assert_eq!(mask::body(&mut s, b"", None), json!({"size": 0}));
}

#[test]
fn cookies_go_to_their_host_path_and_scheme_only() {
    let c = |name: &str, domain: &str, path: &str, secure: bool| Cookie {
        name: name.into(),
        value: "v".into(),
        domain: domain.into(),
        path: path.into(),
        expires: -1.0,
        http_only: false,
        secure,
        same_site: "Lax".into(),
    };
    let jar = CookieJar::from_cookies([
        c("a", "127.0.0.1", "/", false),
        c("b", "127.0.0.1", "/admin", false),
        c("s", "127.0.0.1", "/", true),
        c("o", "example.com", "/", false),
        c("d", ".example.com", "/", false),
    ]);
    let names = |u: &str| -> Vec<String> {
        jar.for_url(&url::Url::parse(u).unwrap())
            .into_iter()
            .map(|c| c.name)
            .collect()
    };
    assert_eq!(names("http://127.0.0.1:8000/"), ["a"]);
    assert_eq!(names("http://127.0.0.1:8000/admin/users"), ["b", "a"]);
    assert_eq!(names("http://127.0.0.1:8000/administrator"), ["a"]);
    assert_eq!(names("https://127.0.0.1/"), ["a", "s"]);
    assert_eq!(names("http://api.example.com/"), ["d"]);
    // Set-Cookie replaces, and Max-Age=0 removes.
    let url = url::Url::parse("http://127.0.0.1/login").unwrap();
    jar.add(parse_set_cookie("a=new; Path=/", &url).unwrap());
    let a: Vec<_> = jar
        .cookies()
        .into_iter()
        .filter(|c| c.name == "a")
        .collect();
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].value, "new");
    jar.add(parse_set_cookie("a=; Path=/; Max-Age=0", &url).unwrap());
    assert!(jar.cookies().iter().all(|c| c.name != "a"));
}

#[test]
fn a_storage_state_file_gives_its_cookies_and_a_bad_one_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("admin.json");
    std::fs::write(
        &path,
        r#"{"cookies":[{"name":"sessionid","value":"abc","domain":"127.0.0.1","path":"/","expires":-1,"httpOnly":true,"secure":false,"sameSite":"Lax"}],"origins":[]}"#,
    )
    .unwrap();
    let jar = CookieJar::from_storage_state(&path).unwrap();
    assert_eq!(jar.cookies()[0].name, "sessionid");
    std::fs::write(&path, r#"{"origins":[]}"#).unwrap();
    let err = CookieJar::from_storage_state(&path)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("admin.json") && err.contains("cookies"),
        "{err}"
    );
    let err = CookieJar::from_storage_state(dir.path().join("none.json"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("none.json") && err.contains("cannot read"),
        "{err}"
    );
}

#[test]
fn output_matchers_match_whole_part_or_pattern() {
    let m: OutputMatch = "hello".into();
    assert!(m.matches("hello\n"));
    assert!(!m.matches("hello world\n"));
    assert!(contains("lo wo").matches("hello world"));
    let r: OutputMatch = regex::Regex::new(r"^\d+ items$").unwrap().into();
    assert!(r.matches("3 items"));
    assert!(!r.matches("three items"));
    assert_eq!(contains("x").describe(), "contains(\"x\")");
}

/// A scenario with no step running, no page, a base URL and a jar of its own.
struct NoPage(String, CookieJar);

impl super::Host for NoPage {
    fn base_url(&self) -> String {
        self.0.clone()
    }
    fn step_key(&self) -> Option<std::path::PathBuf> {
        None
    }
    fn attach(
        &self,
        _: harshjudge_store::store::NewEvidence<'_>,
    ) -> Result<Option<std::path::PathBuf>, harshjudge_store::store::StoreError> {
        Ok(None)
    }
    fn pages(&self) -> Vec<harshjudge_browser::Page> {
        vec![]
    }
    fn cookie_jar(&self) -> Result<CookieJar, super::ApiError> {
        Ok(self.1.clone())
    }
}

/// A server on 127.0.0.1 that answers every request with `set-cookie: n=1`
/// (`n` counting from 1) and sends each request's head, lowercased, on the channel.
fn recording_server() -> (String, std::sync::mpsc::Receiver<String>) {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for (n, stream) in listener.incoming().flatten().enumerate() {
            let mut head = String::new();
            let mut reader = BufReader::new(&stream);
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                    break;
                }
                head.push_str(&line.to_ascii_lowercase());
            }
            let _ = tx.send(head);
            let _ = write!(
                &stream,
                "HTTP/1.1 200 OK\r\nset-cookie: n{}=1; Path=/\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{{}}",
                n + 1
            );
        }
    });
    (url, rx)
}

/// Issue 37.9: a context's default headers go with each request, a
/// request's own of a name replaces them; any string is a URL, a header, a
/// program or an argument.
#[tokio::test]
async fn a_context_s_defaults_go_with_each_request_and_its_own_replace_them() {
    let (url, heads) = recording_server();
    let host = std::sync::Arc::new(NoPage(url, CookieJar::new()));
    let api = super::ApiRequestContext::new(host.clone())
        .extra_http_headers([("X-Client", "suite"), ("x-trace", "default")])
        .extra_http_headers(vec![(String::from("x-more"), format!("{}", 2))])
        .bearer("first")
        .authorization(format!("Token {}", "tok-1"));
    let n = 1;
    api.get(format!("/items/{n}")).send().await.unwrap();
    let head = heads.recv().unwrap();
    assert!(head.starts_with("get /items/1 "), "{head}");
    for h in [
        "x-client: suite\r\n",
        "x-trace: default\r\n",
        "x-more: 2\r\n",
        "authorization: token tok-1\r\n",
    ] {
        assert!(head.contains(h), "{h:?} not in {head}");
    }
    assert_eq!(head.matches("authorization:").count(), 1, "{head}");
    let path = String::from("/items");
    api.post(&path)
        .header(String::from("X-Trace"), format!("own-{n}"))
        .header("x-trace", "second")
        .bearer("tok-2")
        .body(format!("n={n}"))
        .send()
        .await
        .unwrap();
    let head = heads.recv().unwrap();
    assert!(head.starts_with("post /items "), "{head}");
    assert!(
        head.contains("x-trace: own-1\r\n")
            && head.contains("x-trace: second\r\n")
            && !head.contains("x-trace: default"),
        "{head}"
    );
    assert!(
        head.contains("authorization: bearer tok-2\r\n")
            && head.matches("authorization:").count() == 1,
        "{head}"
    );
    assert!(head.contains("x-client: suite\r\n"), "{head}");
    // Every context of the scenario shares its jar: a cookie the first
    // response set goes with a new context's request.
    let fresh = super::ApiRequestContext::new(host);
    fresh.put(String::from("/x")).send().await.unwrap();
    let head = heads.recv().unwrap();
    assert!(head.contains("cookie: n1=1; n2=1\r\n"), "{head}");
    assert!(!head.contains("x-client"), "{head}");
    // A command takes any string as well.
    let out = super::CommandBuilder::new(
        std::sync::Arc::new(NoPage(String::new(), CookieJar::new())),
        format!("ec{}", "ho"),
    )
    .arg(String::from("-n"))
    .args(vec![format!("{{\"n\": {n}}}")])
    .stdin(&path)
    .run()
    .await
    .unwrap();
    let v: serde_json::Value = out.json().unwrap();
    assert_eq!(v, json!({"n": 1}));
    let err = out.json::<Vec<u8>>().unwrap_err().to_string();
    assert!(
        err.starts_with(
            "command echo -n \"{\\\"n\\\": 1}\": its stdout is not the JSON expected ("
        ) && err.ends_with("; stdout: {\"n\": 1}"),
        "{err}"
    );
}

#[tokio::test]
async fn a_relative_url_without_a_base_url_is_refused_naming_it() {
    let api =
        super::ApiRequestContext::new(std::sync::Arc::new(NoPage(String::new(), CookieJar::new())));
    let err = api.get("/api/items").send().await.unwrap_err();
    assert!(matches!(err, super::ApiError::NoBaseUrl { ref path } if path == "/api/items"));
    let msg = err.to_string();
    assert!(
        msg.contains("\"/api/items\"") && msg.contains("HARSHJUDGE_BASE_URL"),
        "{msg}"
    );
    let err = api.get("http://exa mple/").send().await.unwrap_err();
    assert!(err.to_string().contains("not a URL"), "{err}");
    let err = api
        .get("http://127.0.0.1:9/")
        .header("bad header", "v")
        .send()
        .await
        .unwrap_err();
    assert!(err.to_string().contains("(bad header)"), "{err}");
}

#[tokio::test]
async fn a_command_that_cannot_start_names_it_and_its_folder() {
    let host = std::sync::Arc::new(NoPage(String::new(), CookieJar::new()));
    let err = super::CommandBuilder::new(host, "pwd")
        .cwd("/no/such/dir-hj")
        .run()
        .await
        .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("command pwd: cannot start it in /no/such/dir-hj"),
        "{msg}"
    );
}
