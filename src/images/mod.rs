//! Evidence photographs: plan the work, derive safe images (in parallel, through a
//! content-addressed cache), and describe what was published for pages and the manifest.
//!
//! Planning collects every `[[photos]]` entry of the corpus into jobs; a job's cache key is
//! the source's SHA-256 plus the operation plus the pipeline version, so an unchanged photo
//! is never decoded twice and a changed redaction re-derives that photo alone.

mod budget;
mod cache;
pub(crate) mod decode;
pub(crate) mod fill;
mod jpeg_scans;
mod jpeg_seal;
mod kept;
pub(crate) mod pipeline;
mod review;
mod warm;
pub(crate) mod workbench;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::iter::Either;
use rayon::prelude::*;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::config::Config;
use crate::content::Corpus;
use crate::content::photos::{PhotoSpec, Region};
use crate::error::{Diagnostic, Diagnostics, Result};
use crate::hashing::hex;
use crate::output::{Data, Output, Prior};
pub(crate) use kept::{Kept, run_kept};
pub use review::{Reviews, Unreviewed};
pub(crate) use warm::Warm;

/// Changing how pixels are produced must change every cache key.
pub(crate) const PIPELINE_VERSION: &str = "casebook-images-5";

/// One published image file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Published {
    /// Root-relative URL path (`/cases/syn-0001/photo-1.3f9a2c1d.400.jpg`).
    pub(crate) path: String,
    pub(crate) width: u32,
    pub(crate) height: u32,
    #[serde(skip)]
    pub sha256: String,
    #[serde(skip)]
    pub(crate) size: u64,
    #[serde(skip)]
    pub(crate) cache_file: PathBuf,
}

/// What one photograph became.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PhotoOutput {
    pub(crate) source: PathBuf,
    pub source_sha256: String,
    /// Ascending widths.
    pub(crate) sizes: Vec<Published>,
    pub(crate) placeholder: Published,
    pub(crate) redactions: Vec<Region>,
    /// The colour `fill` regions are filled with.
    pub(crate) fill: [u8; 3],
    pub(crate) quality: u8,
}

/// Every photograph of the site, looked up by `PhotoSpec::key`.
#[derive(Debug, Clone, Default)]
pub(crate) struct ImageSet {
    /// Shared, so that a rebuild in `serve` keeps what it did not change without a copy.
    photos: crate::output::PathMap<Arc<PhotoOutput>>,
    /// How many were derived by this run rather than found in the cache.
    pub(crate) derived: usize,
    /// What the build should be told: a discarded cache index, a damaged cache file.
    pub(crate) warnings: Vec<Diagnostic>,
}

/// One part of the photographs, for a CI job matrix: `--shard 2/4` derives the second of
/// four parts into the image cache. Photographs are dealt out in the order of their keys,
/// so every job of the matrix, reading the same content, takes a different part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// From 1 (as CI systems number their parallel jobs).
    pub index: usize,
    /// How many parts there are.
    pub count: usize,
}

