//! casebook: a static archive site generator for evidence archives.
//!
//! One build is a pipeline of plain data, written once in `site` and shared by
//! `casebook build`, `check` and `serve`: configuration → content and theme → images →
//! pages → search index → whole-site files → manifest. Each stage takes what the previous
//! one produced and returns new data, so stages can be tested alone, `serve` can redo only
//! what a change affects, and a failed stage leaves the previous site untouched.
//!
//! The library's face is small: [`build`], [`check`], [`verify`], [`init()`] and
//! [`serve::start`], their options and reports, and [`Error`] with its [`Diagnostic`]s.

mod beneath;
mod cache_file;
mod casefile;
mod charts;
mod check;
mod config;
mod content;
mod error;
mod fault;
mod hashing;
mod html;
mod images;
mod import;
mod init;
mod integrity;
mod locale;
mod markdown;
mod output;
mod package;
mod paths;
mod public_key;
mod render;
mod search;
pub mod serve;
mod signing;
mod site;
mod theme;
mod timestamp;
mod timing;
mod verify;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub use error::{Diagnostic, Error, Result, report};
pub use html::percent_decode;
pub use images::{Progress, Reviews, Shard, Unreviewed};
pub use import::{FieldChange, ImportOptions, ImportReport, import, template};
pub use init::{Ci, DEFAULT_SHARDS, InitOptions, MAX_SHARDS, init};
pub use package::Packed;
pub use signing::{KeyFiles, PublicKey, SigningKey, key_is_encrypted, keygen};
pub use site::memory::{FROM_NOTHING, return_freed_after};
pub use site::{BuildOptions, Notice, Notices, Signing};
pub use timestamp::Stamp;
use timing::Stopwatch;
pub use verify::{RedactionsVerified, ReleaseInfo, Verified, VerifyOptions};

