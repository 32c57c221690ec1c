//! The time-stamp authorities' tokens over a signed release's signature file
//! (`manifest.json.minisig.<n>.tsr`, `build --sign --tsa URL`).
//!
//! A token says the signature existed no later than its time, so the earliest one is worth
//! the most: a signed rebuild of the very same release keeps the tokens this machine
//! received for it instead of asking again. What was received is kept in a record sealed
//! with the output folder's key, and a token is kept only while the output still holds
//! those exact bytes; a token found in the output folder without that record (brought in,
//! or changed) is never published again.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::release::Signing;
use crate::cache_file::{Reader, Writer};
use crate::error::{Diagnostic, Error, Result};
use crate::output::{self, Output};
use crate::signing::SIGNATURE_FILE;
use crate::timestamp;

/// The record's file, in the cache folder.
const FILE: &str = "tokens.bin";
const MAGIC: &[u8] = b"casebook-tokens-1\n";
/// The largest token read back from the output.
const TOKEN_LIMIT: u64 = 1 << 20;

/// One token received: from which authority, over which signature, with which bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Received {
    url: String,
    signature: [u8; 32],
    token: [u8; 32],
}

/// What this machine received for one output folder.
#[derive(Debug)]
pub(crate) struct Record {
    file: PathBuf,
    out: PathBuf,
    received: Vec<Received>,
}

impl Record {
    /// The record of the output folder `out`, kept in the cache folder `cache`.
    pub(super) fn of(cache: &Path, out: &Path) -> Record {
        let file = cache.join(FILE);
        let received = output::sealed::load(&file, out)
            .and_then(|body| parse(&body))
            .unwrap_or_default();
        Record {
            file,
            out: out.to_path_buf(),
            received,
        }
    }

    /// The `n`th token in the output, if it is what this machine received from `url` over
    /// the signature whose SHA-256 is `signature`.
    fn kept(&self, url: &str, signature: &[u8; 32], n: usize) -> Option<Vec<u8>> {
        let entry = self
            .received
            .iter()
            .find(|r| r.url == url && &r.signature == signature)?;
        let path = self.out.join(timestamp::token_file(SIGNATURE_FILE, n));
        let meta = std::fs::symlink_metadata(&path).ok()?;
        if !meta.is_file() || meta.len() > TOKEN_LIMIT {
            return None;
        }
        let bytes = std::fs::read(&path).ok()?;
        (sha256(&bytes) == entry.token).then_some(bytes)
    }

    /// Records that the output folder now holds the tokens `received` (once it is written).
    pub(crate) fn save(&self, received: &[Received]) {
        let mut w = Writer::new(MAGIC);
        w.u32(received.len() as u32);
        for r in received {
            w.bytes(r.url.as_bytes());
            w.raw(&r.signature);
            w.raw(&r.token);
        }
        output::sealed::save(&self.file, &self.out, &w.finish());
    }
}

fn parse(body: &[u8]) -> Option<Vec<Received>> {
    let mut r = Reader::open(body, MAGIC)?;
    let count = r.u32()?;
    let mut received = Vec::new();
    for _ in 0..count {
        let url = String::from_utf8(r.bytes()?.to_vec()).ok()?;
        let signature = r.raw(32)?.try_into().ok()?;
        let token = r.raw(32)?.try_into().ok()?;
        received.push(Received {
            url,
            signature,
            token,
        });
    }
    r.is_empty().then_some(received)
}

fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// The tokens of the time-stamp authorities over the signature file `signature`
/// (`manifest.json.minisig.<n>.tsr`), numbered from 1 in the order given: kept from the
/// last build into the same folder (`record`) when they stamp this very signature, else
/// asked for. An authority that fails stops the build, or with `--tsa-optional` is
/// returned as a warning (its number left out, so a later token keeps its place). Also
/// returns what was received, for `Record::save` once the output is written.
pub(super) fn tokens(
    signing: &Signing,
    signature: &Output,
    record: Option<&Record>,
) -> Result<(Vec<Output>, Vec<Diagnostic>, Vec<Received>)> {
    let bytes = signature
        .read()
        .map_err(|e| Error::io(Path::new(SIGNATURE_FILE), e))?;
    let signed = sha256(&bytes);
    let mut tokens = Vec::new();
    let mut received = Vec::new();
    let mut problems = Vec::new();
    for (at, url) in signing.authorities.iter().enumerate() {
        let n = at + 1;
        let kept = record.and_then(|r| r.kept(url, &signed, n));
        let answer = match kept {
            Some(token) => Ok(token),
            None => timestamp::request(url, &bytes).map(|(token, _)| token),
        };
        match answer {
            Ok(token) => {
                received.push(Received {
                    url: url.clone(),
                    signature: signed,
                    token: sha256(&token),
                });
                tokens.push(Output::bytes(
                    timestamp::token_file(SIGNATURE_FILE, n),
                    token,
                ));
            }
            Err(message) => {
                let problem = Diagnostic::new(url.as_str(), format!("time-stamp authority {n}: {message}"))
                    .field("--tsa")
                    .hint("check the address (an RFC 3161 service answers POSTs of application/timestamp-query), try again later, or add --tsa-optional to publish without this authority's token");
                problems.push(problem);
            }
        }
    }
    if !problems.is_empty() && !signing.authorities_optional {
        return Err(Error::Diagnostics(problems));
    }
    Ok((tokens, problems, received))
}
