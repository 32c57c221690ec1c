//! The preview server's HTTP side (axum): the built site from memory, the live-reload event
//! stream and the error overlay.
//!
//! Only files of the built site are served, looked up by name in the build's file map, so
//! no request path ever reaches the filesystem; paths that try to climb out (`..`, encoded
//! `%2e%2e` or `%2f`, `//`, backslashes) are refused with the theme's 404 page before the
//! lookup. The few files copied from the site's folders are read only if they really are
//! inside it (a symlink to elsewhere is refused).

use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, Method, StatusCode, Uri, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures_util::{Stream, StreamExt, future, stream};
use tokio::sync::{broadcast, watch};
use tokio_stream::wrappers::BroadcastStream;

use crate::error::Diagnostic;
use crate::output::{Data, Output};
use crate::site::Files;

/// Where the server's own files live; no site file can be there (`__` is not a slug).
pub(super) const EVENTS: &str = "/__casebook/events";
pub(super) const LIVE_SCRIPT: &str = "/__casebook/live.js";
const LIVE_TAG: &str = "<script src=\"/__casebook/live.js\"></script>";

/// What the server shows: the last good build, and the diagnostics of a failed rebuild.
#[derive(Clone, Default)]
pub(super) struct Snapshot {
    pub(crate) files: Arc<Files>,
    pub(crate) errors: Option<Arc<Vec<Diagnostic>>>,
}

pub(super) struct App {
    pub(crate) site: RwLock<Snapshot>,
    /// (event name, JSON data) for every open page.
    pub(crate) events: broadcast::Sender<(&'static str, String)>,
    /// Becomes true when the server stops, ending the event streams.
    pub(crate) closing: watch::Receiver<bool>,
    /// Canonical folders that copied files may come from (the site, the image cache).
    pub(crate) allowed_roots: Vec<PathBuf>,
    /// No rebuild step is running or due.
    pub(crate) settled: std::sync::atomic::AtomicBool,
}

pub(super) fn router(app: Arc<App>) -> Router {
    Router::new()
        .route(EVENTS, get(events))
        .route(LIVE_SCRIPT, get(live_script))
        .fallback(site_file)
        .with_state(app)
}

async fn events(State(app): State<Arc<App>>) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
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
    Sse::new(hello.chain(updates).take_until(until_closed)).keep_alive(KeepAlive::default())
}

async fn live_script() -> Response {
    respond(
        StatusCode::OK,
        "text/javascript; charset=utf-8",
        include_str!("live.js").as_bytes().to_vec(),
    )
}

async fn site_file(State(app): State<Arc<App>>, method: Method, uri: Uri) -> Response {
    if method != Method::GET && method != Method::HEAD {
        let mut r = StatusCode::METHOD_NOT_ALLOWED.into_response();
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return r;
    }
    let snapshot = app.site.read().expect("site lock").clone();
    let found = site_path(uri.path()).map(|rel| lookup(&snapshot.files, &rel));
    let response = match found {
        _ if snapshot.errors.is_some() && wants_page(&found) => {
            let errors = snapshot.errors.as_deref().map_or(&[][..], Vec::as_slice);
            respond(
                StatusCode::INTERNAL_SERVER_ERROR,
                "text/html; charset=utf-8",
                overlay(errors).into_bytes(),
            )
        }
        Some(Lookup::Found(file)) => match read(&app, &file).await {
            Some(bytes) => file_response(StatusCode::OK, &file.path, bytes),
            None => not_found(&snapshot.files),
        },
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
        Some(Lookup::Missing) | None => not_found(&snapshot.files),
    };
    if method == Method::HEAD {
        let (parts, body) = response.into_parts();
        let length = axum::body::to_bytes(body, usize::MAX)
            .await
            .map_or(0, |b| b.len());
        let mut r = Response::from_parts(parts, Body::empty());
        r.headers_mut()
            .insert(header::CONTENT_LENGTH, HeaderValue::from(length));
        return r;
    }
    response
}

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
    Found(Arc<Output>),
    /// `/cases` names the folder `/cases/`.
    Redirect,
    Missing,
}

fn lookup(files: &Files, rel: &str) -> Lookup {
    if rel.is_empty() || rel.ends_with('/') {
        return files
            .get(&format!("{rel}index.html"))
            .map_or(Lookup::Missing, |f| Lookup::Found(f.clone()));
    }
    match files.get(rel) {
        Some(f) => Lookup::Found(f.clone()),
        None if files.contains_key(&format!("{rel}/index.html")) => Lookup::Redirect,
        None => Lookup::Missing,
    }
}

/// Whether the request is for a page (or for nothing): those show the error overlay.
fn wants_page(found: &Option<Lookup>) -> bool {
    match found {
        Some(Lookup::Found(f)) => f.path.ends_with(".html"),
        Some(Lookup::Redirect) => false,
        Some(Lookup::Missing) | None => true,
    }
}

