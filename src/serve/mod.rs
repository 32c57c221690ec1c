//! `casebook serve`: build the site in memory, serve it on this machine, watch the sources,
//! rebuild what a change affects and reload the open pages.
//!
//! Three parts, each in its own thread of control:
//! - the HTTP server (`listen`: connections with time limits; `guard`: who may ask;
//!   `http`: the answers, `body`: streamed and ranged) serves the last good build from
//!   memory, plus the live-reload event stream and, after a failed rebuild, the
//!   diagnostics (`overlay`);
//! - the watcher (`watch`, notify with a debouncer) batches changes to what the build
//!   reads;
//! - the builder thread (`rebuild`) owns the `Session` (incremental builds) and publishes
//!   each result.
//!
//! Nothing is written to `public/` or anywhere else in the site.

mod body;
mod guard;
mod http;
mod listen;
mod overlay;
mod rebuild;
mod watch;
mod workbench;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use tokio::sync::{broadcast, watch as signal};

use crate::error::{Diagnostic, Error, Result};
pub use crate::site::{Session, Update};
use http::Snapshot;

/// What `casebook serve` is asked to do.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The site folder (holding `casebook.toml`).
    pub root: PathBuf,
    /// The address to listen on; anything but loopback shows unpublished content.
    pub bind: IpAddr,
    /// 0 picks a free port.
    pub port: u16,
    /// Include pages marked `draft = true`.
    pub drafts: bool,
    /// Names the server answers to besides this machine's own (`localhost`, `127.0.0.1`,
    /// `[::1]`) and the address a request reached: a name that points at this machine on
    /// the network or through a tunnel. Any other `Host` is refused.
    pub allow_hosts: Vec<String>,
    /// How long a client may take to send a request's headers, and how long a kept-alive
    /// connection may wait for its next request.
    pub header_timeout: Duration,
    /// How long a connection may move no byte either way before it is closed.
    pub idle_timeout: Duration,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            root: PathBuf::from("."),
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: 1111,
            drafts: false,
            allow_hosts: Vec::new(),
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(30),
        }
    }
}

/// What the server reports as it works, for the terminal.
#[derive(Debug)]
pub enum Report {
    /// The pages are rebuilt and open pages told.
    Rebuilt(Update),
    /// The pages the first build left for later are rendered (none of them changed).
    Rendered(Update),
    /// The whole-site files (search index, feeds, export, manifest) caught up.
    Finished(Update),
    /// A rebuild failed: the last good site is still served, with these problems shown.
    Failed(Vec<Diagnostic>),
}

/// A running server; stops when dropped.
pub struct Server {
    /// The address the server listens on.
    pub addr: SocketAddr,
    /// `http://127.0.0.1:1111/`
    pub url: String,
    /// The first build's outcome (its pages; the whole-site files follow).
    pub first: std::result::Result<Update, Vec<Diagnostic>>,
    app: Arc<http::App>,
    stop: Option<signal::Sender<bool>>,
    runtime: Option<std::thread::JoinHandle<()>>,
    builder: Option<std::thread::JoinHandle<()>>,
    changes: mpsc::Sender<Message>,
}

/// Where the server's own files live; no site file can be there (`__` is not a slug).
const EVENTS: &str = "/__casebook/events";
const LIVE_SCRIPT: &str = "/__casebook/live.js";
const LIVE_TAG: &str = "<script src=\"/__casebook/live.js\"></script>";

enum Message {
    /// Paths the watcher saw change.
    Changed(Vec<PathBuf>),
    /// Files the workbench has just written: rebuilt at once, without waiting for the
    /// watcher, which reports them again a moment later.
    Saved(Vec<PathBuf>),
    Stop,
}

