use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::*;

fn input(dir: &Path) -> JudgeInput {
    std::fs::write(dir.join("after.png"), b"\x89PNG fake after").unwrap();
    std::fs::write(
        dir.join("console.json"),
        br#"[{"level":"log","text":"paid 12.50"}]"#,
    )
    .unwrap();
    JudgeInput {
        run_id: "r1".into(),
        scenario: "checkout".into(),
        step_id: "02".into(),
        title: "Pay with the saved card".into(),
        expectation: "a receipt with the total is shown".into(),
        code: CodeOutcome {
            status: "pass".into(),
            error: None,
        },
        evidence: vec![
            EvidenceInput::read("after.png", dir.join("after.png")).unwrap(),
            EvidenceInput::read("console.json", dir.join("console.json")).unwrap(),
        ],
    }
}

#[test]
fn replies_are_read_from_json_fences_and_prose() {
    let (v, r) = parse_reply(r#"{"verdict":"pass","reasoning":"receipt shows 12.50"}"#).unwrap();
    assert_eq!((v, r.as_str()), (Verdict::Pass, "receipt shows 12.50"));
    let (v, _) = parse_reply(
        "Here it is:\n```json\n{\"verdict\": \"FAIL\", \"reasoning\": \"no receipt\"}\n```",
    )
    .unwrap();
    assert_eq!(v, Verdict::Fail);
    let (v, r) = parse_reply(r#"{"verdict":" uncertain "}"#).unwrap();
    assert_eq!((v, r.as_str()), (Verdict::Uncertain, ""));
    for bad in [
        "",
        "pass",
        r#"{"verdict":"maybe"}"#,
        r#"{"verdict":1}"#,
        r#"{"reasoning":"x"}"#,
        "{not json}",
    ] {
        let err = parse_reply(bad).unwrap_err().to_string();
        assert!(err.contains("not a verdict"), "{bad:?}: {err}");
    }
    let long = format!(
        r#"{{"verdict":"pass","reasoning":"{}"}}"#,
        "é".repeat(MAX_REASONING)
    );
    let (_, r) = parse_reply(&long).unwrap();
    assert!(
        r.len() <= MAX_REASONING + 20 && r.ends_with("[cut]"),
        "{}",
        r.len()
    );
}

#[test]
fn uncertain_counts_as_failed_unless_told() {
    assert!(Verdict::Pass.passes(false));
    assert!(!Verdict::Fail.passes(true));
    assert!(!Verdict::Uncertain.passes(false));
    assert!(Verdict::Uncertain.passes(true));
}

#[test]
fn the_inputs_hash_changes_with_every_input_and_only_then() {
    let dir = tempfile::tempdir().unwrap();
    let a = input(dir.path());
    let base = inputs_hash(&a, "command:judge.sh");
    let mut reordered = a.clone();
    reordered.evidence.reverse();
    assert_eq!(inputs_hash(&reordered, "command:judge.sh"), base);
    assert_ne!(inputs_hash(&a, "command:other.sh"), base);
    let mut b = a.clone();
    b.expectation.push('!');
    assert_ne!(inputs_hash(&b, "command:judge.sh"), base);
    let mut c = a.clone();
    c.code.status = "fail".into();
    assert_ne!(inputs_hash(&c, "command:judge.sh"), base);
    std::fs::write(dir.path().join("after.png"), b"\x89PNG another").unwrap();
    let mut d = a.clone();
    d.evidence[0] = EvidenceInput::read("after.png", dir.path().join("after.png")).unwrap();
    assert_ne!(inputs_hash(&d, "command:judge.sh"), base);
    assert!(base.starts_with("sha256:") && base.len() == 7 + 64);
}

fn command(cmd: &str, timeout_ms: u64, retries: u32) -> CommandJudge {
    CommandJudge {
        command: cmd.into(),
        timeout: Duration::from_millis(timeout_ms),
        retries,
    }
}

#[tokio::test]
async fn the_command_judge_reads_stdin_and_answers() {
    let dir = tempfile::tempdir().unwrap();
    let a = input(dir.path());
    // A real script: passes when the expectation and the console say so.
    let script = dir.path().join("judge.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\ndoc=$(cat)\ncase \"$doc\" in *'a receipt'*'console.json'*) echo '{\"verdict\":\"pass\",\"reasoning\":\"saw it\"}';; *) echo '{\"verdict\":\"fail\",\"reasoning\":\"missing\"}';; esac\n",
    )
    .unwrap();
    let judge = command(&format!("sh {}", script.display()), 10_000, 0);
    let reply = judge.judge(&a).await.unwrap();
    assert_eq!(
        (reply.verdict, reply.reasoning.as_str(), reply.attempts),
        (Verdict::Pass, "saw it", 1)
    );
    assert!(
        reply
            .prompt
            .unwrap()
            .contains("\"expectation\": \"a receipt with the total is shown\"")
    );
    let mut other = a.clone();
    other.expectation = "an error is shown".into();
    assert_eq!(judge.judge(&other).await.unwrap().verdict, Verdict::Fail);
    let reply = command(
        "cat >/dev/null; echo '{\"verdict\":\"uncertain\",\"reasoning\":\"blurry\"}'",
        10_000,
        0,
    )
    .judge(&a)
    .await
    .unwrap();
    assert_eq!(reply.verdict, Verdict::Uncertain);
    // A judge that never reads its stdin still answers.
    let reply = command("echo '{\"verdict\":\"pass\"}'", 10_000, 0)
        .judge(&a)
        .await
        .unwrap();
    assert_eq!(reply.verdict, Verdict::Pass);
}

#[tokio::test]
async fn the_command_judge_names_malformed_answers_crashes_and_timeouts() {
    let dir = tempfile::tempdir().unwrap();
    let a = input(dir.path());
    let err = command("echo looks good to me", 10_000, 0)
        .judge(&a)
        .await
        .unwrap_err();
    assert!(matches!(err, JudgeError::Malformed(_)), "{err}");
    assert!(err.to_string().contains("looks good to me"), "{err}");
    let err = command("echo boom >&2; exit 3", 10_000, 0)
        .judge(&a)
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("exit status: 3") && err.to_string().contains("boom"),
        "{err}"
    );
    let started = std::time::Instant::now();
    let err = command("sleep 30", 300, 0).judge(&a).await.unwrap_err();
    assert!(matches!(err, JudgeError::Timeout(_)), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let err = command("head -c 2000000 /dev/zero | tr '\\0' x", 10_000, 0)
        .judge(&a)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("more than"), "{err}");
}

#[tokio::test]
async fn the_command_judge_retries_until_an_answer() {
    let dir = tempfile::tempdir().unwrap();
    let a = input(dir.path());
    let marker = dir.path().join("tried");
    let cmd = format!(
        "if [ -e {m} ]; then echo '{{\"verdict\":\"pass\"}}'; else touch {m}; exit 1; fi",
        m = marker.display()
    );
    let reply = command(&cmd, 10_000, 2).judge(&a).await.unwrap();
    assert_eq!((reply.verdict, reply.attempts), (Verdict::Pass, 2));
    std::fs::remove_file(&marker).unwrap();
    assert!(command(&cmd, 10_000, 0).judge(&a).await.is_err());
}

/// A local server speaking the chat-completions wire format (not a model): it
/// records each request and answers with the next canned reply.
async fn chat_server(replies: Vec<(u16, String)>) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        for (status, body) in replies {
            let (mut sock, _) = listener.accept().await.unwrap();
            let mut buf = Vec::new();
            let mut chunk = [0u8; 65536];
            loop {
                let n = sock.read(&mut chunk).await.unwrap();
                if n == 0 {
                    break;
                }
                buf.extend_from_slice(&chunk[..n]);
                let text = String::from_utf8_lossy(&buf).to_string();
                if let Some(end) = text.find("\r\n\r\n") {
                    let len = text[..end]
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().parse::<usize>().unwrap())
                        })
                        .unwrap_or(0);
                    if buf.len() >= end + 4 + len {
                        break;
                    }
                }
            }
            log.lock()
                .unwrap()
                .push(String::from_utf8_lossy(&buf).into_owned());
            let answer = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            sock.write_all(answer.as_bytes()).await.unwrap();
            sock.shutdown().await.ok();
        }
    });
    (format!("http://{addr}/v1"), seen)
}

