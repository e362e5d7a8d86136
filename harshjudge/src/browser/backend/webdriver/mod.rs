//! What both WebDriver backends ([`super::bidi`], [`super::classic`])
//! share: a download saved into a folder of this process, polled until
//! complete ([`wait_for_file`]).

mod downloads;

pub(crate) use downloads::wait_for_file;
