//! The preview's connections: HTTP/1.1 on its socket, with limits no slow or stalled
//! client outlasts.
//!
//! - A request's headers must arrive within the header timeout (hyper's own timer); it
//!   also closes a kept-alive connection that waits that long for its next request.
//! - A connection on which no byte moves either way for the idle timeout is closed (a
//!   client that stopped reading a download, say).
//! - On stop, idle connections close at once and busy ones get a short grace; then every
//!   connection is dropped, so a half-sent request never holds the server open.
//!
//! axum's own `serve` offers none of the three; its handlers are used as they are.

use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio::time::{Instant, Sleep};

use super::http::{App, handle};

/// How long busy connections may go on after the server is told to stop.
const GRACE: Duration = Duration::from_millis(500);

/// The time limits of a connection.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    pub(super) header: Duration,
    pub(super) idle: Duration,
}

/// Accepts and serves connections until `closing` turns true, then closes them all
/// within `GRACE`.
pub(super) async fn serve(
    listener: TcpListener,
    app: Arc<App>,
    limits: Limits,
    mut closing: watch::Receiver<bool>,
) {
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header);
    let mut connections = JoinSet::new();
    loop {
        let stream = tokio::select! {
            _ = closing.wait_for(|closed| *closed) => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => continue,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(_) => {
                    // Out of file descriptors, say: wait for some to close.
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
        };
        let Ok(reached) = stream.local_addr().map(|a| a.ip()) else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        let service = service_fn(move |request| {
            let app = app.clone();
            async move { Ok::<_, Infallible>(handle(app, request, reached).await) }
        });
        let connection =
            http.serve_connection(TokioIo::new(Idle::new(stream, limits.idle)), service);
        let mut closing = closing.clone();
        connections.spawn(async move {
            tokio::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => return,
                _ = closing.wait_for(|closed| *closed) => {}
            }
            // Ends an idle connection now, a busy one after its response.
            connection.as_mut().graceful_shutdown();
            let _ = connection.await;
        });
    }
    let all_closed = async { while connections.join_next().await.is_some() {} };
    let _ = tokio::time::timeout(GRACE, all_closed).await;
    // What is left (a request that never finished arriving) is dropped with the set.
}

/// A socket that fails once no byte has moved either way for `limit` while it waits.
struct Idle<S> {
    inner: S,
    limit: Duration,
    last: Instant,
    /// Armed at some past deadline; re-armed only when it fires, so progress costs a
    /// clock read, not a timer update.
    timer: Pin<Box<Sleep>>,
}

impl<S> Idle<S> {
    fn new(inner: S, limit: Duration) -> Idle<S> {
        let now = Instant::now();
        Idle {
            inner,
            limit,
            last: now,
            timer: Box::pin(tokio::time::sleep_until(now + limit)),
        }
    }

    /// Notes what an operation did: progress, or a wait that may have lasted too long.
    fn account<T>(
        &mut self,
        cx: &mut Context<'_>,
        poll: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        if poll.is_ready() {
            self.last = Instant::now();
            return poll;
        }
        while self.timer.as_mut().poll(cx).is_ready() {
            let deadline = self.last + self.limit;
            if deadline <= Instant::now() {
                return Poll::Ready(Err(io::ErrorKind::TimedOut.into()));
            }
            self.timer.as_mut().reset(deadline);
        }
        Poll::Pending
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Idle<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        self.account(cx, poll)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Idle<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.account(cx, poll)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.account(cx, poll)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.inner).poll_flush(cx);
        self.account(cx, poll)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.inner).poll_shutdown(cx);
        self.account(cx, poll)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test(start_paused = true)]
    async fn a_silent_socket_fails_after_the_limit_and_a_busy_one_does_not() {
        let (a, mut b) = tokio::io::duplex(64);
        let mut idle = Idle::new(a, Duration::from_secs(10));
        // Bytes every 6 s keep it open past the limit.
        for _ in 0..3 {
            tokio::time::sleep(Duration::from_secs(6)).await;
            b.write_all(b"x").await.unwrap();
            let mut one = [0u8; 1];
            idle.read_exact(&mut one).await.unwrap();
        }
        let started = Instant::now();
        let mut one = [0u8; 1];
        let err = idle.read_exact(&mut one).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert_eq!(started.elapsed(), Duration::from_secs(10));
        // A write that cannot proceed (the peer reads nothing) fails the same way.
        let (a, _b) = tokio::io::duplex(4);
        let mut idle = Idle::new(a, Duration::from_secs(10));
        let err = idle.write_all(&[0u8; 64]).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
    }
}
