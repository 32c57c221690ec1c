//! The preview server's answers: the built site from memory, the live-reload event
//! stream and the error overlay.
//!
//! Every request first passes the guard (`guard.rs`: this machine's names, its own pages).
//! Only files of the built site are served, looked up by name in the build's file map, so
//! no request path ever reaches the filesystem; paths that try to climb out (`..`, encoded
//! `%2e%2e` or `%2f`, `//`, backslashes) are refused with the theme's 404 page before the
//! lookup. The few files copied from the site's folders are streamed only if they really
//! are inside it (`body.rs`: a symlink to elsewhere is refused).

use std::convert::Infallible;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use axum::http::{HeaderMap, HeaderValue, Method, Request, StatusCode, Uri, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures_util::{Stream, StreamExt, future, stream};
use tokio::sync::{broadcast, watch};
use tokio_stream::wrappers::BroadcastStream;

use super::body::{self, Content};
use super::guard::Hosts;
use super::{EVENTS, LIVE_SCRIPT, LIVE_TAG};
use crate::error::Diagnostic;
use crate::output::Data;
use crate::site::{Deferred, Files};

/// What the server shows: the last good build, and the diagnostics of a failed rebuild.
#[derive(Clone, Default)]
pub(super) struct Snapshot {
    pub(super) files: Arc<Files>,
    /// The previous build's hashed search files that this one replaced: a search that
    /// started before the rebuild still finds them (until the rebuild after).
    pub(super) retired: Arc<Files>,
    pub(super) errors: Option<Arc<Vec<Diagnostic>>>,
    /// The pages of the build not rendered yet (the first seconds of `serve`): rendered on
    /// request.
    pub(super) deferred: Option<Arc<Deferred>>,
}

pub(super) struct App {
    pub(super) site: RwLock<Snapshot>,
    /// (event name, JSON data) for every open page.
    pub(super) events: broadcast::Sender<(&'static str, String)>,
    /// Becomes true when the server stops, ending the event streams.
    pub(super) closing: watch::Receiver<bool>,
    /// Canonical folders that copied files may come from (the site, the image cache).
    pub(super) allowed_roots: Vec<PathBuf>,
    /// The names served besides loopback.
    pub(super) hosts: Hosts,
    /// How often an open event stream says it is alive: well within the idle timeout.
    pub(super) keep_alive: Duration,
    /// No rebuild step is running or due.
    pub(super) settled: std::sync::atomic::AtomicBool,
    pub(super) workbench: super::workbench::Workbench,
}

/// The largest request body the server reads (a workbench edit or preview request).
const BODY_LIMIT: usize = 1 << 20;

/// Answers one request that reached the server at `reached`.
pub(super) async fn handle<B>(app: Arc<App>, request: Request<B>, reached: IpAddr) -> Response
where
    B: axum::body::HttpBody<Data = Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    let (method, uri, headers) = (request.method(), request.uri(), request.headers());
    if let Some(refusal) = app.hosts.refuse(method, uri, headers, reached) {
        return refusal.into_response();
    }
    if super::workbench::Workbench::owns(uri.path()) {
        let (parts, body) = request.into_parts();
        let Ok(body) = axum::body::to_bytes(axum::body::Body::new(body), BODY_LIMIT).await else {
            return StatusCode::PAYLOAD_TOO_LARGE.into_response();
        };
        let (path, query) = (parts.uri.path(), parts.uri.query());
        return app
            .workbench
            .answer(&parts.method, path, query, &parts.headers, body)
            .await;
    }
    if method != Method::GET && method != Method::HEAD {
        let mut r = StatusCode::METHOD_NOT_ALLOWED.into_response();
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return r;
    }
    let head = method == Method::HEAD;
    match uri.path() {
        EVENTS => events(&app).into_response(),
        LIVE_SCRIPT => {
            let script = Bytes::from_static(include_str!("live.js").as_bytes());
            let kind = "text/javascript; charset=utf-8";
            body::send(StatusCode::OK, kind, Content::Memory(script), headers, head).await
        }
        _ => site_file(&app, uri, headers, head).await,
    }
}

fn events(app: &App) -> Sse<impl Stream<Item = Result<Event, Infallible>> + use<>> {
    let updates = BroadcastStream::new(app.events.subscribe())
        .filter_map(|message| future::ready(message.ok()))
        .map(|(name, data)| Ok(Event::default().event(name).data(data)));
    // `ready` tells a page (and the tests) that it is subscribed.
    let hello = stream::once(future::ready(Ok(Event::default()
        .event("ready")
        .data("{}"))));
    let mut closing = app.closing.clone();
    let until_closed = async move {
        let _ = closing.wait_for(|closed| *closed).await;
    };
    Sse::new(hello.chain(updates).take_until(until_closed))
        .keep_alive(KeepAlive::new().interval(app.keep_alive))
}

async fn site_file(app: &App, uri: &Uri, request: &HeaderMap, head: bool) -> Response {
    let mut snapshot = app.site.read().expect("site lock").clone();
    let mut found = site_path(uri.path()).map(|rel| lookup(&snapshot, &rel));
    if let (Some(Lookup::Deferred(path)), Some(deferred)) = (&found, &snapshot.deferred) {
        let (path, deferred) = (path.clone(), deferred.clone());
        // Rendering takes milliseconds of CPU: off the threads that answer requests.
        let rendered = tokio::task::spawn_blocking(move || deferred.render(&path)).await;
        found = Some(match rendered {
            Ok(Some(Ok(page))) => Lookup::Found(Arc::new(page)),
            Ok(Some(Err(diagnostic))) => {
                snapshot.errors = Some(Arc::new(vec![diagnostic]));
                Lookup::Missing
            }
            _ => Lookup::Missing,
        });
    }
    if let Some(errors) = snapshot.errors.as_deref().filter(|_| wants_page(&found)) {
        let page = Bytes::from(super::overlay::page(errors));
        let status = StatusCode::INTERNAL_SERVER_ERROR;
        return body::send(status, HTML, Content::Memory(page), request, head).await;
    }
    match found {
        Some(Lookup::Found(file)) => {
            let content = match &file.data {
                Data::Bytes(b) if file.path.ends_with(".html") => {
                    Some(Content::Memory(inject_live_reload(b)))
                }
                Data::Bytes(_) => Some(Content::Memory(body::shared(&file))),
                Data::Copy(c) => body::open_beneath(&c.root, &c.file).await,
                Data::Cached { file: path, .. } => body::open(path, &app.allowed_roots).await,
                // Only `casebook build` reuses what it published or stages pages on disk;
                // serve keeps every page in memory.
                Data::Published { .. } | Data::Staged { .. } => None,
            };
            match content {
                Some(content) => {
                    let kind = content_type(&file.path);
                    body::send(StatusCode::OK, &kind, content, request, head).await
                }
                None => not_found(&snapshot.files, uri.path(), request, head).await,
            }
        }
        Some(Lookup::Redirect) => {
            let mut location = format!("{}/", uri.path());
            if let Some(q) = uri.query() {
                location = format!("{location}?{q}");
            }
            let mut r = StatusCode::PERMANENT_REDIRECT.into_response();
            if let Ok(value) = HeaderValue::from_str(&location) {
                r.headers_mut().insert(header::LOCATION, value);
            }
            r
        }
        Some(Lookup::Missing | Lookup::Deferred(_)) | None => {
            not_found(&snapshot.files, uri.path(), request, head).await
        }
    }
}

const HTML: &str = "text/html; charset=utf-8";

/// The output path (`cases/x/index.html`-style key, before the index lookup) a request
/// path names, or `None` if it tries to leave the site.
pub(super) fn site_path(raw: &str) -> Option<String> {
    let lower = raw.to_ascii_lowercase();
    // An encoded separator or NUL has no business in a site path.
    if !raw.starts_with('/')
        || ["%2f", "%5c", "%00", "\\"]
            .iter()
            .any(|s| lower.contains(s))
    {
        return None;
    }
    let decoded = crate::html::percent_decode(&raw[1..]);
    if decoded.contains(['\\', '\0']) {
        return None;
    }
    let segments: Vec<&str> = decoded.split('/').collect();
    let last = segments.len() - 1;
    for (i, segment) in segments.iter().enumerate() {
        if *segment == "." || *segment == ".." || (segment.is_empty() && i != last) {
            return None;
        }
    }
    Some(decoded)
}

enum Lookup {
    Found(Arc<crate::output::Output>),
    /// `/cases` names the folder `/cases/`.
    Redirect,
    /// A page not rendered yet (output path).
    Deferred(String),
    Missing,
}

fn lookup(site: &Snapshot, rel: &str) -> Lookup {
    let files = &site.files;
    let deferred = |path: &str| site.deferred.as_ref().is_some_and(|d| d.holds(path));
    if rel.is_empty() || rel.ends_with('/') {
        let index = format!("{rel}index.html");
        return match files.get(&index) {
            Some(f) => Lookup::Found(f.clone()),
            None if deferred(&index) => Lookup::Deferred(index),
            None => Lookup::Missing,
        };
    }
    let folder = format!("{rel}/index.html");
    match files.get(rel).or_else(|| site.retired.get(rel)) {
        Some(f) => Lookup::Found(f.clone()),
        None if deferred(rel) => Lookup::Deferred(rel.to_string()),
        None if files.contains_key(&folder) || deferred(&folder) => Lookup::Redirect,
        None => Lookup::Missing,
    }
}

/// Whether the request is for a page (or for nothing): those show the error overlay.
fn wants_page(found: &Option<Lookup>) -> bool {
    match found {
        Some(Lookup::Found(f)) => f.path.ends_with(".html"),
        Some(Lookup::Redirect) => false,
        Some(Lookup::Missing | Lookup::Deferred(_)) | None => true,
    }
}

/// The theme's 404 page: the one of the language folder the path is in (`/ar/…` gets
/// `ar/404.html`), else the default language's.
async fn not_found(files: &Files, path: &str, request: &HeaderMap, head: bool) -> Response {
    let status = StatusCode::NOT_FOUND;
    let folder = path.trim_start_matches('/').split('/').next().unwrap_or("");
    let localized = format!("{folder}/404.html");
    let page = (!folder.is_empty())
        .then(|| files.get(localized.as_str()))
        .flatten()
        .or_else(|| files.get("404.html"));
    match page.and_then(|f| match &f.data {
        Data::Bytes(b) => Some(inject_live_reload(b)),
        _ => None,
    }) {
        Some(page) => body::send(status, HTML, Content::Memory(page), request, head).await,
        None => {
            let text = Content::Memory(Bytes::from_static(b"not found\n"));
            body::send(status, "text/plain; charset=utf-8", text, request, head).await
        }
    }
}

/// The content type of a file of the site, from its name.
fn content_type(path: &str) -> String {
    let mime = mime_guess::from_path(path).first_or_octet_stream();
    let textual = mime.type_() == "text"
        || matches!(
            mime.subtype().as_str(),
            "javascript" | "json" | "xml" | "atom+xml"
        );
    if textual {
        format!("{}; charset=utf-8", mime.essence_str())
    } else {
        mime.essence_str().to_string()
    }
}

/// A page with the live-reload script before its `</body>` (only here, never in the built
/// files).
fn inject_live_reload(html: &[u8]) -> Bytes {
    let at = html
        .windows(7)
        .rposition(|w| w.eq_ignore_ascii_case(b"</body>"))
        .unwrap_or(html.len());
    let mut page = Vec::with_capacity(html.len() + LIVE_TAG.len());
    page.extend_from_slice(&html[..at]);
    page.extend_from_slice(LIVE_TAG.as_bytes());
    page.extend_from_slice(&html[at..]);
    page.into()
}

/// The `reload` event's data for a build that changed `changed` output files: the URL
/// paths of changed pages and whether any style, script or image changed.
pub(super) fn reload_message(changed: &[String], all: bool) -> String {
    let pages: Vec<String> = changed
        .iter()
        .filter(|p| p.ends_with(".html"))
        .map(|p| {
            let path = format!("/{p}");
            match path.strip_suffix("index.html") {
                Some(dir) => dir.to_string(),
                None => path,
            }
        })
        .collect();
    let assets = changed.iter().any(|p| {
        !p.starts_with("search/")
            && Path::new(p)
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| {
                    ["css", "js", "jpg", "jpeg", "png", "webp", "svg", "woff2"].contains(&e)
                })
    });
    serde_json::json!({ "all": all, "pages": pages, "assets": assets }).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_not_rendered_yet_is_found_and_its_folder_redirected() {
        let (_dir, root) = crate::paths::fixture_copy("i18n");
        let mut session = crate::site::Session::new(&root, None, false).deferring_pages();
        session.build(&[]).unwrap();
        let site = Snapshot {
            files: session.files().unwrap(),
            deferred: session.deferred(),
            ..Snapshot::default()
        };
        let deferred =
            |rel| matches!(lookup(&site, rel), Lookup::Deferred(p) if p == "cases/c-1/index.html");
        assert!(deferred("cases/c-1/") && deferred("cases/c-1/index.html"));
        assert!(matches!(lookup(&site, "cases/c-1"), Lookup::Redirect));
        assert!(matches!(lookup(&site, ""), Lookup::Found(_)));
        assert!(matches!(lookup(&site, "cases/c-9/"), Lookup::Missing));
        let done = Snapshot {
            deferred: None,
            ..site.clone()
        };
        assert!(matches!(lookup(&done, "cases/c-1/"), Lookup::Missing));
    }

    #[test]
    fn site_paths_refuse_traversal() {
        assert_eq!(site_path("/"), Some(String::new()));
        assert_eq!(site_path("/cases/syn-1/"), Some("cases/syn-1/".into()));
        assert_eq!(site_path("/a%20b.pdf"), Some("a b.pdf".into()));
        for bad in [
            "/../etc/passwd",
            "/cases/../../etc/passwd",
            "/%2e%2e/etc/passwd",
            "/%2E%2E/%2E%2E/etc/passwd",
            "/cases%2f..%2f..%2fetc",
            "/cases%5c..",
            "//etc/passwd",
            "/cases//x",
            "/./index.html",
            "/a\\b",
            "/a%00b",
            "relative",
        ] {
            assert_eq!(site_path(bad), None, "{bad}");
        }
    }

    #[test]
    fn live_reload_goes_before_the_end_of_body() {
        let html = inject_live_reload(b"<html><body><p>x</p></body></html>");
        assert_eq!(
            String::from_utf8(html.to_vec()).unwrap(),
            format!("<html><body><p>x</p>{LIVE_TAG}</body></html>")
        );
        let html = inject_live_reload(b"<p>no body end");
        assert!(html.ends_with(LIVE_TAG.as_bytes()));
        let html = inject_live_reload(b"<BODY>x</BODY >");
        assert!(
            html.ends_with(LIVE_TAG.as_bytes()),
            "no `</body>`, so at the end"
        );
    }

    #[test]
    fn reload_messages_name_pages_and_assets() {
        let m = reload_message(
            &[
                "cases/syn-1/index.html".into(),
                "404.html".into(),
                "search/en/t1.abc.js".into(),
            ],
            false,
        );
        assert_eq!(
            m,
            r#"{"all":false,"assets":false,"pages":["/cases/syn-1/","/404.html"]}"#
        );
        assert!(reload_message(&["casebook.css".into()], false).contains(r#""assets":true"#));
    }
}
