//! JSON-RPC 2.0 over the real stdio of `harshjudge-mcp`: every malformed
//! message gets the error the specification calls for, and the server keeps
//! serving afterwards.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_harshjudge-mcp");

#[test]
fn malformed_messages_get_their_json_rpc_errors_over_stdio() {
    let project = tempfile::tempdir().unwrap();
    let mut child = Command::new(BIN)
        .current_dir(project.path())
        .env("HARSHJUDGE_DASHBOARD", "off")
        .env("HARSHJUDGE_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let v: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout carries only JSON-RPC: {line:?}: {e}"));
            if tx.send(v).is_err() {
                break;
            }
        }
    });
    let mut send = |line: &str| {
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    };
    let next = || {
        rx.recv_timeout(Duration::from_secs(20))
            .expect("a reply within 20 s")
    };

    send(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "jsonrpc-test", "version": "1"}}})
        .to_string(),
    );
    assert_eq!(next()["id"], 1);
    send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);

    // Each malformed message, one at a time, and the error it must get.
    let cases: [(&str, Value, i64); 9] = [
        ("this is not json", Value::Null, -32700),
        (
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call""#,
            Value::Null,
            -32700,
        ),
        ("[1, 2]", Value::Null, -32600),
        (
            r#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#,
            json!(3),
            -32600,
        ),
        (
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":"x"}"#,
            json!(4),
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":5}}"#,
            json!(5),
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/call"}"#,
            json!(6),
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":"seven","method":"tools/call","params":{"name":"getStatus","arguments":[1]}}"#,
            json!("seven"),
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":8,"method":"no/such/method","params":{}}"#,
            json!(8),
            -32601,
        ),
    ];
    for (line, id, code) in cases {
        send(line);
        let reply = next();
        assert_eq!(reply["jsonrpc"], "2.0", "{line}: {reply}");
        assert_eq!(reply["id"], id, "{line}: {reply}");
        assert_eq!(reply["error"]["code"], code, "{line}: {reply}");
        assert!(
            reply["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{line}: {reply}"
        );
    }
    // A 1 MB line that is not JSON: a short answer.
    let big = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"{}",
        "x".repeat(1 << 20)
    );
    send(&big);
    let reply = next();
    assert_eq!(reply["error"]["code"], -32700);
    assert!(
        reply.to_string().len() < 2048,
        "{} bytes",
        reply.to_string().len()
    );

    // Still serving.
    send(
        r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"getStatus","arguments":{}}}"#,
    );
    let reply = next();
    assert_eq!(reply["id"], 10, "{reply}");
    assert_eq!(
        reply["result"]["isError"], true,
        "not initialized yet: {reply}"
    );
    send(r#"{"jsonrpc":"2.0","id":11,"method":"ping"}"#);
    assert_eq!(next()["id"], 11);

    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
}
