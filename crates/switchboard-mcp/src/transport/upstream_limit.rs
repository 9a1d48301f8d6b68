//! How many HTTP connections carry requests to one remote server at once.
//!
//! reqwest keeps a pool of connections per host but never bounds it: each request that finds
//! no idle connection opens one more, so 64 calls at once to one server opened hundreds of
//! connections over a minute. Every session to the same origin (scheme, host, port) shares one
//! semaphore here; a request holds a permit until its answer is read, for a streamed answer
//! until the stream ends, so at most that many connections are busy and the client's idle
//! pool (sized the same, see `manager::http_client`) hands them back to the next request.
//!
//! Only requests wait for a permit. A response or a notification to the server (an answer to
//! its elicitation, say) goes at once: the server's question may be holding a permit's stream
//! open while it waits for that very answer, and queueing the answer behind it would deadlock.
//! The long-lived GET stream of a session is one connection per session, outside the count.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use futures::StreamExt;
use futures::stream::BoxStream;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The semaphores of the origins in use; one is dropped with the last session that used it.
#[derive(Debug)]
pub(crate) struct UpstreamLimits {
    per_upstream: usize,
    semaphores: Mutex<HashMap<String, Weak<Semaphore>>>,
}

impl UpstreamLimits {
    /// `per_upstream` of 0 is read as 1: no request could be sent at all.
    pub(crate) fn new(per_upstream: usize) -> Self {
        Self {
            per_upstream: per_upstream.max(1),
            semaphores: Mutex::new(HashMap::new()),
        }
    }

    /// The connections a session to `url` shares with every other session to its origin.
    pub(crate) fn for_url(&self, url: &str) -> UpstreamLimit {
        let origin = url::Url::parse(url).map_or_else(
            |_| url.to_owned(),
            |parsed| parsed.origin().ascii_serialization(),
        );
        let mut semaphores = self
            .semaphores
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(shared) = semaphores.get(&origin).and_then(Weak::upgrade) {
            return UpstreamLimit(shared);
        }
        // Forgets the origins no session uses any more, so the map stays as small as the
        // number of servers connected.
        semaphores.retain(|_, semaphore| semaphore.strong_count() > 0);
        let semaphore = Arc::new(Semaphore::new(self.per_upstream));
        semaphores.insert(origin, Arc::downgrade(&semaphore));
        UpstreamLimit(semaphore)
    }
}

/// One origin's share of connections.
#[derive(Debug, Clone)]
pub(crate) struct UpstreamLimit(Arc<Semaphore>);

impl UpstreamLimit {
    /// Waits for a connection to be free. The semaphore is never closed, so this cannot fail;
    /// were it closed, the request goes on unlimited rather than not at all.
    pub(crate) async fn acquire(&self) -> Option<OwnedSemaphorePermit> {
        Arc::clone(&self.0).acquire_owned().await.ok()
    }

    #[cfg(test)]
    fn available(&self) -> usize {
        self.0.available_permits()
    }
}

/// `stream` holding `permit` until it ends or is dropped.
pub(crate) fn holding<T: Send + 'static>(
    stream: BoxStream<'static, T>,
    permit: Option<OwnedSemaphorePermit>,
) -> BoxStream<'static, T> {
    let Some(permit) = permit else {
        return stream;
    };
    let mut permit = Some(permit);
    stream
        .chain(futures::stream::poll_fn(move |_| {
            // The end of the stream gives the connection back before the stream is dropped.
            permit.take();
            std::task::Poll::Ready(None)
        }))
        .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn sessions_to_one_origin_share_its_connections() {
        let limits = UpstreamLimits::new(2);
        let a = limits.for_url("http://example.test:8080/mcp");
        let b = limits.for_url("http://example.test:8080/other?x=1");
        let elsewhere = limits.for_url("http://example.test:9090/mcp");
        let _held = a.acquire().await;
        assert_eq!(b.available(), 1);
        assert_eq!(elsewhere.available(), 2);
    }

    #[tokio::test]
    async fn an_origin_no_session_uses_is_forgotten() {
        let limits = UpstreamLimits::new(1);
        drop(limits.for_url("http://a.test/"));
        let _b = limits.for_url("http://b.test/");
        assert_eq!(limits.semaphores.lock().unwrap().len(), 1);
    }

    #[tokio::test]
    async fn a_stream_holds_its_permit_until_it_ends() {
        let limits = UpstreamLimits::new(1);
        let limit = limits.for_url("http://a.test/");
        let stream = futures::stream::iter([1, 2]).boxed();
        let mut held = holding(stream, limit.acquire().await);
        assert_eq!(held.next().await, Some(1));
        assert_eq!(limit.available(), 0);
        assert_eq!(held.next().await, Some(2));
        assert_eq!(held.next().await, None);
        assert_eq!(
            limit.available(),
            1,
            "given back at the end, before the drop"
        );
        drop(held);

        let dropped = holding(
            futures::stream::pending::<i32>().boxed(),
            limit.acquire().await,
        );
        assert_eq!(limit.available(), 0);
        drop(dropped);
        assert_eq!(limit.available(), 1);
    }

    #[test]
    fn zero_is_read_as_one() {
        assert_eq!(UpstreamLimits::new(0).per_upstream, 1);
    }
}
