//! `casebook package --wacz`: the site as a WACZ 1.1.1 web archive, the format web-archiving
//! tools (ReplayWeb.page, pywb, the Internet Archive's and national libraries' tools) load
//! and replay. One zip holds:
//!
//! - `archive/data.warc.gz`: a WARC record (gzipped on its own, so it can be read from its
//!   offset) for every file of the site at its address under `base_url`; each page is at its
//!   folder's address (`…/cases/`) and, as a revisit of the same bytes, at `…/index.html`;
//! - `indexes/index.cdx`: where each address's record is (CDXJ, sorted by SURT);
//! - `pages/pages.jsonl`: the site's pages with their titles, the archive's entry points;
//! - `datapackage.json`: every part's SHA-256, and what ties it to the release.
//!
//! The capture date is `SOURCE_DATE_EPOCH` when it is set (then the same build packs into the
//! same bytes), else the time of packing.

use std::io::Write;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use rayon::prelude::*;
use sha2::{Digest, Sha256};

use super::{
    Packed, check, create_zip, finish_zip, fixed_zip_options, partial_path, payload,
    refuse_existing_file, slash_path,
};
use crate::error::{Diagnostic, Error, Result};
use crate::hashing::hex;

const WARC_NAME: &str = "data.warc.gz";
/// Files compressed in parallel, then written in order: bounds what is held at once.
const BATCH: usize = 256;

/// One line of the index, and the page list's entry when the record is a page.
struct Indexed {
    url: String,
    mime: String,
    digest: String,
    offset: u64,
    length: u64,
    revisit: bool,
    title: Option<String>,
}

