//! What a response carries, without holding more than a chunk of it: a file of the build
//! kept in memory is shared with the response (no copy per request); a file copied from
//! the site's folders is streamed from disk in chunks, never read whole. Either answers a
//! single byte range (`Range: bytes=…`), so video and PDF viewers can seek.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use tokio::io::{AsyncReadExt, AsyncSeekExt};

use crate::output::{Data, Output};

/// How much of a file is read at a time: a few of these per download are all the memory
/// it takes.
const CHUNK: usize = 64 * 1024;

/// The bytes a response sends.
pub(super) enum Content {
    Memory(Bytes),
    File { file: tokio::fs::File, len: u64 },
}

impl Content {
    fn len(&self) -> u64 {
        match self {
            Content::Memory(b) => b.len() as u64,
            Content::File { len, .. } => *len,
        }
    }
}

/// An in-memory output, shared by reference count with the bodies that send it.
struct Shared(Arc<Output>);

impl AsRef<[u8]> for Shared {
    fn as_ref(&self) -> &[u8] {
        match &self.0.data {
            Data::Bytes(b) => b,
            _ => &[],
        }
    }
}

/// The bytes of an in-memory output, without copying them.
pub(super) fn shared(file: &Arc<Output>) -> Bytes {
    Bytes::from_owner(Shared(file.clone()))
}

/// Opens a file copied from the site, if it really is a regular file inside one of
/// `roots` (a symlink to elsewhere is refused, and so is a FIFO or a device).
pub(super) async fn open(path: &Path, roots: &[PathBuf]) -> Option<Content> {
    let real = tokio::fs::canonicalize(path).await.ok()?;
    if !roots.iter().any(|root| real.starts_with(root)) {
        return None;
    }
    let mut options = tokio::fs::OpenOptions::new();
    options.read(true);
    // The path was just resolved: its last part must not become a symlink meanwhile, and
    // opening a FIFO must not wait for a writer.
    #[cfg(unix)]
    options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    let file = options.open(&real).await.ok()?;
    let meta = file.metadata().await.ok()?;
    meta.is_file().then_some(Content::File {
        file,
        len: meta.len(),
    })
}

/// A static file or attachment, opened beneath the site's folder without following a
/// link (as `build` reads it): a file replaced by a link is not served, wherever it points.
pub(super) async fn open_beneath(root: &Path, file: &Path) -> Option<Content> {
    let (root, file) = (root.to_path_buf(), file.to_path_buf());
    let (file, meta) = tokio::task::spawn_blocking(move || crate::beneath::open(&root, &file))
        .await
        .ok()?
        .ok()?;
    Some(Content::File {
        file: tokio::fs::File::from_std(file),
        len: meta.len(),
    })
}

/// Which part of a representation of `len` bytes a `Range` header asks for.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Span {
    Whole,
    /// First and last byte, inclusive.
    Part(u64, u64),
    Unsatisfiable,
}

/// Reads a `Range` header (RFC 9110, 14.2). Only one range is answered: a list, another
/// unit or a malformed value is ignored (the whole file is sent), as the RFC allows.
pub(super) fn span(range: Option<&str>, len: u64) -> Span {
    let Some(spec) = range.and_then(|r| {
        let r = r.trim();
        r.get(..6)
            .filter(|unit| unit.eq_ignore_ascii_case("bytes="))
            .map(|_| r[6..].trim())
    }) else {
        return Span::Whole;
    };
    let Some((first, last)) = spec.split_once('-') else {
        return Span::Whole;
    };
    let number = |s: &str| {
        let s = s.trim();
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u64>().unwrap_or(u64::MAX))
    };
    match (number(first), last.trim()) {
        // `-500`: the last 500 bytes.
        (None, suffix) if first.trim().is_empty() => match number(suffix) {
            Some(0) | None if suffix.is_empty() => Span::Whole,
            Some(0) => Span::Unsatisfiable,
            Some(_) if len == 0 => Span::Unsatisfiable,
            Some(n) => Span::Part(len.saturating_sub(n), len - 1),
            None => Span::Whole,
        },
        (Some(start), "") if start < len => Span::Part(start, len - 1),
        (Some(start), last) => match number(last) {
            Some(end) if end < start => Span::Whole,
            Some(end) if start < len => Span::Part(start, end.min(len - 1)),
            Some(_) => Span::Unsatisfiable,
            None if last.is_empty() => Span::Unsatisfiable,
            None => Span::Whole,
        },
        (None, _) => Span::Whole,
    }
}

