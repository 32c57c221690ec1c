//! The time-stamp tokens beside a copy's signature (`manifest.json.minisig.<n>.tsr`), each
//! checked offline against the signature's bytes and the anchors given.

use std::path::PathBuf;

use super::{Copy, Fetched, SIGNATURE_LIMIT};
use crate::error::{Diagnostic, Error, Result};
use crate::signing::SIGNATURE_FILE;
use crate::timestamp::{self, Anchors, Stamp};

/// The most tokens looked for on a copy fetched over HTTP (a folder is listed).
const MOST_TOKENS: usize = 8;
/// The largest token read.
const TOKEN_LIMIT: u64 = 1 << 20;

/// The anchors in `files` (PEM or DER certificates).
pub(crate) fn anchors(files: &[PathBuf]) -> Result<Anchors> {
    let mut anchors = Anchors::default();
    for file in files {
        let bytes = std::fs::read(file).map_err(|e| Error::io(file, e))?;
        let found = Anchors::parse(&bytes).map_err(|m| {
            Error::one(
                Diagnostic::new(file, format!("not a certificate: {m}"))
                    .field("--tsa-cert")
                    .hint("give the time-stamp authority's root certificate, as PEM or DER, from a source you trust"),
            )
        })?;
        anchors.extend(found);
    }
    Ok(anchors)
}

/// The token files a copy carries, in order.
fn token_files(copy: &Copy) -> Vec<String> {
    match copy {
        Copy::Dir(dir) => {
            let mut found: Vec<(usize, String)> = std::fs::read_dir(dir)
                .into_iter()
                .flatten()
                .flatten()
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|name| timestamp::is_token_file(SIGNATURE_FILE, name))
                .filter_map(|name| number(&name).map(|n| (n, name)))
                .collect();
            found.sort();
            found.into_iter().map(|(_, name)| name).collect()
        }
        Copy::Web(_) => (1..=MOST_TOKENS)
            .map(|n| timestamp::token_file(SIGNATURE_FILE, n))
            .collect(),
    }
}

fn number(name: &str) -> Option<usize> {
    let rest = name.strip_prefix(SIGNATURE_FILE)?.strip_prefix('.')?;
    rest.strip_suffix(".tsr")?.parse().ok()
}

/// Every token of the copy, checked; a token that does not hold fails the copy.
pub(super) fn check(copy: &Copy, anchors: &Anchors) -> Result<Vec<Stamp>> {
    let mut tokens = Vec::new();
    for name in token_files(copy) {
        match copy.fetch(&name, TOKEN_LIMIT) {
            Fetched::Bytes(bytes) => tokens.push((name, bytes)),
            Fetched::Missing => {}
            Fetched::Failed(m) => return Err(Error::one(Diagnostic::new(copy.locate(&name), m))),
        }
    }
    if tokens.is_empty() {
        return Ok(Vec::new());
    }
    let signature = copy.required(
        SIGNATURE_FILE,
        SIGNATURE_LIMIT,
        "the signature the time-stamp tokens beside it are over",
    )?;
    let mut stamps = Vec::new();
    let mut problems = Vec::new();
    for (name, bytes) in tokens {
        match timestamp::check(&bytes, &signature, anchors) {
            Ok(stamp) => stamps.push(stamp),
            Err(m) => problems.push(
                Diagnostic::new(copy.locate(&name), format!("time-stamp token: {m}")).hint(
                    "the token must be over this copy's manifest.json.minisig, signed by an authority whose root you gave with --tsa-cert",
                ),
            ),
        }
    }
    if problems.is_empty() {
        Ok(stamps)
    } else {
        Err(Error::Diagnostics(problems))
    }
}