fn completion(content: &str) -> String {
    serde_json::json!({"choices": [{"message": {"role": "assistant", "content": content}}]})
        .to_string()
}

#[tokio::test]
async fn the_http_judge_speaks_chat_completions_with_images() {
    let dir = tempfile::tempdir().unwrap();
    let a = input(dir.path());
    let (url, seen) = chat_server(vec![
        (503, "{\"error\":\"busy\"}".into()),
        (
            200,
            completion("```json\n{\"verdict\":\"pass\",\"reasoning\":\"receipt 12.50\"}\n```"),
        ),
    ])
    .await;
    let judge = HttpJudge {
        url,
        model: "judge-model".into(),
        api_key: Some("sk-test".into()),
        timeout: Duration::from_secs(10),
        retries: 1,
    };
    let reply = judge.judge(&a).await.unwrap();
    assert_eq!(
        (reply.verdict, reply.reasoning.as_str(), reply.attempts),
        (Verdict::Pass, "receipt 12.50", 2)
    );
    let prompt = reply.prompt.unwrap();
    assert!(
        prompt.contains("a receipt with the total is shown") && prompt.contains("paid 12.50"),
        "{prompt}"
    );
    assert!(
        !prompt.contains("base64"),
        "the prompt file names images, it does not inline them"
    );
    let requests = seen.lock().unwrap().clone();
    assert_eq!(requests.len(), 2);
    let req = &requests[1];
    assert!(
        req.starts_with("POST /v1/chat/completions HTTP/1.1"),
        "{req}"
    );
    assert!(
        req.to_ascii_lowercase()
            .contains("authorization: bearer sk-test"),
        "{req}"
    );
    let body: serde_json::Value =
        serde_json::from_str(&req[req.find("\r\n\r\n").unwrap() + 4..]).unwrap();
    assert_eq!(body["model"], "judge-model");
    let parts = body["messages"][1]["content"].as_array().unwrap();
    assert!(
        parts[1]["image_url"]["url"]
            .as_str()
            .unwrap()
            .starts_with("data:image/png;base64,")
    );
    assert_eq!(
        judge.identity(),
        format!("http:judge-model@{}", judge.endpoint())
    );
}