/// Packs the built site in `site` (a build for a server, verified first) into a new WACZ
/// file at `out`.
pub(crate) fn wacz(site: &Path, out: &Path) -> Result<Packed> {
    refuse_existing_file(out, "the WACZ file already exists")?;
    let date = capture_date()?;
    let (verified, public_key) = check(site)?;
    let home = site.join("index.html");
    let home_html = std::fs::read_to_string(&home).map_err(|e| Error::io(&home, e))?;
    let base = base_url(&home, &home_html)?;
    let files = payload(site);

    let partial = partial_path(out);
    let mut zip = create_zip(&partial)?;
    let zip_error = |e: zip::result::ZipError| Error::io(&partial, std::io::Error::other(e));
    let io_error = |e: std::io::Error| Error::io(&partial, e);
    // The WARC is stored, not deflated (WACZ 1.1.1): replay tools read records from their
    // offsets inside the zip.
    let deflated = fixed_zip_options();
    let stored = deflated
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(true);

    let mut resources = Vec::new();
    zip.start_file(format!("archive/{WARC_NAME}"), stored)
        .map_err(zip_error)?;
    let mut warc = Hashing::new(&mut zip);
    let mut info = vec![
        format!("software: casebook {}", env!("CARGO_PKG_VERSION")),
        "format: WARC File Format 1.0".to_string(),
        format!("isPartOf: {base}"),
        format!("casebook-merkle-root: {}", verified.merkle_root),
    ];
    if let Some(release) = verified.release.as_ref().and_then(|r| r.label.as_ref()) {
        info.push(format!(
            "casebook-release-label: {}",
            super::one_line(release)
        ));
    }
    if let Some(key) = &public_key {
        info.push(format!("casebook-public-key: {}", key.to_base64()));
    }
    let body = info.join("\r\n") + "\r\n";
    let warcinfo = gzip_record(
        &[
            ("WARC-Type", "warcinfo".into()),
            ("WARC-Date", iso(date)),
            ("WARC-Filename", WARC_NAME.into()),
            ("WARC-Record-ID", record_id(&date, "warcinfo", WARC_NAME)),
            ("Content-Type", "application/warc-fields".into()),
        ],
        &[body.as_bytes()],
    );
    warc.write_all(&warcinfo).map_err(io_error)?;

    let mut indexed = Vec::new();
    let mut bytes = 0u64;
    for batch in files.chunks(BATCH) {
        let records: Vec<(Vec<u8>, Vec<Indexed>, u64)> = batch
            .par_iter()
            .map(|rel| file_records(site, rel, &base, date))
            .collect::<Result<_>>()?;
        for (compressed, mut entries, size) in records {
            bytes += size;
            // A file's records are written back to back; each entry knows its own length.
            let mut offset = warc.bytes;
            for entry in &mut entries {
                entry.offset = offset;
                offset += entry.length;
            }
            warc.write_all(&compressed).map_err(io_error)?;
            indexed.extend(entries);
        }
    }
    resources.push(warc.resource(format!("archive/{WARC_NAME}")));

    let ts = date.format("%Y%m%d%H%M%S").to_string();
    let mut lines: Vec<(String, String)> = indexed
        .iter()
        .map(|e| {
            let fields = serde_json::json!({
                "url": e.url,
                "mime": if e.revisit { "warc/revisit" } else { e.mime.as_str() },
                "status": "200",
                "digest": e.digest,
                "length": e.length.to_string(),
                "offset": e.offset.to_string(),
                "filename": WARC_NAME,
            });
            (surt(&e.url), fields.to_string())
        })
        .collect();
    lines.sort();
    let cdx: String = lines
        .iter()
        .map(|(key, fields)| format!("{key} {ts} {fields}\n"))
        .collect();

    let mut pages: Vec<&Indexed> = indexed.iter().filter(|e| e.title.is_some()).collect();
    // The home page first: it is where a replay opens.
    pages.sort_by_key(|e| (e.url != base, e.url.clone()));
    let mut page_list = serde_json::json!({
        "format": "json-pages-1.0", "id": "pages", "title": "All pages"
    })
    .to_string()
        + "\n";
    for page in pages {
        let line = serde_json::json!({
            "id": &hex(&Sha256::digest(page.url.as_bytes()))[..32],
            "url": page.url,
            "ts": iso(date),
            "title": page.title,
        });
        page_list += &(line.to_string() + "\n");
    }

    for (path, text) in [("indexes/index.cdx", cdx), ("pages/pages.jsonl", page_list)] {
        zip.start_file(path, deflated).map_err(zip_error)?;
        let mut part = Hashing::new(&mut zip);
        part.write_all(text.as_bytes()).map_err(io_error)?;
        resources.push(part.resource(path.to_string()));
    }

    let mut package = serde_json::json!({
        "profile": "data-package",
        "resources": resources,
        "wacz_version": "1.1.1",
        "software": format!("casebook {}", env!("CARGO_PKG_VERSION")),
        "created": iso(date),
        "title": page_title(&home_html),
        "mainPageURL": base,
        "mainPageDate": iso(date),
        "casebook": {
            "merkleRoot": verified.merkle_root,
            "releaseLabel": verified.release.as_ref().and_then(|r| r.label.clone()),
            "publicKey": public_key.as_ref().map(|k| k.to_base64()),
        },
    });
    if package["title"].is_null() {
        package.as_object_mut().map(|p| p.remove("title"));
    }
    let package = serde_json::to_string_pretty(&package).expect("JSON values serialize");
    zip.start_file("datapackage.json", deflated)
        .map_err(zip_error)?;
    zip.write_all(package.as_bytes()).map_err(io_error)?;
    let digest = serde_json::json!({
        "path": "datapackage.json",
        "hash": format!("sha256:{}", hex(&Sha256::digest(package.as_bytes()))),
    });
    zip.start_file("datapackage-digest.json", deflated)
        .map_err(zip_error)?;
    zip.write_all(
        serde_json::to_string_pretty(&digest)
            .unwrap_or_default()
            .as_bytes(),
    )
    .map_err(io_error)?;
    finish_zip(zip, &partial, out)?;
    Ok(Packed {
        files: files.len(),
        bytes,
        merkle_root: verified.merkle_root,
        signed: public_key.is_some(),
    })
}