impl Shard {
    fn takes(self, position: usize) -> bool {
        position % self.count == self.index - 1
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> std::result::Result<Shard, String> {
        let bad = || format!("`{text}` is not a shard: give I/N, e.g. 2/4 for the second of four");
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if index == 0 || index > count {
            return Err(format!(
                "shard {index}/{count}: I must be from 1 to N, e.g. 1/{count} to {count}/{count}"
            ));
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl ImageSet {
    pub(crate) fn get(&self, spec: &PhotoSpec) -> Option<&PhotoOutput> {
        self.photos.get(&spec.key).map(Arc::as_ref)
    }

    /// Whether `other` publishes `spec` as this set does (the same output, kept or equal).
    pub(crate) fn same_for(&self, other: &ImageSet, spec: &PhotoSpec) -> bool {
        match (self.photos.get(&spec.key), other.photos.get(&spec.key)) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b) || a == b,
            (a, b) => a.is_none() && b.is_none(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.photos.len()
    }

    /// Sorted by the path of the largest derivative, for deterministic output.
    pub(crate) fn all(&self) -> Vec<&PhotoOutput> {
        let mut v: Vec<&PhotoOutput> = self.photos.values().map(Arc::as_ref).collect();
        v.sort_by(|a, b| a.placeholder.path.cmp(&b.placeholder.path));
        v
    }

    /// The SHA-256 of every source, for the audit ("no published file is a source").
    pub(crate) fn source_hashes(&self) -> rustc_hash::FxHashSet<String> {
        self.photos
            .values()
            .map(|p| p.source_sha256.clone())
            .collect()
    }

    /// Every derivative and placeholder as output files.
    pub(crate) fn outputs(&self) -> Vec<Output> {
        let mut out: Vec<Output> = self
            .photos
            .values()
            .flat_map(|p| files_of(p))
            .map(output_of)
            .collect();
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out.dedup_by(|a, b| a.path == b.path);
        out
    }
}

/// The files a photograph publishes: each size, then the placeholder.
fn files_of(photo: &PhotoOutput) -> impl Iterator<Item = &Published> {
    photo
        .sizes
        .iter()
        .chain(std::iter::once(&photo.placeholder))
}

/// A published image as an output file, copied from the cache.
fn output_of(img: &Published) -> Output {
    Output {
        path: img.path.trim_start_matches('/').to_string(),
        data: Data::Cached {
            file: img.cache_file.clone(),
            sha256: img.sha256.clone(),
            size: img.size,
        },
    }
}

/// A callback told `(done, total)` as photographs are derived, so a front end can show
/// progress; the library itself prints nothing. It is told `(0, total)` before the first,
/// and `total` counts only the photographs the cache does not already hold.
#[derive(Clone)]
pub struct Progress(pub Arc<dyn Fn(usize, usize) + Send + Sync>);

impl Progress {
    /// `images: 5500/55000 (27.5/s, 30m 0s left)`: the rate over the whole run so far,
    /// for a front end that prints lines rather than a bar.
    pub fn line(done: usize, total: usize, elapsed: std::time::Duration) -> String {
        let rate = done as f64 / elapsed.as_secs_f64().max(1e-3);
        let left = (total - done) as f64 / rate;
        let left = match left.round() as u64 {
            s if s >= 3600 => format!("{}h {}m", s / 3600, s % 3600 / 60),
            s if s >= 60 => format!("{}m {}s", s / 60, s % 60),
            s => format!("{s}s"),
        };
        format!("images: {done}/{total} ({rate:.1}/s, {left} left)")
    }
}

impl fmt::Debug for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Progress(..)")
    }
}

struct Job<'a> {
    spec: &'a PhotoSpec,
    /// The URL folder the derivatives are published in.
    dir: String,
}

/// Derives every photograph of the corpus. With `prior`, the output folder it will be
/// written to, each cache file the output gains is checked first (see `recheck`).
pub(crate) fn run(
    config: &Config,
    corpus: &Corpus,
    progress: Option<&Progress>,
    prior: Option<&Prior>,
) -> Result<ImageSet> {
    derive_all(config, plan(config, corpus), progress, None, prior)
}

/// Derives one shard's part of the photographs into the image cache, and saves the shard's
/// own index there; returns what it derived and how many photographs the site has.
pub(crate) fn run_shard(
    config: &Config,
    corpus: &Corpus,
    progress: Option<&Progress>,
    shard: Shard,
) -> Result<(ImageSet, usize)> {
    let jobs = plan(config, corpus);
    let total = jobs.len();
    let part = jobs
        .into_iter()
        .enumerate()
        .filter(|(i, _)| shard.takes(*i))
        .map(|(_, job)| job)
        .collect();
    Ok((
        derive_all(config, part, progress, Some(shard), None)?,
        total,
    ))
}

/// Every photo entry of the corpus as one job per `PhotoSpec::key`.
fn plan<'a>(config: &Config, corpus: &'a Corpus) -> BTreeMap<String, Job<'a>> {
    let mut jobs: BTreeMap<String, Job> = BTreeMap::new();
    for meta in corpus.metas() {
        for spec in &meta.photos {
            // The first page (default language first) publishes; translations link to it.
            jobs.entry(spec.key.clone()).or_insert_with(|| Job {
                spec,
                dir: publish_dir(config, meta),
            });
        }
    }
    jobs
}

/// The URL folder a page's photographs are published in: the page's own, in the default
/// language's tree.
fn publish_dir(config: &Config, meta: &crate::content::Meta) -> String {
    if meta.lang == config.default_language {
        meta.path.clone()
    } else {
        meta.path
            .strip_prefix(&config.language_prefix(&meta.lang))
            .map_or_else(|| meta.path.clone(), |rest| format!("/{rest}"))
    }
}

