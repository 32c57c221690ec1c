//! `casebook serve`: build the site in memory, serve it on this machine, watch the sources,
//! rebuild what a change affects and reload the open pages.
//!
//! Three parts, each in its own thread of control:
//! - the HTTP server (`http`, axum on a tokio runtime) serves the last good build from
//!   memory, plus the live-reload event stream and, after a failed rebuild, the diagnostics;
//! - the watcher (notify with a debouncer) batches file events: editors that save by
//!   renaming a temporary file, or write twice, produce one rebuild;
//! - the builder thread owns the `Session` (incremental builds) and publishes each result.
//!
//! Nothing is written to `public/` or anywhere else in the site.

mod http;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use notify_debouncer_full::notify::{EventKind, RecursiveMode};
use tokio::sync::{broadcast, watch};

use crate::error::{Diagnostic, Error, Result};
pub use crate::site::{Session, Update};
use http::Snapshot;

/// How long the watcher waits for a burst of file events to end before rebuilding.
const DEBOUNCE: Duration = Duration::from_millis(40);

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
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            root: PathBuf::from("."),
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: 1111,
            drafts: false,
        }
    }
}

/// What the server reports as it works, for the terminal.
#[derive(Debug)]
pub enum Report {
    /// The pages are rebuilt and open pages told.
    Rebuilt(Update),
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
    stop: Option<watch::Sender<bool>>,
    runtime: Option<std::thread::JoinHandle<()>>,
    builder: Option<std::thread::JoinHandle<()>>,
    changes: mpsc::Sender<Message>,
}

enum Message {
    Changed(Vec<PathBuf>),
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

    let mut session = Session::new(&root, Some(url.clone()), options.drafts);
    // The pages first; the builder thread adds the search index and whole-site files
    // while the server already answers.
    let first = session.build(&[]).map_err(diagnostics_of);
    let snapshot = Snapshot {
        files: session.files().unwrap_or_default(),
        errors: first.as_ref().err().map(|d| Arc::new(d.clone())),
    };

    let (events, _) = broadcast::channel(64);
    let (stop, closing) = watch::channel(false);
    let mut allowed_roots = vec![root.clone()];
    if let Ok(config) = crate::config::Config::load(&root) {
        if let Ok(cache) = std::fs::canonicalize(root.join(&config.images.cache_dir)) {
            allowed_roots.push(cache);
        }
    }
    let app = Arc::new(http::App {
        site: RwLock::new(snapshot),
        events,
        closing: closing.clone(),
        allowed_roots,
        settled: AtomicBool::new(!session.unfinished()),
    });

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Error::io(Path::new("runtime"), e))?;
    let server_app = app.clone();
    let builder_app = app.clone();
    let mut server_closing = closing;
    let runtime = std::thread::Builder::new()
        .name("casebook-http".into())
        .spawn(move || {
            runtime.block_on(async move {
                let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                    return;
                };
                let shutdown = async move {
                    let _ = server_closing.wait_for(|closed| *closed).await;
                };
                let _ = axum::serve(listener, http::router(server_app))
                    .with_graceful_shutdown(shutdown)
                    .await;
            });
        })
        .map_err(|e| Error::io(Path::new("thread"), e))?;

    let (changes, incoming) = mpsc::channel();
    let watcher = watch_sources(&root, changes.clone())?;
    let builder = std::thread::Builder::new()
        .name("casebook-build".into())
        .spawn(move || {
            let mut watcher = watcher;
            rebuild_loop(session, incoming, &mut watcher, &builder_app, report);
        })
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

/// Rebuilds on every batch of changes and publishes the result to the server and pages.
/// The pages come first; the whole-site files follow when no newer change is waiting.
fn rebuild_loop(
    mut session: Session,
    incoming: mpsc::Receiver<Message>,
    watcher: &mut Watcher,
    app: &http::App,
    report: impl Fn(Report),
) {
    let mut failing = app.site.read().expect("site lock").errors.is_some();
    loop {
        app.settled
            .store(failing || !session.unfinished(), Ordering::SeqCst);
        let message = if session.unfinished() && !failing {
            match incoming.try_recv() {
                Ok(message) => message,
                Err(mpsc::TryRecvError::Empty) => {
                    let result = session.finish();
                    failing = publish(&session, result, failing, app, &report, Report::Finished);
                    continue;
                }
                Err(mpsc::TryRecvError::Disconnected) => return,
            }
        } else {
            match incoming.recv() {
                Ok(message) => message,
                Err(_) => return,
            }
        };
        app.settled.store(false, Ordering::SeqCst);
        let mut changed = match message {
            Message::Changed(paths) => paths,
            Message::Stop => return,
        };
        // Take every batch already waiting: one rebuild serves them all.
        while let Ok(more) = incoming.try_recv() {
            match more {
                Message::Changed(paths) => changed.extend(paths),
                Message::Stop => return,
            }
        }
        watch_new_folders(watcher, &changed);
        let result = session.build(&changed);
        failing = publish(&session, result, failing, app, &report, Report::Rebuilt);
    }
}