/// `SOURCE_DATE_EPOCH` (seconds since 1970, the reproducible-builds convention), else now.
fn capture_date() -> Result<DateTime<Utc>> {
    match std::env::var("SOURCE_DATE_EPOCH") {
        Ok(text) => text
            .trim()
            .parse::<i64>()
            .ok()
            .and_then(|s| DateTime::from_timestamp(s, 0))
            .ok_or_else(|| {
                Error::one(
                    Diagnostic::new("SOURCE_DATE_EPOCH", format!("`{text}` is not a time"))
                        .hint("give whole seconds since 1970-01-01 UTC, e.g. SOURCE_DATE_EPOCH=$(git log -1 --format=%ct)"),
                )
            }),
        Err(_) => Ok(DateTime::from_timestamp(Utc::now().timestamp(), 0).unwrap_or_default()),
    }
}

/// The site's address: the home page's canonical link, which the build writes from
/// `base_url`.
fn base_url(home: &Path, html: &str) -> Result<String> {
    let canonical = html.split("<link").skip(1).find_map(|tag| {
        let tag = &tag[..tag.find('>')?];
        if !tag.contains("rel=canonical") && !tag.contains("rel=\"canonical\"") {
            return None;
        }
        let rest = &tag[tag.find("href=")? + 5..];
        let rest = rest.trim_start_matches('"');
        let end = rest.find(['"', ' ']).unwrap_or(rest.len());
        Some(rest[..end].to_string())
    });
    match canonical {
        Some(url) if url.starts_with("http://") || url.starts_with("https://") => {
            Ok(if url.ends_with('/') { url } else { url + "/" })
        }
        _ => Err(Error::one(
            Diagnostic::new(home, "the home page has no canonical address, so the archive cannot say where its pages were")
                .hint("set base_url in casebook.toml and build again"),
        )),
    }
}

/// The WARC records of one file, gzipped one by one: its response, and for a page its
/// revisit under `index.html`. Returns them with their index entries and the file's size.
fn file_records(
    site: &Path,
    rel: &Path,
    base: &str,
    date: DateTime<Utc>,
) -> Result<(Vec<u8>, Vec<Indexed>, u64)> {
    let path = site.join(rel);
    let body = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
    let url_path = url_path(rel);
    let is_page = rel.file_name().is_some_and(|n| n == "index.html");
    let file_url = format!("{base}{url_path}");
    let url = if is_page {
        format!("{base}{}", &url_path[..url_path.len() - "index.html".len()])
    } else {
        file_url.clone()
    };
    let mime = mime(rel);
    let http = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: {mime}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let digest = format!("sha256:{}", hex(&Sha256::digest(&body)));
    // The block is the HTTP head and the file, hashed and compressed as two pieces.
    let block_digest = Sha256::new()
        .chain_update(http.as_bytes())
        .chain_update(&body)
        .finalize();
    let response = gzip_record(
        &[
            ("WARC-Type", "response".into()),
            ("WARC-Target-URI", url.clone()),
            ("WARC-Date", iso(date)),
            ("WARC-Record-ID", record_id(&date, "response", &url)),
            ("WARC-Payload-Digest", digest.clone()),
            (
                "WARC-Block-Digest",
                format!("sha256:{}", hex(&block_digest)),
            ),
            ("Content-Type", "application/http; msgtype=response".into()),
        ],
        &[http.as_bytes(), &body],
    );
    let title = if mime.starts_with("text/html") {
        page_title(&String::from_utf8_lossy(&body))
    } else {
        None
    };
    let bare_mime = mime.split(';').next().unwrap_or_default().to_string();
    let mut entries = vec![Indexed {
        url: url.clone(),
        mime: bare_mime.clone(),
        digest: digest.clone(),
        offset: 0,
        length: response.len() as u64,
        revisit: false,
        title: title.filter(|_| is_page),
    }];
    let mut out = response;
    if is_page {
        let revisit = gzip_record(
            &[
                ("WARC-Type", "revisit".into()),
                ("WARC-Target-URI", file_url.clone()),
                ("WARC-Date", iso(date)),
                ("WARC-Record-ID", record_id(&date, "revisit", &file_url)),
                (
                    "WARC-Profile",
                    "http://netpreserve.org/warc/1.0/revisit/identical-payload-digest".into(),
                ),
                ("WARC-Refers-To", record_id(&date, "response", &url)),
                ("WARC-Refers-To-Target-URI", url.clone()),
                ("WARC-Refers-To-Date", iso(date)),
                ("WARC-Payload-Digest", digest.clone()),
                ("Content-Type", "application/http; msgtype=response".into()),
            ],
            &[http.as_bytes()],
        );
        entries.push(Indexed {
            url: file_url,
            mime: bare_mime,
            digest,
            offset: 0,
            length: revisit.len() as u64,
            revisit: true,
            title: None,
        });
        out.extend_from_slice(&revisit);
    }
    Ok((out, entries, body.len() as u64))
}