fn derive_all(
    config: &Config,
    jobs: BTreeMap<String, Job>,
    progress: Option<&Progress>,
    shard: Option<Shard>,
    prior: Option<&Prior>,
) -> Result<ImageSet> {
    if jobs.is_empty() && shard.is_none() {
        return Ok(ImageSet::default());
    }
    let mut cache = cache::Cache::open(&config.root.join(&config.images.cache_dir));
    let resolved = resolve(config, &mut cache, &jobs, progress, prior, None);
    cache.save(shard);
    resolved.finish(crate::output::PathMap::default())
}

/// What `resolve` made of a set of jobs.
struct Resolution {
    results: Vec<Resolved>,
    derived: usize,
    warnings: Vec<Diagnostic>,
}

impl Resolution {
    /// The image set of `photos` (photographs resolved before) and these results, or every
    /// photograph's error.
    fn finish(self, mut photos: crate::output::PathMap<Arc<PhotoOutput>>) -> Result<ImageSet> {
        let mut diags = Diagnostics::default();
        for (key, r) in self.results {
            match r {
                Ok(p) => {
                    photos.insert(key, Arc::new(p));
                }
                Err(d) => diags.push(d),
            }
        }
        diags.finish(ImageSet {
            photos,
            derived: self.derived,
            warnings: self.warnings,
        })
    }
}

/// Resolves every job from `cache`, deriving what it lacks.
fn resolve(
    config: &Config,
    cache: &mut cache::Cache,
    jobs: &BTreeMap<String, Job>,
    progress: Option<&Progress>,
    prior: Option<&Prior>,
    warm: Option<&Warm>,
) -> Resolution {
    let budget = budget::Budget::new(config.images.max_memory);
    // What the cache holds is resolved first, so that the progress counts only the
    // photographs derived: its rate and time left then hold on a run that is mostly cached.
    type Work<'a, 'b> = (String, &'b Job<'a>, Option<String>);
    let (mut results, work): (Vec<Resolved>, Vec<Work>) =
        jobs.par_iter()
            .partition_map(|(key, job)| match from_cache(config, cache, job) {
                Lookup::Done(r) => Either::Left((key.clone(), r)),
                Lookup::Derive(known) => Either::Right((key.clone(), job, known)),
            });
    let total = work.len();
    let done = AtomicUsize::new(0);
    let derived = AtomicUsize::new(0);
    if let Some(progress) = progress {
        (progress.0)(0, total);
    }
    // A worker's bytes pass from one photograph to its next (budget.rs).
    results.extend(budget.each(&work, |keeper, (key, job, known)| {
        let r = derive_one(config, cache, keeper, job, known.clone(), &derived, warm);
        let done = done.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(progress) = progress {
            (progress.0)(done, total);
        }
        (key.clone(), r)
    }));
    let mut warnings = std::mem::take(&mut cache.warnings);
    if let Some(prior) = prior {
        let damaged = Damaged {
            config,
            cache,
            budget: &budget,
            jobs,
            derived: &derived,
        };
        warnings.extend(damaged.recheck(&mut results, prior));
    }
    Resolution {
        results,
        derived: derived.into_inner(),
        warnings,
    }
}

type Resolved = (String, std::result::Result<PhotoOutput, Diagnostic>);

/// What re-deriving a photograph whose cache file was damaged needs.
struct Damaged<'a, 'b> {
    config: &'a Config,
    cache: &'a cache::Cache,
    budget: &'a budget::Budget,
    jobs: &'a BTreeMap<String, Job<'b>>,
    derived: &'a AtomicUsize,
}

