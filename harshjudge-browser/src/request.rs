//! The requests a page sent and the responses it received, in no
//! protocol's words: [`Request`] (a route's, a `wait_for_request`'s) and
//! [`ResponseInfo`] (a `wait_for_response`'s).

/// A request as the page sent it.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub(crate) id: String,
    pub(crate) url: String,
    pub(crate) method: String,
    pub(crate) headers: Vec<(String, String)>,
}

impl Request {
    /// The URL requested.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// GET, POST, …
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The request's headers, in order.
    pub fn headers(&self) -> &[(String, String)] {
        &self.headers
    }

    /// A header's value (name compared without case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// A response the page received (`page.wait_for_response`).
#[derive(Clone, Debug, PartialEq)]
pub struct ResponseInfo {
    pub(crate) url: String,
    pub(crate) status: u16,
    pub(crate) status_text: String,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) request: Request,
}

impl ResponseInfo {
    /// The URL answered.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The HTTP status.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The reason phrase, as the server sent it.
    pub fn status_text(&self) -> &str {
        &self.status_text
    }

    /// Whether the status is 2xx.
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The response's headers, in order.
    pub fn headers(&self) -> &[(String, String)] {
        &self.headers
    }

    /// The request it answers.
    pub fn request(&self) -> &Request {
        &self.request
    }
}