#[tokio::test]
async fn the_http_judge_names_what_went_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let a = input(dir.path());
    let (url, _) = chat_server(vec![(401, "{\"error\":\"bad key\"}".into())]).await;
    let judge = HttpJudge {
        url,
        model: "m".into(),
        api_key: None,
        timeout: Duration::from_secs(5),
        retries: 3,
    };
    let err = judge.judge(&a).await.unwrap_err().to_string();
    assert!(err.contains("401") && err.contains("bad key"), "{err}");
    let (url, _) = chat_server(vec![(200, completion("I think it passed"))]).await;
    let judge = HttpJudge {
        url,
        model: "m".into(),
        api_key: None,
        timeout: Duration::from_secs(5),
        retries: 0,
    };
    let err = judge.judge(&a).await.unwrap_err().to_string();
    assert!(err.contains("not a verdict"), "{err}");
    let judge = HttpJudge {
        url: "http://127.0.0.1:1/v1".into(),
        model: "m".into(),
        api_key: None,
        timeout: Duration::from_secs(5),
        retries: 0,
    };
    let err = judge.judge(&a).await.unwrap_err().to_string();
    assert!(
        err.contains("POST http://127.0.0.1:1/v1/chat/completions"),
        "{err}"
    );
}

#[tokio::test]
async fn a_caller_matches_on_why_the_http_judge_failed() {
    let dir = tempfile::tempdir().unwrap();
    let a = input(dir.path());
    let judge = |url: String| HttpJudge {
        url,
        model: "m".into(),
        api_key: None,
        timeout: Duration::from_secs(5),
        retries: 0,
    };
    let (url, _) = chat_server(vec![(401, "{\"error\":\"bad key\"}".into())]).await;
    match judge(url).judge(&a).await.unwrap_err() {
        e @ JudgeError::Status { status: 401, .. } => assert!(!e.is_transient()),
        other => panic!("expected Status 401, got {other:?}"),
    }
    let (url, _) = chat_server(vec![(503, "{}".into())]).await;
    match judge(url).judge(&a).await.unwrap_err() {
        e @ JudgeError::Status { status: 503, .. } => assert!(e.is_transient()),
        other => panic!("expected Status 503, got {other:?}"),
    }
    match judge("http://127.0.0.1:1/v1".into())
        .judge(&a)
        .await
        .unwrap_err()
    {
        e @ JudgeError::Transport { .. } => {
            assert!(e.is_transient());
            assert!(std::error::Error::source(&e).is_some(), "the cause is kept");
        }
        other => panic!("expected Transport, got {other:?}"),
    }
    match judge("http://a b/".into()).judge(&a).await.unwrap_err() {
        JudgeError::Url { endpoint, .. } => assert_eq!(endpoint, "http://a b/chat/completions"),
        other => panic!("expected Url, got {other:?}"),
    }
}

