//! The redaction workbench, inside `casebook serve` and only when it listens on loopback:
//! the queue of every photograph (`/__casebook/photos/`), the editor of one
//! (`/__casebook/photos/<page folder>/<file>`), the source as it stands for the editor
//! (`/__casebook/source/...`, unredacted: never served to anyone but this machine, never
//! written anywhere), and the published derivative made by the build's own pipeline
//! (`POST /__casebook/preview`). Nothing here is written by `build`.
//!
//! A request that changes anything (or asks for pixels) must carry the token made when
//! the server started, which only the workbench's own pages know, in a header: another
//! site's page cannot send that header without the browser asking this server first (a
//! CORS preflight, which it never answers), and a plain form post cannot set it.

mod catalogue;
mod pages;
mod save;

use std::path::Path;
use std::sync::{Arc, RwLock};

use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;

use crate::images::Warm;

pub(crate) use catalogue::Catalogue;

pub(super) const PREFIX: &str = "/__casebook/photos/";
const SOURCE: &str = "/__casebook/source/";
const PREVIEW: &str = "/__casebook/preview";
const SAVE: &str = "/__casebook/save";
const SCRIPT: &str = "/__casebook/workbench.js";
const STYLE: &str = "/__casebook/workbench.css";
pub(super) const TOKEN_HEADER: &str = "x-casebook-token";

/// The workbench's part of the server: on or off, its token, and the photographs of the
/// last good build.
pub(crate) struct Workbench {
    /// Only a loopback preview serves the workbench and the sources.
    pub(crate) enabled: bool,
    token: String,
    pub(crate) catalogue: RwLock<Arc<Catalogue>>,
    /// Where a save tells the builder what it wrote, so the case page is rebuilt at once,
    /// and where it starts deriving the photograph it changed meanwhile.
    announce: std::sync::OnceLock<(std::sync::mpsc::Sender<super::Message>, Arc<Warm>)>,
}

impl Workbench {
    pub(crate) fn new(enabled: bool) -> Workbench {
        let mut bytes = [0u8; 24];
        // No token, no changes: a failure here leaves the workbench read-only.
        let token = match getrandom::fill(&mut bytes) {
            Ok(()) => crate::hashing::hex(&bytes),
            Err(_) => String::new(),
        };
        Workbench {
            enabled,
            token,
            catalogue: RwLock::new(Arc::default()),
            announce: std::sync::OnceLock::new(),
        }
    }

    /// Tells the builder, through `changes`, of every file a save writes, and has the
    /// photograph a save redacts anew derived in `warm` while the rebuild loads the content.
    pub(super) fn announce_to(
        &self,
        changes: std::sync::mpsc::Sender<super::Message>,
        warm: Arc<Warm>,
    ) {
        let _ = self.announce.set((changes, warm));
    }

    /// Lists the photographs of the session's last good build (a loopback preview only).
    pub(crate) fn refresh(&self, session: &crate::site::Session) {
        if let Some(state) = session.state().filter(|_| self.enabled) {
            *self.catalogue.write().expect("catalogue lock") = Arc::new(Catalogue::of(state));
        }
    }

    fn catalogue(&self) -> Arc<Catalogue> {
        self.catalogue.read().expect("catalogue lock").clone()
    }

    /// Whether `path` is the workbench's.
    pub(super) fn owns(path: &str) -> bool {
        [PREFIX, SOURCE, PREVIEW, SAVE, SCRIPT, STYLE]
            .iter()
            .any(|p| path.starts_with(p) || format!("{path}/") == *p)
    }

