//! What both WebDriver backends ([`super::bidi`], [`super::classic`])
//! share: the drivers that serve their sessions ([`driver`]: chromedriver,
//! geckodriver, WebKitWebDriver under Xvfb), and a download saved into a
//! folder of this process, polled until complete ([`wait_for_file`]).

mod downloads;
pub(crate) mod driver;
pub(crate) mod pool;
pub(crate) mod reuse;
pub(crate) mod session;

pub(crate) use downloads::wait_for_file;
