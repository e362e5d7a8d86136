//! Response bodies kept by the remote end, for a trace's images (D10 of
//! docs/design/trace.md): one `network.addDataCollector` per session, asked
//! for when a traced page opens (a collector keeps only the responses that
//! arrive after it), and `network.getData` by a request's id when a step's
//! trace is written. A remote end that refuses the collector (an older
//! Firefox, a driver without it) is asked once; its pages' images are then
//! not recorded, and the trace says why.

use super::Bidi;
use super::protocol::{AddDataCollector, BytesValue, Data, DataType, GetData};
use crate::backend::page_backend::NoBodies;
use crate::error::BrowserError;

/// The largest body the collector keeps (a trace keeps no resource over it).
pub(crate) const MAX_BODY: u64 = 8 << 20;

/// What asking for the session's collector gave.
#[derive(Clone, Debug)]
pub(crate) enum Collector {
    /// Its id.
    Added(String),
    /// The remote end's refusal.
    Refused(String),
}

impl Bidi {
    /// Adds the session's data collector of response bodies, once (a
    /// refusal is kept: not asked again).
    pub(crate) async fn collect_bodies(&self) {
        self.collector
            .get_or_init(|| async {
                let add = AddDataCollector {
                    data_types: vec![DataType::Response],
                    max_encoded_data_size: MAX_BODY,
                };
                match self.command(&add).await {
                    Ok(c) => Collector::Added(c.collector),
                    Err(e) => Collector::Refused(e.to_string()),
                }
            })
            .await;
    }

    /// Whether response bodies are kept (its collector was added).
    pub(crate) fn bodies(&self) -> Result<&str, NoBodies> {
        match self.collector.get() {
            Some(Collector::Added(id)) => Ok(id),
            Some(Collector::Refused(why)) => Err(NoBodies::Refused(why.clone())),
            None => Err(NoBodies::NotAsked),
        }
    }

    /// The body the collector kept of request `request`'s response.
    pub(crate) async fn response_body(&self, request: &str) -> Result<Vec<u8>, BrowserError> {
        use base64::Engine as _;
        let collector = self.bodies().map_err(|e| BrowserError::Command {
            action: "reading a response's body (WebDriver BiDi)".into(),
            message: e.to_string(),
        })?;
        let get = GetData {
            data_type: DataType::Response,
            collector,
            request,
        };
        let data: Data = self.command(&get).await?;
        match data.bytes {
            BytesValue::String { value } => Ok(value.into_bytes()),
            BytesValue::Base64 { value } => base64::engine::general_purpose::STANDARD
                .decode(value.as_bytes())
                .map_err(|e| BrowserError::Command {
                    action: "reading a response's body (network.getData)".into(),
                    message: format!("the bytes are not base64: {e}"),
                }),
        }
    }
}