impl Damaged<'_, '_> {
    /// Hashes each cache file the output is about to gain (not recorded there with that
    /// hash) that this run did not write itself, and derives again from its source every
    /// photograph with one whose bytes are not those its name records. One warning per
    /// damaged file. A warm build that publishes nothing new hashes nothing.
    fn recheck(&self, results: &mut [Resolved], prior: &Prior) -> Vec<Diagnostic> {
        let mut users: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (i, (_, r)) in results.iter().enumerate() {
            let Ok(photo) = r else { continue };
            for img in photo
                .sizes
                .iter()
                .chain(std::iter::once(&photo.placeholder))
            {
                let path = img.path.trim_start_matches('/');
                if !self.cache.wrote(&img.sha256) && !prior.holds(path, &img.sha256) {
                    users.entry(img.sha256.clone()).or_default().push(i);
                }
            }
        }
        let damaged: Vec<(String, String)> = users
            .par_iter()
            .filter_map(|(sha256, _)| match self.cache.hash_of(sha256) {
                Ok(actual) if actual == **sha256 => None,
                Ok(actual) => Some((sha256.to_string(), format!("its SHA-256 is {actual}"))),
                Err(e) => Some((sha256.to_string(), format!("it cannot be read ({e})"))),
            })
            .collect();
        let mut warnings = Vec::new();
        let mut redo: Vec<usize> = Vec::new();
        for (sha256, why) in &damaged {
            let first = users[sha256.as_str()][0];
            let spec = self.jobs[&results[first].0].spec;
            warnings.push(
                Diagnostic::new(
                    self.cache.file(sha256),
                    format!(
                        "this image cache file is damaged ({why}, not the one its name records): photograph `{}` of {} is derived again from its source",
                        spec.file,
                        spec.page.display()
                    ),
                )
                .hint("something changed the cache behind casebook's back: check the disk and whatever else writes to the cache folder"),
            );
            if let Err(e) = self.cache.discard(sha256) {
                results[first].1 = Err(photo_error(
                    spec,
                    format!("cannot remove the damaged cache file: {e}"),
                ));
                continue;
            }
            redo.extend(&users[sha256.as_str()]);
        }
        redo.sort_unstable();
        redo.dedup();
        let again: Vec<(usize, std::result::Result<PhotoOutput, Diagnostic>)> = self
            .budget
            .each(&redo, |keeper, &i| {
                let known = results[i].1.as_ref().ok()?.source_sha256.clone();
                let job = &self.jobs[&results[i].0];
                let r = derive_one(
                    self.config,
                    self.cache,
                    keeper,
                    job,
                    Some(known),
                    self.derived,
                    None,
                );
                Some((i, r))
            })
            .into_iter()
            .flatten()
            .collect();
        for (i, r) in again {
            results[i].1 = r;
        }
        warnings
    }
}

fn photo_error(spec: &PhotoSpec, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(
        &spec.page,
        format!("photograph `{}`: {}", spec.file, message.into()),
    )
    .at(spec.line, 1)
    .field(format!("photos[{}].file", spec.index))
}

/// What the cache says of a job before any source is read.
enum Lookup {
    /// Resolved from the cache (or refused: a pinned hash that does not match).
    Done(std::result::Result<PhotoOutput, Diagnostic>),
    /// To be derived: with the source's hash when its stamp vouched for it (the cache then
    /// lacks the job's files), or without when the source must be read and hashed first.
    Derive(Option<String>),
}

/// Looks a job up in the cache without reading its source.
fn from_cache(config: &Config, cache: &cache::Cache, job: &Job) -> Lookup {
    let Some(source_sha256) = cache.known_source_hash(&job.spec.source) else {
        return Lookup::Derive(None);
    };
    if let Err(d) = check_pinned(job.spec, &source_sha256) {
        return Lookup::Done(Err(d));
    }
    match cache.job(&job_key(&config.images, &job.spec.redact, &source_sha256)) {
        Some(entries) => Lookup::Done(published(config, cache, job, source_sha256, &entries)),
        None => Lookup::Derive(Some(source_sha256)),
    }
}

/// Derives a job the cache could not resolve; `known` is the source hash `from_cache` found.
fn derive_one(
    config: &Config,
    cache: &cache::Cache,
    keeper: &mut budget::Keeper,
    job: &Job,
    known: Option<String>,
    fresh: &AtomicUsize,
    warm: Option<&Warm>,
) -> std::result::Result<PhotoOutput, Diagnostic> {
    let spec = job.spec;
    let images = &config.images;
    let looked_up = known.is_some();
    // Whatever is read from here on is held within the budget, from the file's header.
    let need = decode::memory_needed(&config.root, &spec.source, images)
        .map_err(|m| photo_error(spec, m))?;
    let total = keeper.total();
    let _held = keeper.hold(need).ok_or_else(|| {
        photo_error(
            spec,
            format!(
                "deriving from it needs {} MiB of memory, more than images.max_memory_mb = {}",
                need.div_ceil(1 << 20),
                total >> 20
            ),
        )
    })?;
    let mut bytes: Option<Vec<u8>> = None;
    let source_sha256 = match known {
        Some(h) => h,
        None => {
            let b = crate::beneath::read(&config.root, &spec.source, need)
                .map_err(|e| photo_error(spec, format!("cannot read it: {e}")))?;
            let h = hex(&Sha256::digest(&b));
            cache.remember_source(&spec.source, &h);
            bytes = Some(b);
            h
        }
    };
    check_pinned(spec, &source_sha256)?;
    let job_key = job_key(images, &spec.redact, &source_sha256);
    // A source read just now may be an unchanged file with a new stamp: its job may exist.
    let cached = if looked_up { None } else { cache.job(&job_key) };
    let entries = match cached {
        Some(entries) => entries,
        None => {
            let made = warm.and_then(|w| w.take(&spec.source, &spec.redact, &job_key));
            let derived = match made {
                Some(derived) => derived,
                None => {
                    let bytes = match bytes {
                        Some(b) => b,
                        None => crate::beneath::read(&config.root, &spec.source, need)
                            .map_err(|e| photo_error(spec, format!("cannot read it: {e}")))?,
                    };
                    pipeline::derive(&bytes, &spec.redact, images)
                        .map_err(|m| photo_error(spec, m))?
                }
            };
            let mut entries = Vec::new();
            for (kind, e) in derived
                .sizes
                .iter()
                .map(|e| ("size", e))
                .chain(std::iter::once(("placeholder", &derived.placeholder)))
            {
                let entry = cache.store(kind, e).map_err(|err| {
                    photo_error(spec, format!("cannot write the image cache: {err}"))
                })?;
                entries.push(entry);
            }
            cache.record_job(&job_key, entries.clone());
            fresh.fetch_add(1, Ordering::Relaxed);
            entries
        }
    };
    published(config, cache, job, source_sha256, &entries)
}

