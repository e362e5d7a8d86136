//! The HTTP judge: an OpenAI-compatible chat-completions endpoint
//! (`HARSHJUDGE_JUDGE_URL`, `HARSHJUDGE_JUDGE_MODEL`, `HARSHJUDGE_JUDGE_API_KEY`).
//! Hosted APIs (https) and local servers (http) alike; screenshots go as images.

use std::time::Duration;

use base64::Engine as _;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

use super::{
    AnswerInfo, Judge, JudgeError, JudgeInput, MAX_REPLY, Reply, TokenUsage, bound, parse_reply,
};

/// The most images sent with one step (the first ones in name order).
pub const MAX_IMAGES: usize = 6;
/// The largest image sent, in bytes; bigger screenshots are named, not sent.
pub const MAX_IMAGE_BYTES: u64 = 5 * 1024 * 1024;
/// How much of each text evidence file goes into the prompt, in bytes.
pub const MAX_TEXT_EXCERPT: usize = 4 * 1024;

/// What the judge is told before the step.
const SYSTEM: &str = "You are a harsh, careful judge of end-to-end test evidence. \
You get one step of a test: what it did, the expectation in words, the code's own outcome, \
and its evidence (screenshots before and after the step, console and network logs). \
Decide only from the evidence whether the expectation holds. Answer with one JSON object and nothing else: \
{\"verdict\": \"pass\" | \"fail\" | \"uncertain\", \"reasoning\": \"what you saw that decides it\"}. \
Say \"uncertain\" when the evidence does not show enough to decide.";

/// A chat-completions judge.
#[derive(Clone, Debug)]
pub struct HttpJudge {
    /// The API's base URL (`https://api.openai.com/v1`, `http://127.0.0.1:8080/v1`)
    /// or the full `…/chat/completions` URL.
    pub url: String,
    /// The model name sent in each request.
    pub model: String,
    /// Sent as `Authorization: Bearer …` when set; never written to disk.
    pub api_key: Option<String>,
    /// How long one attempt may take.
    pub timeout: Duration,
    /// Attempts after a failed one (network errors, 429, 5xx, answers that are
    /// not verdicts).
    pub retries: u32,
}

impl HttpJudge {
    /// The endpoint the requests go to.
    pub fn endpoint(&self) -> String {
        let base = self.url.trim_end_matches('/');
        if base.ends_with("/chat/completions") {
            base.to_string()
        } else {
            format!("{base}/chat/completions")
        }
    }

    /// The prompt as text (what `prompt.md` keeps), and the request body.
    pub fn request(&self, input: &JudgeInput) -> (String, serde_json::Value) {
        let mut text = String::new();
        text.push_str(&format!(
            "# Step {} of {}: {}\n\n## Expectation\n{}\n\n## The code's outcome\n{}",
            input.step_id, input.scenario, input.title, input.expectation, input.code.status
        ));
        if let Some(error) = &input.code.error {
            text.push_str(&format!(": {error}"));
        }
        text.push_str("\n\n## Evidence\n");
        let mut images = Vec::new();
        for e in &input.evidence {
            if e.kind == "image" {
                if images.len() < MAX_IMAGES
                    && e.bytes <= MAX_IMAGE_BYTES
                    && let Ok(bytes) = std::fs::read(&e.path)
                {
                    text.push_str(&format!(
                        "- {} (image {} below)\n",
                        e.name,
                        images.len() + 1
                    ));
                    images.push(base64::engine::general_purpose::STANDARD.encode(bytes));
                    continue;
                }
                text.push_str(&format!(
                    "- {} (image not sent: too many or too large)\n",
                    e.name
                ));
            } else {
                let body = std::fs::read(&e.path)
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_else(|err| format!("(unreadable: {err})"));
                text.push_str(&format!(
                    "- {}:\n```\n{}\n```\n",
                    e.name,
                    bound(body, MAX_TEXT_EXCERPT)
                ));
            }
        }
        let mut content = vec![serde_json::json!({"type": "text", "text": text})];
        for png in images {
            content.push(serde_json::json!({
                "type": "image_url",
                "image_url": {"url": format!("data:image/png;base64,{png}")}
            }));
        }
        let body = serde_json::json!({
            "model": self.model,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": content},
            ],
        });
        (format!("{SYSTEM}\n\n{text}"), body)
    }

    async fn attempt(&self, body: &[u8]) -> Result<String, JudgeError> {
        let endpoint = self.endpoint();
        let uri: hyper::Uri = endpoint.parse().map_err(|source| JudgeError::Url {
            endpoint: endpoint.clone(),
            source,
        })?;
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_webpki_roots()
            .https_or_http()
            .enable_http1()
            .build();
        let client = Client::builder(TokioExecutor::new()).build::<_, Full<Bytes>>(https);
        let mut req = hyper::Request::post(uri)
            .header("content-type", "application/json")
            .header("accept", "application/json");
        if let Some(key) = &self.api_key {
            req = req.header("authorization", format!("Bearer {key}"));
        }
        let req = req
            .body(Full::new(Bytes::copy_from_slice(body)))
            .map_err(|e| JudgeError::Transport {
                during: "POST",
                endpoint: endpoint.clone(),
                source: Box::new(e),
            })?;
        let call = async {
            let res = client
                .request(req)
                .await
                .map_err(|e| JudgeError::Transport {
                    during: "POST",
                    endpoint: endpoint.clone(),
                    source: Box::new(e),
                })?;
            let status = res.status();
            let limited = http_body_util::Limited::new(res.into_body(), MAX_REPLY);
            let bytes = limited
                .collect()
                .await
                .map_err(|e| JudgeError::Transport {
                    during: "reading the answer of",
                    endpoint: endpoint.clone(),
                    source: e,
                })?
                .to_bytes();
            let text = String::from_utf8_lossy(&bytes).into_owned();
            if !status.is_success() {
                return Err(JudgeError::Status {
                    endpoint: endpoint.clone(),
                    status: status.as_u16(),
                    body: bound(text, 500),
                });
            }
            Ok(text)
        };
        match tokio::time::timeout(self.timeout, call).await {
            Ok(result) => result,
            Err(_) => Err(JudgeError::Timeout(self.timeout)),
        }
    }
}

