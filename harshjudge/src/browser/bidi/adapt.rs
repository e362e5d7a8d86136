//! BiDi's events in the protocol-neutral vocabulary the backends share: a
//! navigation event as a [`Lifecycle`] event (with the bookkeeping of the
//! navigations under way it implies).

use std::collections::HashMap;

use super::Bidi;
use super::protocol_events::BidiEvent;
use crate::browser::lifecycle::Lifecycle;

impl Bidi {
    /// What a navigation event says of its context: the navigation under
    /// way noted (started) or forgotten (its document loaded, or no document
    /// to come), and the news for the calls and reads that wait on it.
    pub(super) fn navigation_news(&self, event: &BidiEvent) -> Option<Lifecycle> {
        use BidiEvent as E;
        let (context, navigation, url) = match event {
            E::NavigationStarted(n)
            | E::DomContentLoaded(n)
            | E::Load(n)
            | E::ContextDestroyed(n)
            | E::FragmentNavigated(n)
            | E::NavigationCommitted(n)
            | E::NavigationAborted(n)
            | E::NavigationFailed(n) => (&n.context, &n.navigation, &n.url),
            E::DownloadWillBegin(d) => (&d.context, &d.navigation, &d.url),
            // A request that is no document's.
            E::FetchError(f) if f.navigation.as_deref().is_none_or(str::is_empty) => return None,
            E::FetchError(f) => (&f.context, &f.navigation, &String::new()),
            _ => return None,
        };
        let (context, url) = (context.clone(), url.clone());
        let navigation = navigation.clone().unwrap_or_default();
        {
            let mut loaded = self.loaded.lock().expect("bidi lock");
            match event {
                E::Load(_) => {
                    loaded.insert(context.clone());
                }
                E::NavigationStarted(_) | E::ContextDestroyed(_) => {
                    loaded.remove(&context);
                }
                _ => {}
            }
        }
        let mut navigating = self.navigating.lock().expect("bidi lock");
        let end = |navigating: &mut HashMap<String, String>| {
            if navigating.get(&context) == Some(&navigation) {
                navigating.remove(&context);
            }
        };
        match event {
            E::NavigationStarted(_) => {
                navigating.insert(context.clone(), navigation.clone());
                Some(Lifecycle::Started {
                    context,
                    navigation,
                    url,
                })
            }
            E::DomContentLoaded(_) | E::Load(_) => {
                end(&mut navigating);
                Some(Lifecycle::Loaded {
                    context,
                    navigation,
                    url,
                })
            }
            E::ContextDestroyed(_) => {
                navigating.remove(&context);
                Some(Lifecycle::Destroyed(context))
            }
            // The same document: whatever was under way in it is over.
            E::FragmentNavigated(_) => {
                navigating.remove(&context);
                Some(Lifecycle::Ended(context, navigation))
            }
            E::NavigationCommitted(_) => Some(Lifecycle::Committed {
                context,
                navigation,
                url,
            }),
            E::NavigationAborted(_) | E::NavigationFailed(_) => {
                end(&mut navigating);
                Some(Lifecycle::Cancelled(context, navigation))
            }
            E::DownloadWillBegin(_) | E::FetchError(_) => {
                end(&mut navigating);
                Some(Lifecycle::Ended(context, navigation))
            }
            _ => None,
        }
    }
}