    /// The answer to a request for one of the workbench's paths.
    pub(super) async fn answer(
        &self,
        method: &Method,
        path: &str,
        query: Option<&str>,
        headers: &HeaderMap,
        body: Bytes,
    ) -> Response {
        if !self.enabled {
            return refuse(
                StatusCode::NOT_FOUND,
                "The workbench and the source photographs are served only when casebook serve listens on this machine alone (the default --bind 127.0.0.1).",
            );
        }
        let changes = method == Method::POST;
        if changes {
            if let Some(why) = self.refusal(headers) {
                return refuse(StatusCode::FORBIDDEN, why);
            }
        } else if method != Method::GET && method != Method::HEAD {
            return refuse(StatusCode::METHOD_NOT_ALLOWED, "GET, HEAD or POST only");
        }
        let catalogue = self.catalogue();
        match (changes, path) {
            (false, SCRIPT) => asset(
                include_str!("workbench.js"),
                "text/javascript; charset=utf-8",
            ),
            (false, STYLE) => asset(include_str!("workbench.css"), "text/css; charset=utf-8"),
            (false, "/__casebook/photos") => redirect(PREFIX),
            (false, PREFIX) => html(pages::queue(&catalogue, &parse_query(query))),
            (false, p) if p.starts_with(SOURCE) => {
                source(&catalogue, &p[SOURCE.len()..], query).await
            }
            (false, p) => {
                match address(&p[PREFIX.len()..]).and_then(|(d, f)| catalogue.find(&d, &f)) {
                    Some(i) => html(pages::editor(
                        &catalogue,
                        i,
                        &self.token,
                        &parse_query(query),
                    )),
                    None => refuse(
                        StatusCode::NOT_FOUND,
                        "No photograph of the site has this address.",
                    ),
                }
            }
            (true, PREVIEW) => preview(&catalogue, &body).await,
            (true, SAVE) => {
                let catalogue = catalogue.clone();
                let announce = self.announce.get().cloned();
                tokio::task::spawn_blocking(move || {
                    let mut written = Vec::new();
                    let warm = announce.as_ref().map(|(_, warm)| warm.as_ref());
                    let answer = save::save(&catalogue, &body, &mut written, warm);
                    if let (Some((changes, _)), false) = (announce, written.is_empty()) {
                        let _ = changes.send(super::Message::Saved(written));
                    }
                    answer
                })
                .await
                .unwrap_or_else(|_| refuse(StatusCode::INTERNAL_SERVER_ERROR, "the save stopped"))
            }
            _ => refuse(StatusCode::NOT_FOUND, "No such workbench request."),
        }
    }

    /// Why a request that changes something is refused, if it is.
    fn refusal(&self, headers: &HeaderMap) -> Option<&'static str> {
        let token = headers.get(TOKEN_HEADER).and_then(|v| v.to_str().ok());
        if self.token.is_empty() || token != Some(self.token.as_str()) {
            return Some(
                "This request does not carry the workbench's token: it was not sent by the workbench's own page.",
            );
        }
        let json = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| t.starts_with("application/json"));
        if !json {
            return Some("The workbench takes JSON only.");
        }
        let site = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok());
        if site.is_some_and(|s| s != "same-origin" && s != "none") {
            return Some("The workbench answers its own pages only.");
        }
        None
    }
}

/// `dir/…/file` split at its last slash, each part percent-decoded.
fn address(rest: &str) -> Option<(String, String)> {
    let (dir, file) = rest.rsplit_once('/')?;
    let decode = |s: &str| crate::html::percent_decode(s);
    Some((decode(dir), decode(file)))
}

pub(crate) fn parse_query(query: Option<&str>) -> Vec<(String, String)> {
    query
        .unwrap_or_default()
        .split('&')
        .filter_map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let decode = |s: &str| crate::html::percent_decode(&s.replace('+', " "));
            (!k.is_empty()).then(|| (decode(k), decode(v)))
        })
        .collect()
}

fn refuse(status: StatusCode, why: &str) -> Response {
    let mut r = (status, why.to_string()).into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

fn no_store(mut r: Response) -> Response {
    let headers = r.headers_mut();
    headers.insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-store"),
    );
    headers.insert(
        "x-content-type-options",
        header::HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        "referrer-policy",
        header::HeaderValue::from_static("no-referrer"),
    );
    // Never shown in another site's frame.
    headers.insert("x-frame-options", header::HeaderValue::from_static("DENY"));
    r
}

fn html(page: String) -> Response {
    no_store(([(header::CONTENT_TYPE, "text/html; charset=utf-8")], page).into_response())
}

fn asset(text: &'static str, kind: &'static str) -> Response {
    no_store(([(header::CONTENT_TYPE, kind)], text).into_response())
}

fn redirect(to: &'static str) -> Response {
    (StatusCode::PERMANENT_REDIRECT, [(header::LOCATION, to)]).into_response()
}

fn jpeg(bytes: Vec<u8>) -> Response {
    no_store(([(header::CONTENT_TYPE, "image/jpeg")], bytes).into_response())
}

