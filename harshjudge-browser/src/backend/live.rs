//! [`Live`]: the count of a [`crate::Browsers`]' live sessions, CDP's
//! and WebDriver's alike.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One live session of a [`crate::Browsers`] (being opened, in use or
/// pooled), counted in its owner's count from before its driver is asked for
/// until it drops: the owner's local chromedriver is stopped by
/// [`crate::Browsers::shutdown`] only when none is left outside the pool, so
/// that its shutdown never pulls the driver from under a page it handed out.
pub(crate) struct Live(Arc<AtomicUsize>);

impl Live {
    pub(crate) fn new(count: &Arc<AtomicUsize>) -> Live {
        count.fetch_add(1, Ordering::SeqCst);
        Live(count.clone())
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}