#[tokio::test]
async fn a_step_is_judged_once_until_its_inputs_change() {
    use crate::store::{
        EvidenceName, NewEvidence, RunId, Slug, StepId, StepResult, StepStatus, Store,
    };
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().join(".harshJudge"));
    store.init_project("p", "http://127.0.0.1").unwrap();
    let (slug, run, step) = (
        Slug::new("checkout").unwrap(),
        RunId::new("r1").unwrap(),
        StepId::new("01").unwrap(),
    );
    let shot = EvidenceName::new("after").unwrap();
    store
        .scenario(&slug)
        .run(&run)
        .write_evidence(
            &step,
            NewEvidence {
                name: &shot,
                ext: "png",
                kind: "screenshot",
                bytes: b"\x89PNG one",
            },
            Default::default(),
        )
        .unwrap();
    let result = StepResult {
        id: "01".into(),
        status: StepStatus::Pass,
        duration: 1,
        error: None,
        evidence_files: vec!["after.png".into()],
        summary: None,
        title: Some("Pay".into()),
        error_location: None,
        expectation: None,
        executed_status: None,
        verdict: None,
    };
    let calls = dir.path().join("calls");
    let judge = command(
        &format!(
            "cat >/dev/null; echo x >> {}; echo '{{\"verdict\":\"pass\",\"reasoning\":\"ok\"}}'",
            calls.display()
        ),
        10_000,
        0,
    );
    let count = || {
        std::fs::read_to_string(&calls)
            .map(|s| s.lines().count())
            .unwrap_or(0)
    };
    let input = step_input(&store, &slug, &run, &result, "Pay", "a receipt").unwrap();
    assert_eq!(input.evidence.len(), 1, "sidecars are not evidence");
    assert!(matches!(
        judge_step(&store, &slug, &run, &input, &judge, false)
            .await
            .unwrap(),
        Judged::Made(_)
    ));
    assert!(matches!(
        judge_step(&store, &slug, &run, &input, &judge, false)
            .await
            .unwrap(),
        Judged::Reused(_)
    ));
    assert_eq!(count(), 1);
    // New evidence (the execution re-ran): judged again.
    store
        .scenario(&slug)
        .run(&run)
        .write_evidence(
            &step,
            NewEvidence {
                name: &shot,
                ext: "png",
                kind: "screenshot",
                bytes: b"\x89PNG two",
            },
            Default::default(),
        )
        .unwrap();
    let input = step_input(&store, &slug, &run, &result, "Pay", "a receipt").unwrap();
    assert!(matches!(
        judge_step(&store, &slug, &run, &input, &judge, false)
            .await
            .unwrap(),
        Judged::Made(_)
    ));
    assert!(matches!(
        judge_step(&store, &slug, &run, &input, &judge, true)
            .await
            .unwrap(),
        Judged::Made(_)
    ));
    assert_eq!(count(), 3);
    // A judge that fails leaves a judgment without a verdict, re-made next time.
    let broken = command("exit 7", 10_000, 0);
    let made = judge_step(&store, &slug, &run, &input, &broken, false)
        .await
        .unwrap();
    assert_eq!(made.judgment().verdict, None);
    assert!(
        made.judgment()
            .error
            .as_deref()
            .unwrap()
            .contains("exit status: 7")
    );
    assert!(matches!(
        judge_step(&store, &slug, &run, &input, &broken, false)
            .await
            .unwrap(),
        Judged::Made(_)
    ));
    let recorded = store.scenario(&slug).run(&run).judgment().unwrap().unwrap();
    assert_eq!(recorded.steps.len(), 1);
    assert!(recorded.steps[0].inputs_hash.starts_with("sha256:"));
}

fn http(url: String) -> HttpJudge {
    HttpJudge {
        url,
        model: "asked-model".into(),
        api_key: None,
        timeout: Duration::from_secs(10),
        retries: 0,
    }
}