/// Serves a build step's result and tells the open pages; returns whether it failed.
fn publish(
    session: &Session,
    result: Result<Update>,
    failing: bool,
    app: &http::App,
    report: &impl Fn(Report),
    done: fn(Update) -> Report,
) -> bool {
    match result {
        Ok(update) => {
            *app.site.write().expect("site lock") = Snapshot {
                files: session.files().unwrap_or_default(),
                errors: None,
            };
            // After a failure every page shows the overlay: all of them reload.
            if failing || !update.changed.is_empty() {
                let message = http::reload_message(&update.changed, failing || update.full);
                let _ = app.events.send(("reload", message));
            }
            report(done(update));
            false
        }
        Err(e) => {
            let diagnostics = diagnostics_of(e);
            app.site.write().expect("site lock").errors = Some(Arc::new(diagnostics.clone()));
            let _ = app.events.send(("failed", "{}".into()));
            report(Report::Failed(diagnostics));
            true
        }
    }
}

type Watcher = notify_debouncer_full::Debouncer<
    notify_debouncer_full::notify::RecommendedWatcher,
    notify_debouncer_full::RecommendedCache,
>;

/// Watches the site's sources and sends each debounced batch of changed paths.
fn watch_sources(root: &Path, changes: mpsc::Sender<Message>) -> Result<Watcher> {
    let filter_root = root.to_path_buf();
    let mut debouncer = notify_debouncer_full::new_debouncer(
        DEBOUNCE,
        None,
        move |result: notify_debouncer_full::DebounceEventResult| {
            let Ok(events) = result else { return };
            let mut paths: Vec<PathBuf> = events
                .iter()
                .filter(|e| !matches!(e.kind, EventKind::Access(_)))
                .flat_map(|e| e.paths.iter())
                .filter(|p| is_source(&filter_root, p))
                .cloned()
                .collect();
            paths.sort();
            paths.dedup();
            if !paths.is_empty() {
                let _ = changes.send(Message::Changed(paths));
            }
        },
    )
    .map_err(|e| watch_error(root, e))?;
    // The root itself only for casebook.toml (watched through its folder, so editors that
    // replace the file keep being seen); the source folders recursively.
    debouncer
        .watch(root, RecursiveMode::NonRecursive)
        .map_err(|e| watch_error(root, e))?;
    for dir in SOURCE_FOLDERS {
        let path = root.join(dir);
        if path.is_dir() {
            debouncer
                .watch(&path, RecursiveMode::Recursive)
                .map_err(|e| watch_error(&path, e))?;
        }
    }
    Ok(debouncer)
}

fn watch_error(path: &Path, e: notify_debouncer_full::notify::Error) -> Error {
    Error::one(
        Diagnostic::new(path, format!("cannot watch for changes: {e}"))
            .hint("on Linux, raise the inotify limit: sysctl fs.inotify.max_user_watches=524288"),
    )
}

/// A source folder created after the start (`templates/`, say) is watched from now on.
fn watch_new_folders(watcher: &mut Watcher, changed: &[PathBuf]) {
    for path in changed {
        let top = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if SOURCE_FOLDERS.contains(&top) && path.is_dir() {
            let _ = watcher.watch(path, RecursiveMode::Recursive);
        }
    }
}

/// The folders of a site whose files are sources.
const SOURCE_FOLDERS: &[&str] = &["content", "themes", "templates", "static", "i18n"];

/// Whether a changed path is a source of the site (not an editor's backup or swap file,
/// not the output or the image cache).
fn is_source(root: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else {
        return false;
    };
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let scratch = name.starts_with('.')
        || name.starts_with('#')
        || name.ends_with('~')
        || name.ends_with(".swp")
        || name.ends_with(".tmp");
    let first = rel.components().next().and_then(|c| c.as_os_str().to_str());
    !scratch
        && match first {
            Some("casebook.toml") => rel.components().count() == 1,
            Some(folder) => SOURCE_FOLDERS.contains(&folder),
            None => false,
        }
}

#[cfg(test)]
mod tests {
    use super::is_source;
    use std::path::Path;

    #[test]
    fn only_sources_trigger_rebuilds() {
        let root = Path::new("/site");
        assert!(is_source(root, Path::new("/site/casebook.toml")));
        assert!(is_source(root, Path::new("/site/content/cases/x/index.md")));
        assert!(is_source(
            root,
            Path::new("/site/themes/t/templates/base.html")
        ));
        assert!(!is_source(root, Path::new("/site/public/index.html")));
        assert!(!is_source(
            root,
            Path::new("/site/.casebook-cache/ab/cd.jpg")
        ));
        assert!(!is_source(
            root,
            Path::new("/site/content/cases/x/.index.md.swp")
        ));
        assert!(!is_source(
            root,
            Path::new("/site/content/cases/x/index.md~")
        ));
        assert!(!is_source(root, Path::new("/site/notes.txt")));
        assert!(!is_source(root, Path::new("/elsewhere/casebook.toml")));
    }
}