/// Reads a photograph's source beneath the site's folder (no link followed).
async fn read_source(catalogue: &Catalogue, i: usize) -> Result<Vec<u8>, Response> {
    let config = catalogue.config.clone().ok_or_else(|| {
        refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            "The site has not built yet.",
        )
    })?;
    let path = catalogue.rows[i].source.clone();
    tokio::task::spawn_blocking(move || {
        let rel = path
            .strip_prefix(&config.root)
            .unwrap_or(&path)
            .to_path_buf();
        crate::beneath::read(&config.root, Path::new(&rel), config.images.max_memory)
    })
    .await
    .map_err(|_| {
        refuse(
            StatusCode::INTERNAL_SERVER_ERROR,
            "reading the source stopped",
        )
    })?
    .map_err(|e| {
        refuse(
            StatusCode::NOT_FOUND,
            &format!("cannot read the source: {e}"),
        )
    })
}

/// The source upright at the width asked for (at most 4096), for the editor.
async fn source(catalogue: &Arc<Catalogue>, rest: &str, query: Option<&str>) -> Response {
    let Some(i) = address(rest).and_then(|(d, f)| catalogue.find(&d, &f)) else {
        return refuse(
            StatusCode::NOT_FOUND,
            "No photograph of the site has this address.",
        );
    };
    let width = parse_query(query)
        .iter()
        .find(|(k, _)| k == "w")
        .and_then(|(_, v)| v.parse::<u32>().ok())
        .unwrap_or(1600)
        .clamp(64, 4096);
    let bytes = match read_source(catalogue, i).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let Some(config) = catalogue.config.clone() else {
        return refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            "The site has not built yet.",
        );
    };
    let made = tokio::task::spawn_blocking(move || {
        crate::images::workbench::view(&bytes, &config.images, width)
    })
    .await;
    match made {
        Ok(Ok((bytes, _))) => jpeg(bytes),
        Ok(Err(e)) => refuse(StatusCode::UNPROCESSABLE_ENTITY, &e),
        Err(_) => refuse(StatusCode::INTERNAL_SERVER_ERROR, "decoding stopped"),
    }
}

#[derive(serde::Deserialize)]
struct PreviewRequest {
    dir: String,
    file: String,
    regions: Vec<crate::content::photos::Region>,
    width: u32,
}

/// The derivative as `build` would publish it with the regions sent.
async fn preview(catalogue: &Arc<Catalogue>, body: &[u8]) -> Response {
    let Ok(asked) = serde_json::from_slice::<PreviewRequest>(body) else {
        return refuse(
            StatusCode::BAD_REQUEST,
            "a preview names dir, file, regions and width",
        );
    };
    let Some(i) = catalogue.find(&asked.dir, &asked.file) else {
        return refuse(
            StatusCode::NOT_FOUND,
            "No photograph of the site has this address.",
        );
    };
    if let Some(bad) = asked.regions.iter().find(|r| !region_is_valid(r)) {
        return refuse(
            StatusCode::BAD_REQUEST,
            &format!("a region lies outside the picture: {bad:?}"),
        );
    }
    let bytes = match read_source(catalogue, i).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let Some(config) = catalogue.config.clone() else {
        return refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            "The site has not built yet.",
        );
    };
    let width = asked.width.clamp(64, 4096);
    let made = tokio::task::spawn_blocking(move || {
        crate::images::workbench::preview(&bytes, &asked.regions, &config.images, width)
    })
    .await;
    match made {
        Ok(Ok(bytes)) => jpeg(bytes),
        Ok(Err(e)) => refuse(StatusCode::UNPROCESSABLE_ENTITY, &e),
        Err(_) => refuse(StatusCode::INTERNAL_SERVER_ERROR, "the preview stopped"),
    }
}

/// Within the picture and not empty, as `build` requires.
pub(crate) fn region_is_valid(r: &crate::content::photos::Region) -> bool {
    let unit = |v: f64| (0.0..=1.0).contains(&v);
    unit(r.x)
        && unit(r.y)
        && r.w > 0.0
        && r.h > 0.0
        && r.x + r.w <= 1.0 + 1e-9
        && r.y + r.h <= 1.0 + 1e-9
}