/// A WARC/1.0 record (the named headers, then Content-Length, then the block, given in
/// pieces) as one gzip member, with no file name and time 0: the same record compresses to
/// the same bytes. The record is compressed whole, in one piece: deflate's output depends
/// on how its input is cut.
fn gzip_record(headers: &[(&str, String)], block: &[&[u8]]) -> Vec<u8> {
    let length: usize = block.iter().map(|piece| piece.len()).sum();
    let mut record = b"WARC/1.0\r\n".to_vec();
    for (name, value) in headers {
        record.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
    }
    record.extend_from_slice(format!("Content-Length: {length}\r\n\r\n").as_bytes());
    record.reserve(length + 4);
    for piece in block {
        record.extend_from_slice(piece);
    }
    record.extend_from_slice(b"\r\n\r\n");
    let mut encoder = flate2::write::GzEncoder::new(
        Vec::with_capacity(record.len() / 2 + 64),
        flate2::Compression::new(6),
    );
    encoder.write_all(&record).expect("writing to memory");
    encoder.finish().expect("writing to memory")
}

/// A record's ID: a UUID made from what the record is, so a repacking gives the same one.
fn record_id(date: &DateTime<Utc>, kind: &str, url: &str) -> String {
    let h = Sha256::digest(format!("{}\n{kind}\n{url}", iso(*date)).as_bytes());
    let mut b = [0u8; 16];
    b.copy_from_slice(&h[..16]);
    b[6] = (b[6] & 0x0f) | 0x50; // version 5 layout: derived from a name, not random
    b[8] = (b[8] & 0x3f) | 0x80;
    let x = hex(&b);
    format!(
        "<urn:uuid:{}-{}-{}-{}-{}>",
        &x[..8],
        &x[8..12],
        &x[12..16],
        &x[16..20],
        &x[20..]
    )
}