async fn read(app: &App, file: &Output) -> Option<Vec<u8>> {
    match &file.data {
        Data::Bytes(b) => Some(b.clone()),
        Data::Copy(path) | Data::Cached { file: path, .. } => {
            let real = tokio::fs::canonicalize(path).await.ok()?;
            if !app.allowed_roots.iter().any(|root| real.starts_with(root)) {
                return None;
            }
            tokio::fs::read(real).await.ok()
        }
        // Only `casebook build` reuses what it published or stages pages on disk; serve
        // keeps every page in memory.
        Data::Published { .. } | Data::Staged { .. } => None,
    }
}

fn not_found(files: &Files) -> Response {
    match files.get("404.html").and_then(|f| match &f.data {
        Data::Bytes(b) => Some(b.clone()),
        _ => None,
    }) {
        Some(bytes) => file_response(StatusCode::NOT_FOUND, "404.html", bytes),
        None => respond(
            StatusCode::NOT_FOUND,
            "text/plain; charset=utf-8",
            b"not found\n".to_vec(),
        ),
    }
}

fn file_response(status: StatusCode, path: &str, bytes: Vec<u8>) -> Response {
    let mime = mime_guess::from_path(path).first_or_octet_stream();
    let textual = mime.type_() == "text"
        || matches!(
            mime.subtype().as_str(),
            "javascript" | "json" | "xml" | "atom+xml"
        );
    let content_type = if textual {
        format!("{}; charset=utf-8", mime.essence_str())
    } else {
        mime.essence_str().to_string()
    };
    let bytes = if path.ends_with(".html") {
        inject_live_reload(bytes)
    } else {
        bytes
    };
    respond(status, &content_type, bytes)
}

fn respond(status: StatusCode, content_type: &str, bytes: Vec<u8>) -> Response {
    let mut r = (status, bytes).into_response();
    let headers = r.headers_mut();
    if let Ok(value) = HeaderValue::from_str(content_type) {
        headers.insert(header::CONTENT_TYPE, value);
    }
    // A preview must never be cached: the next edit changes it.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    r
}

/// Adds the live-reload script to a page: only here, never to the built files.
fn inject_live_reload(mut html: Vec<u8>) -> Vec<u8> {
    let at = html
        .windows(7)
        .rposition(|w| w.eq_ignore_ascii_case(b"</body>"))
        .unwrap_or(html.len());
    html.splice(at..at, LIVE_TAG.bytes());
    html
}

/// The page shown instead of the site while the last rebuild failed.
pub(super) fn overlay(errors: &[Diagnostic]) -> String {
    let esc = crate::html::escape;
    let mut items = String::new();
    for d in errors {
        let mut place = d.path.display().to_string();
        if d.line > 0 {
            place.push_str(&format!(":{}", d.line));
            if d.column > 0 {
                place.push_str(&format!(":{}", d.column));
            }
        }
        items.push_str(&format!(
            "<li><p><code class=\"place\">{}</code>",
            esc(&place)
        ));
        if let Some(field) = &d.field {
            items.push_str(&format!(
                " <span class=\"field\">field <code>{}</code></span>",
                esc(field)
            ));
        }
        items.push_str(&format!("</p><p class=\"message\">{}</p>", esc(&d.message)));
        if let Some(hint) = &d.hint {
            items.push_str(&format!(
                "<p class=\"hint\">How to fix it: {}</p>",
                esc(hint)
            ));
        }
        items.push_str("</li>");
    }
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<title>Build failed · casebook serve</title><style>{}</style></head><body>\
<main id=\"casebook-errors\"><h1>The site did not build</h1>\
<p>{} problem{} below. Fix {} and save: this page reloads by itself. \
The published site is not affected.</p><ol>{items}</ol></main>{LIVE_TAG}</body></html>",
        OVERLAY_CSS,
        errors.len(),
        if errors.len() == 1 { " is" } else { "s are" },
        if errors.len() == 1 { "it" } else { "them" },
    )
}

const OVERLAY_CSS: &str = "body{font:1rem/1.5 system-ui,sans-serif;margin:0;background:#fff;color:#1a1a1a}\
main{max-width:48rem;margin:2rem auto;padding:0 1rem}h1{color:#a4161a}\
li{border-inline-start:4px solid #a4161a;padding-inline-start:.75rem;margin-block:1rem}\
li p{margin:.2rem 0}.place{font-weight:bold}.hint{color:#3b3b3b}\
@media (prefers-color-scheme:dark){body{background:#161616;color:#eee}h1{color:#ff8a8a}\
li{border-color:#ff8a8a}.hint{color:#ccc}}";

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
        let html = inject_live_reload(b"<html><body><p>x</p></body></html>".to_vec());
        assert_eq!(
            String::from_utf8(html).unwrap(),
            format!("<html><body><p>x</p>{LIVE_TAG}</body></html>")
        );
        let html = inject_live_reload(b"<p>no body end".to_vec());
        assert!(String::from_utf8(html).unwrap().ends_with(LIVE_TAG));
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

    #[test]
    fn overlay_escapes_and_locates() {
        let d = Diagnostic::new("content/cases/x/index.md", "bad <value>")
            .at(3, 1)
            .field("date")
            .hint("write a date");
        let html = overlay(&[d]);
        assert!(html.contains("content/cases/x/index.md:3:1"));
        assert!(html.contains("bad &lt;value&gt;"));
        assert!(html.contains("<code>date</code>"));
        assert!(html.contains(LIVE_TAG));
    }
}