/// What a build produced, for the summary line.
#[derive(Debug, Clone)]
pub struct BuildReport {
    /// Where the site was written (empty for `check`).
    pub output: PathBuf,
    /// HTML pages, every language and every page of every list.
    pub pages: usize,
    /// Case records, counted once whatever the number of languages they are shown in.
    pub cases: usize,
    /// Files of the site, pages included.
    pub files: usize,
    /// Pages rendered: a build leaves pages whose inputs did not change as it published them.
    pub rendered: usize,
    /// Files of the output folder written or removed.
    pub changed: usize,
    /// Photographs derived by this build rather than found in the image cache.
    pub photos_derived: usize,
    /// Wall time of each stage, in order, for `--timings`.
    pub timings: Vec<(&'static str, Duration)>,
    /// Which photographs are reviewed (`[images] require_review`, `casebook check`).
    pub reviews: Reviews,
    /// Nothing changed since the last build of this output folder: nothing was loaded or
    /// written, and the counts are that build's.
    pub up_to_date: bool,
}

/// Builds the site and swaps it into the output folder; when nothing changed since the
/// last build of that folder, checks that and does nothing else (`up_to_date`).
pub fn build(options: &BuildOptions) -> Result<BuildReport> {
    let out = options
        .output
        .clone()
        .unwrap_or_else(|| options.root.join("public"));
    let mut before = match site::up_to_date::check(options, &out)? {
        Ok(unchanged) => {
            return Ok(BuildReport {
                timings: unchanged.timings,
                output: out,
                pages: unchanged.pages,
                cases: unchanged.cases,
                files: unchanged.files,
                rendered: 0,
                changed: 0,
                photos_derived: 0,
                reviews: unchanged.reviews,
                up_to_date: true,
            });
        }
        Err(before) => before,
    };
    // The warnings are recorded, to be told again by a build with nothing to do.
    let warnings = Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut options = options.clone();
    let told = options.notices.take();
    let heard = warnings.clone();
    options.notices = Some(Notices(Arc::new(move |notice| {
        if let Notice::Warning(d) = &notice {
            heard.lock().expect("warnings lock").push(d.clone());
        }
        Notices::tell(told.as_ref(), notice);
    })));
    let session = site::Session::with_options(options)
        .publishing_to(out.clone())
        .with_content_files(before.content_files.take());
    // The output's lock is held until the build is recorded.
    let (mut lock, mut files_written) = (None, None);
    let walked = before.walked;
    let mut report = run(session, "write", |session| {
        let mut publishing = session.take_publishing().unwrap_or_default();
        lock = publishing.lock.take();
        let built = session.state().expect("a build that succeeded");
        let prior = publishing.prior.as_deref().expect("scanned by the build");
        let mut files: Vec<&output::Output> = built.files.values().map(Arc::as_ref).collect();
        files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        let unwritable = output::unwritable_paths(&out, files.iter().map(|o| o.path.as_str()));
        if !unwritable.is_empty() {
            return Err(Error::Diagnostics(unwritable));
        }
        let record = site::cache_file(&built.config, output::RECORD_FILE);
        let staged = publishing.stage.map(output::Stage::finish).transpose()?;
        let (fingerprints, digests) = (&publishing.fingerprints, &publishing.digests);
        let written = output::write(&files, prior, fingerprints, digests, &record, staged)?;
        files_written = Some(written.files);
        let saved = std::mem::take(&mut publishing.saving).into_iter();
        for unsealed in std::mem::take(&mut publishing.unsealed)
            .into_iter()
            .chain(saved.filter_map(output::sealed::Saving::finish))
        {
            unsealed.seal(&out);
        }
        if let Some((tokens, received)) = publishing.tokens.take() {
            tokens.save(&received);
        }
        Ok((out.clone(), written.changed, written.timings))
    })?;
    let mut watch = Stopwatch::start();
    let counts = (report.pages, report.cases, report.files);
    let warnings = warnings.lock().expect("warnings lock");
    let files = files_written.expect("recorded by the write");
    site::up_to_date::record(&before, &out, &files, counts, &report.reviews, &warnings);
    drop(lock);
    watch.lap("record");
    report.timings.extend(watch.laps);
    report.timings.insert(0, ("sources walked", walked));
    Ok(report)
}

/// What one shard of a CI job matrix derived (`casebook build --shard I/N`).
#[derive(Debug, Clone)]
pub struct ShardReport {
    /// Which part this was.
    pub shard: Shard,
    /// The photographs of this shard.
    pub photos: usize,
    /// Of those, how many were derived rather than found in the cache.
    pub derived: usize,
    /// The photographs of the whole site.
    pub total: usize,
    /// The image cache folder the shard wrote to.
    pub cache: PathBuf,
}

/// Derives one part of the site's photographs into the image cache, for a CI job matrix;
/// writes no site. A build over the merged caches of all the parts then derives nothing.
pub fn build_shard(options: &BuildOptions, shard: Shard) -> Result<ShardReport> {
    let (part, total, cache) = site::derive_shard(options, shard)?;
    Ok(ShardReport {
        shard,
        photos: part.len(),
        derived: part.derived,
        total,
        cache,
    })
}

/// Loads, validates and renders everything, checks every internal link and audits what
/// would be published (and the built output, if any) for leaks; writes nothing.
pub fn check(options: &BuildOptions) -> Result<BuildReport> {
    let session = site::Session::with_options(options.clone()).keeping_html();
    run(session, "check and audit", |session| {
        let built = session.state().expect("a build that succeeded");
        let public = options.root.join("public");
        let mut problems = check::site(built, &public);
        problems.extend(output::unwritable_paths(
            &public,
            built.files.keys().map(String::as_str),
        ));
        if problems.is_empty() {
            Ok((PathBuf::new(), 0, Vec::new()))
        } else {
            Err(Error::Diagnostics(problems))
        }
    })
}

type Timings = Vec<(&'static str, Duration)>;

/// Builds once through the pipeline, then hands the session to `last` (timed as `step`),
/// which returns where the site went, how many of its files it changed, and the timings of
/// its parts if it has them.
fn run(
    mut session: site::Session,
    step: &'static str,
    last: impl FnOnce(&mut site::Session) -> Result<(PathBuf, usize, Timings)>,
) -> Result<BuildReport> {
    let update = session.build_all(&[])?;
    let mut watch = Stopwatch::start();
    let (output, changed, parts) = last(&mut session)?;
    watch.lap(step);
    // A step that times its own parts shows them instead.
    if !parts.is_empty() {
        watch.laps = parts;
    }
    let built = session.state().expect("a build that succeeded");
    let mut timings = update.timings;
    timings.extend(watch.laps);
    let report = BuildReport {
        timings,
        output,
        pages: update.pages,
        cases: built.corpus.case_count(&built.config),
        files: built.files.len(),
        rendered: update.rendered,
        changed,
        photos_derived: built.images.derived,
        reviews: built.images.reviews(&built.corpus),
        up_to_date: false,
    };
    // Freeing a whole site's pages and files takes a tenth of a second at 11,000 cases:
    // done aside, so the command line exits without waiting for it.
    std::thread::spawn(move || drop(session));
    Ok(report)
}

/// Packs the built site in `site` into a new BagIt 1.0 bag at `bag`, after verifying it.
pub fn package_bag(site: &std::path::Path, bag: &std::path::Path) -> Result<Packed> {
    package::bag(site, bag)
}

/// Packs a `--portable` build in `site` into one zip file at `out`, after verifying it.
pub fn package_zip(site: &std::path::Path, out: &std::path::Path) -> Result<Packed> {
    package::zip(site, out)
}

/// Packs a built site for a server (verified first) into a new WACZ web archive at `out`.
pub fn package_wacz(site: &std::path::Path, out: &std::path::Path) -> Result<Packed> {
    package::wacz(site, out)
}

/// Checks a built, downloaded or mirrored copy of a site: its signature (with a public
/// key), its Merkle root and its files, or one case through its proof.
pub fn verify(options: &VerifyOptions) -> Result<Verified> {
    verify::verify(options)
}

/// The time-stamp authorities' root certificates a site folder names (`[signing] tsa_certs`
/// of `root/casebook.toml`); none when there is no such file.
pub fn trusted_time_stamp_roots(root: &std::path::Path) -> Result<Vec<std::path::PathBuf>> {
    if !root.join(config::CONFIG_FILE).is_file() {
        return Ok(Vec::new());
    }
    Ok(config::Config::load(root)?.tsa_certs)
}

/// Checks, in the published pixels of a copy of a site (a folder or an address), that
/// every `fill` redaction the manifest lists is solid in its colour, within JPEG's loss.
pub fn verify_redactions(target: &str) -> Result<RedactionsVerified> {
    verify::verify_redactions(target)
}