fn iso(date: DateTime<Utc>) -> String {
    date.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// A file's path as a URL path.
fn url_path(rel: &Path) -> String {
    crate::html::percent_encode_path(&slash_path(rel))
}

fn mime(rel: &Path) -> String {
    let guess = mime_guess::from_path(rel).first_or_octet_stream();
    let essence = guess.essence_str();
    if essence.starts_with("text/")
        || [
            "application/javascript",
            "application/json",
            "application/xml",
        ]
        .contains(&essence)
        || essence.ends_with("+xml")
    {
        format!("{essence}; charset=utf-8")
    } else {
        essence.to_string()
    }
}

/// The text of a page's `<title>`, its character references decoded.
fn page_title(html: &str) -> Option<String> {
    let start = html.find("<title")?;
    let after = start + html[start..].find('>')? + 1;
    let end = after + html[after..].find("</title>")?;
    Some(crate::html::decode_entities(html[after..end].trim()))
}

/// The SURT form of a URL, as CDXJ indexes sort by and replay tools look up: the host's
/// labels (or an IP address's numbers) reversed, without `www.` and a default port, then the path in its canonical
/// escaping (see `canonical_path`) without its trailing slash, all lowercase.
fn surt(url: &str) -> String {
    let lower = url.to_ascii_lowercase();
    let (scheme, rest) = lower.split_once("://").unwrap_or(("http", &lower));
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let host = match scheme {
        "http" => host.strip_suffix(":80").unwrap_or(host),
        "https" => host.strip_suffix(":443").unwrap_or(host),
        _ => host,
    };
    let host = host.strip_prefix("www.").unwrap_or(host);
    let (name, port) = host.split_at(host.find(':').unwrap_or(host.len()));
    // IP addresses too, as the SURT tools do by default.
    let reversed = name.split('.').rev().collect::<Vec<_>>().join(",");
    let path = canonical_path(path).to_ascii_lowercase();
    let path = match path.as_str() {
        "" | "/" => "/",
        p => p.strip_suffix('/').unwrap_or(p),
    };
    format!("{reversed}{port}){path}")
}

/// A path as the SURT canonicalizer writes it, so that every spelling of one address has one
/// key: escapes undone (repeatedly), then only bytes outside printable ASCII, `#` and `%`
/// escaped again.
fn canonical_path(path: &str) -> String {
    let mut bytes = path.as_bytes().to_vec();
    loop {
        let decoded = crate::html::percent_decode_bytes(&bytes);
        if decoded == bytes {
            break;
        }
        bytes = decoded;
    }
    let mut out = String::with_capacity(bytes.len());
    for byte in bytes {
        if byte.is_ascii_graphic() && byte != b'#' && byte != b'%' {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// A writer that hashes and counts what passes through: a WACZ resource's SHA-256 and size.
struct Hashing<W: Write> {
    inner: W,
    hasher: Sha256,
    bytes: u64,
}

impl<W: Write> Hashing<W> {
    fn new(inner: W) -> Self {
        Hashing {
            inner,
            hasher: Sha256::new(),
            bytes: 0,
        }
    }

    fn resource(self, path: String) -> serde_json::Value {
        let name = PathBuf::from(&path)
            .file_name()
            .map(|n| n.to_string_lossy().to_lowercase())
            .unwrap_or_default();
        serde_json::json!({
            "name": name,
            "path": path,
            "hash": format!("sha256:{}", hex(&self.hasher.finalize())),
            "bytes": self.bytes,
        })
    }
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surt_keys_sort_like_the_web_archiving_tools() {
        assert_eq!(surt("https://example.org/"), "org,example)/");
        assert_eq!(surt("https://example.org/cases/"), "org,example)/cases");
        assert_eq!(
            surt("https://www.Example.org:443/caesar/a%20b/x.js"),
            "org,example)/caesar/a%20b/x.js"
        );
        assert_eq!(
            surt("https://example.org/ar/%D8%A7/"),
            "org,example)/ar/%d8%a7"
        );
        assert_eq!(surt("http://127.0.0.1:8000/a/"), "1,0,0,127:8000)/a");
        // Escapes as the SURT canonicalizer writes them: only what must be escaped, once.
        assert_eq!(
            surt("https://example.org/a%20b%2Bc~%D9%85%281%29.txt"),
            "org,example)/a%20b+c~%d9%85(1).txt"
        );
        assert_eq!(
            surt("https://example.org/100%2541%23x"),
            "org,example)/100a%23x"
        );
    }

    #[test]
    fn paths_become_url_paths() {
        assert_eq!(url_path(Path::new("a b/ا.html")), "a%20b/%D8%A7.html");
        assert_eq!(
            url_path(Path::new("cases/c-1/index.html")),
            "cases/c-1/index.html"
        );
    }

    #[test]
    fn titles_are_read_and_decoded() {
        assert_eq!(
            page_title("<head><title>A &amp; B</title>").as_deref(),
            Some("A & B")
        );
        assert_eq!(page_title("<p>none</p>"), None);
    }

    #[test]
    fn record_ids_are_uuids_fixed_by_what_they_name() {
        let date = DateTime::from_timestamp(0, 0).unwrap();
        let id = record_id(&date, "response", "https://example.org/");
        assert_eq!(id, record_id(&date, "response", "https://example.org/"));
        assert_ne!(id, record_id(&date, "revisit", "https://example.org/"));
        assert_eq!(id.len(), "<urn:uuid:>".len() + 36);
        assert_eq!(&id[24..25], "5");
    }
}