/// A response sending `content` (the part a `Range` asks for, for a `GET`), with the
/// preview's headers; a `HEAD` response says the length and reads nothing.
pub(super) async fn send(
    status: StatusCode,
    content_type: &str,
    content: Content,
    request: &HeaderMap,
    head: bool,
) -> Response {
    let len = content.len();
    // Ranges only of a plain 200 (not of a 404 page), only for GET, and not when the
    // client asks for it only if the file is unchanged (`If-Range`): there is no validator
    // to compare, so it gets the whole file.
    let ranged = status == StatusCode::OK && !head && !request.contains_key(header::IF_RANGE);
    let range = request
        .get(header::RANGE)
        .and_then(|r| r.to_str().ok())
        .filter(|_| ranged);
    let (status, first, count) = match span(range, len) {
        Span::Whole => (status, 0, len),
        Span::Part(first, last) => (StatusCode::PARTIAL_CONTENT, first, last - first + 1),
        Span::Unsatisfiable => {
            let mut r = preview_headers(
                StatusCode::RANGE_NOT_SATISFIABLE.into_response(),
                "text/plain; charset=utf-8",
            );
            r.headers_mut().insert(
                header::CONTENT_RANGE,
                header_value(&format!("bytes */{len}")),
            );
            return r;
        }
    };
    let body = if head {
        Body::empty()
    } else {
        match content {
            Content::Memory(bytes) => {
                Body::from(bytes.slice(first as usize..(first + count) as usize))
            }
            Content::File { mut file, .. } => {
                if first > 0 && file.seek(std::io::SeekFrom::Start(first)).await.is_err() {
                    return StatusCode::INTERNAL_SERVER_ERROR.into_response();
                }
                Body::from_stream(tokio_util::io::ReaderStream::with_capacity(
                    file.take(count),
                    CHUNK,
                ))
            }
        }
    };
    let mut r = preview_headers(Response::new(body), content_type);
    *r.status_mut() = status;
    let headers = r.headers_mut();
    // A file that shrinks while it is sent ends the connection early rather than
    // sending a length it cannot keep.
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(count));
    headers.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    if status == StatusCode::PARTIAL_CONTENT {
        headers.insert(
            header::CONTENT_RANGE,
            header_value(&format!("bytes {first}-{}/{len}", first + count - 1)),
        );
    }
    r
}

/// The headers every answer of the preview carries.
pub(super) fn preview_headers(mut r: Response, content_type: &str) -> Response {
    let headers = r.headers_mut();
    headers.insert(header::CONTENT_TYPE, header_value(content_type));
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

fn header_value(s: &str) -> HeaderValue {
    HeaderValue::from_str(s)
        .unwrap_or_else(|_| HeaderValue::from_static("application/octet-stream"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn single_ranges_are_read() {
        let s = |r: &str| span(Some(r), 1000);
        assert_eq!(s("bytes=0-99"), Span::Part(0, 99));
        assert_eq!(s("bytes=0-"), Span::Part(0, 999));
        assert_eq!(s("bytes=500-"), Span::Part(500, 999));
        assert_eq!(s("bytes=990-5000"), Span::Part(990, 999));
        assert_eq!(s("bytes=-100"), Span::Part(900, 999));
        assert_eq!(s("bytes=-5000"), Span::Part(0, 999));
        assert_eq!(s("Bytes = 5 - 9"), Span::Whole, "space before `=`");
        assert_eq!(s("BYTES= 5 - 9 "), Span::Part(5, 9));
        assert_eq!(s("bytes=999-999"), Span::Part(999, 999));
    }

    #[test]
    fn unsatisfiable_ranges_are_told() {
        let s = |r: &str| span(Some(r), 1000);
        assert_eq!(s("bytes=1000-"), Span::Unsatisfiable);
        assert_eq!(s("bytes=1000-2000"), Span::Unsatisfiable);
        assert_eq!(s("bytes=-0"), Span::Unsatisfiable);
        assert_eq!(s("bytes=99999999999999999999999-"), Span::Unsatisfiable);
        assert_eq!(span(Some("bytes=0-"), 0), Span::Unsatisfiable);
        assert_eq!(span(Some("bytes=-5"), 0), Span::Unsatisfiable);
    }

    #[test]
    fn other_ranges_get_the_whole_file() {
        let s = |r: &str| span(Some(r), 1000);
        for r in [
            "bytes=0-1,5-9",
            "items=0-5",
            "bytes=9-5",
            "bytes=-",
            "bytes=a-b",
            "bytes=5",
            "bytes=+5-9",
            "bytes=5--9",
            "",
            "bytes",
        ] {
            assert_eq!(s(r), Span::Whole, "{r}");
        }
        assert_eq!(span(None, 1000), Span::Whole);
    }

    proptest! {
        #[test]
        fn any_range_header_gives_a_part_inside_the_file(
            header in "(?i:bytes)?=?[ 0-9,-]{0,24}",
            len in 0u64..2000,
        ) {
            if let Span::Part(first, last) = span(Some(&header), len) {
                prop_assert!(first <= last && last < len, "{header} of {len}: {first}-{last}");
            }
        }
    }
}