#[tokio::test]
async fn the_http_judge_records_the_model_tokens_and_latency_the_server_returns() {
    let dir = tempfile::tempdir().unwrap();
    let a = input(dir.path());
    let verdict = "{\"verdict\":\"pass\",\"reasoning\":\"receipt\"}";
    let openai = serde_json::json!({
        "model": "gpt-4o-mini-2024-07-18",
        "choices": [{"message": {"role": "assistant", "content": verdict}}],
        "usage": {"prompt_tokens": 812, "completion_tokens": 23, "total_tokens": 835},
    });
    let anthropic = serde_json::json!({
        "model": "claude-3-5-haiku-20241022",
        "type": "message",
        "content": [{"type": "text", "text": verdict}],
        "usage": {"input_tokens": 700, "output_tokens": 31},
    });
    let (url, _) = chat_server(vec![
        (200, openai.to_string()),
        (200, anthropic.to_string()),
        (200, completion(verdict)),
    ])
    .await;
    let judge = http(url);
    let reply = judge.judge(&a).await.unwrap();
    assert_eq!(reply.info.model.as_deref(), Some("gpt-4o-mini-2024-07-18"));
    assert_eq!(
        reply.info.usage,
        Some(TokenUsage {
            input_tokens: 812,
            output_tokens: 23,
            total_tokens: 835
        })
    );
    assert!(reply.info.latency_ms.is_some());
    let reply = judge.judge(&a).await.unwrap();
    assert_eq!(reply.verdict, Verdict::Pass);
    assert_eq!(
        reply.info.model.as_deref(),
        Some("claude-3-5-haiku-20241022")
    );
    assert_eq!(
        reply.info.usage,
        Some(TokenUsage {
            input_tokens: 700,
            output_tokens: 31,
            total_tokens: 731
        })
    );
    // A server that says nothing about them: nothing is made up.
    let reply = judge.judge(&a).await.unwrap();
    assert_eq!((reply.info.model, reply.info.usage), (None, None));
    assert!(reply.info.latency_ms.is_some());
}

fn said(verdict: &str, why: &str, tokens: u64) -> (u16, String) {
    let content = serde_json::json!({"verdict": verdict, "reasoning": why}).to_string();
    (
        200,
        serde_json::json!({
            "model": "m1",
            "choices": [{"message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": tokens, "completion_tokens": 1},
        })
        .to_string(),
    )
}

#[tokio::test]
async fn votes_ask_again_after_fail_or_uncertain_and_keep_the_majority() {
    let dir = tempfile::tempdir().unwrap();
    let a = input(dir.path());
    let voting = |url: String| Voting {
        inner: Arc::new(http(url)),
        votes: 3,
    };
    // fail, pass, pass: asked three times, pass by majority, every answer kept.
    let (url, seen) = chat_server(vec![
        said("fail", "no receipt", 10),
        said("pass", "receipt 12.50", 20),
        said("pass", "the total shows", 30),
    ])
    .await;
    let reply = voting(url).judge(&a).await.unwrap();
    assert_eq!(reply.verdict, Verdict::Pass);
    assert_eq!(seen.lock().unwrap().len(), 3);
    let verdicts: Vec<_> = reply.info.votes.iter().map(|v| v.verdict).collect();
    assert_eq!(
        verdicts,
        [
            Some(Verdict::Fail),
            Some(Verdict::Pass),
            Some(Verdict::Pass)
        ]
    );
    assert_eq!(reply.info.votes[0].reasoning, "no receipt");
    assert_eq!(reply.info.usage.unwrap().input_tokens, 60);
    assert!(
        reply.reasoning.starts_with("pass by 2 of 3 answers"),
        "{}",
        reply.reasoning
    );
    // pass first: asked once.
    let (url, seen) = chat_server(vec![said("pass", "fine", 1), said("fail", "x", 1)]).await;
    let reply = voting(url).judge(&a).await.unwrap();
    assert_eq!(
        (reply.verdict, seen.lock().unwrap().len()),
        (Verdict::Pass, 1)
    );
    // fail, fail: the majority is reached at the second answer.
    let (url, seen) = chat_server(vec![
        said("fail", "declined", 1),
        said("fail", "declined again", 1),
        said("pass", "never asked", 1),
    ])
    .await;
    let reply = voting(url).judge(&a).await.unwrap();
    assert_eq!(
        (reply.verdict, seen.lock().unwrap().len()),
        (Verdict::Fail, 2)
    );
    // fail, pass, uncertain: no majority, uncertain.
    let (url, _) = chat_server(vec![
        said("fail", "a", 1),
        said("pass", "b", 1),
        said("uncertain", "c", 1),
    ])
    .await;
    let reply = voting(url).judge(&a).await.unwrap();
    assert_eq!(reply.verdict, Verdict::Uncertain);
    assert_eq!(reply.info.votes.len(), 3);
}