fn check_pinned(spec: &PhotoSpec, source_sha256: &str) -> std::result::Result<(), Diagnostic> {
    match &spec.source_sha256 {
        Some(pinned) if pinned != source_sha256 => Err(photo_error(spec, format!("the file's SHA-256 is {source_sha256}, not the source_sha256 {pinned} written in the front matter"))
            .hint("the source changed since it was recorded: check it is the right file, then update source_sha256")),
        _ => Ok(()),
    }
}

/// The cache key of a job: the source, the operation and the pipeline's version.
fn job_key(images: &crate::config::ImageConfig, redact: &[Region], source_sha256: &str) -> String {
    let mut op = Sha256::new();
    op.update(PIPELINE_VERSION);
    op.update(source_sha256);
    op.update(format!(
        "{:?}|{}|{}|{:?}",
        images.widths, images.quality, images.placeholder_width, images.redact_color
    ));
    op.update(format!("{:?}", redact));
    hex(&op.finalize())
}

/// What a job's cached files are published as.
fn published(
    config: &Config,
    cache: &cache::Cache,
    job: &Job,
    source_sha256: String,
    entries: &[cache::Entry],
) -> std::result::Result<PhotoOutput, Diagnostic> {
    let spec = job.spec;
    let stem = slug::slugify(
        Path::new(&spec.file)
            .file_stem()
            .map(|s| s.to_string_lossy())
            .unwrap_or_default(),
    );
    let publish = |e: &cache::Entry, label: &str| Published {
        path: format!("{}{stem}.{}.{label}.jpg", job.dir, &e.sha256[..8]),
        width: e.width,
        height: e.height,
        sha256: e.sha256.clone(),
        size: e.size,
        cache_file: cache.file(&e.sha256),
    };
    let mut sizes = Vec::new();
    let mut placeholder = None;
    for e in entries {
        if e.kind == "placeholder" {
            placeholder = Some(publish(e, "blur"));
        } else {
            sizes.push(publish(e, &e.width.to_string()));
        }
    }
    let placeholder = placeholder.ok_or_else(|| {
        photo_error(
            spec,
            "the image cache is incomplete; delete it and build again",
        )
    })?;
    Ok(PhotoOutput {
        source: spec.display.clone(),
        source_sha256,
        sizes,
        placeholder,
        redactions: spec.redact.clone(),
        fill: config.images.redact_color,
        quality: config.images.quality,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn progress_lines_give_the_rate_and_the_time_left() {
        let line = Progress::line(5_500, 55_000, Duration::from_secs(200));
        assert_eq!(line, "images: 5500/55000 (27.5/s, 30m 0s left)");
        assert_eq!(
            Progress::line(2, 20, Duration::from_millis(500)),
            "images: 2/20 (4.0/s, 5s left)"
        );
        assert_eq!(
            Progress::line(100, 55_000, Duration::from_secs(10)),
            "images: 100/55000 (10.0/s, 1h 31m left)"
        );
        assert_eq!(
            Progress::line(20, 20, Duration::from_secs(3)),
            "images: 20/20 (6.7/s, 0s left)"
        );
    }
}