/// The assistant's message in a chat-completions answer (OpenAI's
/// `choices[0].message.content`, or Anthropic's `content[].text`), with what
/// the server said about it: the model and the token usage.
fn message_content(answer: &str) -> Result<(String, AnswerInfo), JudgeError> {
    let value: serde_json::Value = serde_json::from_str(answer)
        .map_err(|e| JudgeError::Malformed(format!("the endpoint's answer is not JSON ({e})")))?;
    let texts = |parts: &Vec<serde_json::Value>| {
        parts
            .iter()
            .filter_map(|p| p.get("text").and_then(|t| t.as_str()))
            .collect::<Vec<_>>()
            .join("")
    };
    let content = match (
        value.pointer("/choices/0/message/content"),
        value.get("content"),
    ) {
        (Some(serde_json::Value::String(s)), _) => s.clone(),
        (Some(serde_json::Value::Array(parts)), _) => texts(parts),
        (None, Some(serde_json::Value::Array(parts))) => texts(parts),
        _ => {
            return Err(JudgeError::Malformed(format!(
                "the endpoint's answer has no choices[0].message.content: {}",
                bound(answer.to_string(), 300)
            )));
        }
    };
    let info = AnswerInfo {
        model: value
            .get("model")
            .and_then(|m| m.as_str())
            .map(str::to_string),
        usage: value.get("usage").and_then(usage_of),
        ..AnswerInfo::default()
    };
    Ok((content, info))
}

/// Token usage in OpenAI's shape (`prompt_tokens`, `completion_tokens`,
/// `total_tokens`) or Anthropic's (`input_tokens`, `output_tokens`).
fn usage_of(usage: &serde_json::Value) -> Option<TokenUsage> {
    let n = |key: &str| usage.get(key).and_then(|v| v.as_u64());
    let input = n("prompt_tokens").or_else(|| n("input_tokens"));
    let output = n("completion_tokens").or_else(|| n("output_tokens"));
    if input.is_none() && output.is_none() {
        return None;
    }
    let (input, output) = (input.unwrap_or(0), output.unwrap_or(0));
    Some(TokenUsage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: n("total_tokens").unwrap_or(input + output),
    })
}

impl Judge for HttpJudge {
    fn kind(&self) -> &'static str {
        "http"
    }

    fn identity(&self) -> String {
        format!("http:{}@{}", self.model, self.endpoint())
    }

    fn judge<'a>(
        &'a self,
        input: &'a JudgeInput,
    ) -> futures_util::future::BoxFuture<'a, Result<Reply, JudgeError>> {
        Box::pin(async move {
            let (prompt, body) = self.request(input);
            let body = serde_json::to_vec(&body).map_err(JudgeError::Encode)?;
            let mut last = None;
            for attempt in 1..=self.retries.saturating_add(1) {
                if attempt > 1 {
                    tokio::time::sleep(Duration::from_millis(250 * u64::from(attempt - 1))).await;
                }
                let asked = std::time::Instant::now();
                let answer = match self.attempt(&body).await {
                    Ok(answer) => answer,
                    Err(e) => {
                        let retry = e.is_transient();
                        last = Some(e);
                        if retry {
                            continue;
                        }
                        break;
                    }
                };
                let latency_ms = asked.elapsed().as_millis() as u64;
                match message_content(&answer)
                    .and_then(|(c, info)| parse_reply(&c).map(|v| (c, info, v)))
                {
                    Ok((content, mut info, (verdict, reasoning))) => {
                        info.latency_ms = Some(latency_ms);
                        return Ok(Reply {
                            verdict,
                            reasoning,
                            prompt: Some(prompt),
                            response: Some(content),
                            attempts: attempt,
                            info,
                        });
                    }
                    Err(e) => last = Some(e),
                }
            }
            Err(last.expect("retries + 1 >= 1 attempt was made"))
        })
    }
}