impl Server {
    /// Waits until no rebuild step is running or due (at most `timeout`); returns whether
    /// that happened.
    pub fn wait_until_settled(&self, timeout: Duration) -> bool {
        let deadline = std::time::Instant::now() + timeout;
        while !self.app.settled.load(Ordering::SeqCst) {
            if std::time::Instant::now() > deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        true
    }

    /// Stops serving and watching; returns when both have ended.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(true);
        }
        let _ = self.changes.send(Message::Stop);
        for handle in [self.runtime.take(), self.builder.take()]
            .into_iter()
            .flatten()
        {
            let _ = handle.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Binds, builds the site once and starts serving and watching. `report` hears about
/// every rebuild after the first. A first build that fails still serves (the diagnostics)
/// and recovers on the next good build.
pub fn start(options: &ServeOptions, report: impl Fn(Report) + Send + 'static) -> Result<Server> {
    let hosts = guard::Hosts::new(&options.allow_hosts)?;
    let root = std::fs::canonicalize(&options.root).map_err(|e| Error::io(&options.root, e))?;
    let listener = std::net::TcpListener::bind((options.bind, options.port)).map_err(|e| {
        Error::one(
            Diagnostic::new("casebook serve", format!("cannot listen on {}:{}: {e}", options.bind, options.port))
                .field("port")
                .hint("another program uses this port: pick another with --port, or --port 0 for any free one"),
        )
    })?;
    listener
        .set_nonblocking(true)
        .map_err(|e| Error::io(Path::new("socket"), e))?;
    let addr = listener
        .local_addr()
        .map_err(|e| Error::io(Path::new("socket"), e))?;
    let url = format!("http://{addr}/");

    let mut session = Session::new(&root, Some(url.clone()), options.drafts).deferring_pages();
    // The home pages first; the builder thread renders the other pages, then adds the
    // search index and whole-site files, while the server already answers (rendering a page
    // not rendered yet on request).
    let first = session.build(&[]).map_err(diagnostics_of);
    let snapshot = Snapshot {
        files: session.files().unwrap_or_default(),
        retired: Arc::default(),
        errors: first.as_ref().err().map(|d| Arc::new(d.clone())),
        deferred: session.deferred(),
    };

    let (events, _) = broadcast::channel(64);
    let (stop, closing) = signal::channel(false);
    let cache = crate::config::Config::load(&root)
        .ok()
        .and_then(|config| std::fs::canonicalize(root.join(&config.images.cache_dir)).ok());
    let allowed_roots = [Some(root.clone()), cache.clone()]
        .into_iter()
        .flatten()
        .collect();
    let limits = listen::Limits {
        header: options.header_timeout,
        idle: options.idle_timeout,
    };
    let app = Arc::new(http::App {
        site: RwLock::new(snapshot),
        events,
        closing: closing.clone(),
        allowed_roots,
        hosts,
        // An open event stream must not look idle.
        keep_alive: (limits.idle / 2).min(Duration::from_secs(15)),
        settled: AtomicBool::new(!session.unfinished()),
        workbench: workbench::Workbench::new(options.bind.is_loopback()),
    });
    app.workbench.refresh(&session);

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Error::io(Path::new("runtime"), e))?;
    let server_app = app.clone();
    let builder_app = app.clone();
    let runtime = std::thread::Builder::new()
        .name("casebook-http".into())
        .spawn(move || {
            runtime.block_on(async move {
                if let Ok(listener) = tokio::net::TcpListener::from_std(listener) {
                    listen::serve(listener, server_app, limits, closing).await;
                }
            });
            // A file read still running on a blocking thread is not waited for.
            runtime.shutdown_timeout(Duration::from_millis(100));
        })
        .map_err(|e| Error::io(Path::new("thread"), e))?;

    let (changes, incoming) = mpsc::channel();
    app.workbench
        .announce_to(changes.clone(), session.warm_images());
    let watcher = watch::watch_sources(&root, cache.into_iter().collect(), changes.clone())?;
    let builder = rebuild::Builder {
        session,
        incoming,
        watcher,
        root,
        app: builder_app,
        report,
        read: Default::default(),
    };
    let builder = std::thread::Builder::new()
        .name("casebook-build".into())
        .spawn(move || builder.run())
        .map_err(|e| Error::io(Path::new("thread"), e))?;

    Ok(Server {
        addr,
        url,
        first,
        app,
        stop: Some(stop),
        runtime: Some(runtime),
        builder: Some(builder),
        changes,
    })
}

fn diagnostics_of(e: Error) -> Vec<Diagnostic> {
    match e {
        Error::Diagnostics(d) => d,
        other => vec![Diagnostic::new("casebook serve", other.to_string())],
    }
}
