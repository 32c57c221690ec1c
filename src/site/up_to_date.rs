//! `casebook build` when nothing changed since the last build of the same output folder:
//! the sources, the options, casebook itself and the output all as they were. Nothing is
//! loaded; what that build reported (its counts, its warnings) is told again.
//! `output::up_to_date` keeps and checks the sealed record.

use std::path::{Path, PathBuf};
use std::time::Instant;

use blake2::{Blake2b512, Digest};

use super::{BuildOptions, Notice, Notices};
use crate::cache_file::{Reader, Writer};
use crate::config::Config;
use crate::error::{Diagnostic, Result};
use crate::images::{Reviews, Unreviewed};
use crate::output::{self, up_to_date};

/// What a build found before loading anything.
pub(crate) struct Before {
    /// The digest of everything the build reads, taken before it reads any of it; `None`
    /// when the build cannot be recorded (signed, or a link among the sources).
    sources: Option<up_to_date::Digest32>,
    record_file: PathBuf,
    /// The files below `content/` the same walk found (relative to it, `/`-separated, in no
    /// order), for the build to load without listing the folder again; `None` when it did
    /// not walk them all.
    pub(crate) content_files: Option<crate::content::WalkedFiles>,
    /// How long walking the sources took, for `--timings`.
    pub(crate) walked: std::time::Duration,
}

/// What the last build reported, when nothing it was made from has changed.
pub(crate) struct Unchanged {
    pub(crate) pages: usize,
    pub(crate) cases: usize,
    pub(crate) files: usize,
    pub(crate) reviews: Reviews,
    pub(crate) timings: Vec<(&'static str, std::time::Duration)>,
}

/// Looks for a build with nothing to do into `out`: `Ok(Err(before))` when there is work
/// (keep `before` to record this build when it is written).
pub(crate) fn check(
    options: &BuildOptions,
    out: &Path,
) -> Result<std::result::Result<Unchanged, Before>> {
    let started = Instant::now();
    // A configuration that does not load is reported by the build itself.
    let Ok(config) = Config::load(&options.root) else {
        return Ok(Err(Before {
            sources: None,
            record_file: PathBuf::new(),
            content_files: None,
            walked: started.elapsed(),
        }));
    };
    // Parses kept by this casebook for this configuration: most likely an edit's build,
    // whose walk and load already hold freed memory longer (`super::memory`; loading
    // settles it by how many parses are kept).
    let parsed = super::cache_file(&config, crate::content::saved::FILE);
    if crate::content::saved::made_under(&parsed, crate::content::saved::key(&config)) {
        super::memory::return_freed_later();
    }
    let cache = config.root.join(&config.images.cache_dir);
    let record_file = super::cache_file(&config, up_to_date::FILE);
    let (sources, content_files) = digest(options, &config, out, &cache);
    let before = Before {
        sources,
        record_file,
        content_files,
        walked: started.elapsed(),
    };
    let Some(sources) = &before.sources else {
        return Ok(Err(before));
    };
    if !out.is_dir() {
        return Ok(Err(before));
    }
    output::check_output_dir(&config.root, out, &cache)?;
    let _lock = output::Lock::take(out)?;
    let recovered = output::recover(out, &super::cache_file(&config, output::RECORD_FILE))?;
    if !recovered.is_empty() {
        // The build tells what was put in order (`Publishing::open` finds it done).
        for done in recovered {
            let notice = match done {
                output::Recovery::Done(d) => Notice::Note(d),
                output::Recovery::Refused(d) => Notice::Warning(d),
            };
            Notices::tell(options.notices.as_ref(), notice);
        }
        return Ok(Err(before));
    }
    let checked_sources = started.elapsed();
    let Some(summary) = up_to_date::check(&before.record_file, out, sources) else {
        return Ok(Err(before));
    };
    let Some((pages, cases, files, reviews, warnings)) = read_summary(&summary) else {
        return Ok(Err(before));
    };
    for warning in warnings {
        Notices::tell(options.notices.as_ref(), Notice::Warning(warning));
    }
    Ok(Ok(Unchanged {
        pages,
        cases,
        files,
        reviews,
        timings: vec![
            ("sources unchanged", checked_sources),
            ("output unchanged", started.elapsed() - checked_sources),
        ],
    }))
}

/// Records that `out`, whose files have digest `files` (as the write stage recorded them),
/// is the build of what `before` found; call it while the build still holds the output's
/// lock.
pub(crate) fn record(
    before: &Before,
    out: &Path,
    files: &up_to_date::Digest32,
    counts: (usize, usize, usize),
    reviews: &Reviews,
    warnings: &[Diagnostic],
) {
    match &before.sources {
        Some(sources) => {
            let summary = write_summary(counts, reviews, warnings);
            up_to_date::save(&before.record_file, out, sources, files, &summary);
        }
        None if !before.record_file.as_os_str().is_empty() => {
            up_to_date::forget(&before.record_file)
        }
        None => {}
    }
}

/// The sources' digest, with the options that change the output and casebook itself.
fn digest(
    options: &BuildOptions,
    config: &Config,
    out: &Path,
    cache: &Path,
) -> (
    Option<up_to_date::Digest32>,
    Option<crate::content::WalkedFiles>,
) {
    // A signed release is made anew each time, as asked.
    if options.signing.is_some() || crate::fault::active() {
        return (None, None);
    }
    let Some(walked) = up_to_date::sources(&config.root, out, cache) else {
        return (None, None);
    };
    (
        walked.digest.map(|tree| with_options(options, out, tree)),
        content_files(config, out, cache, walked.files),
    )
}

/// The walk's files below `content/`, relative to it; `None` when the walk left out part
/// of `content/` (an output or cache folder inside it), which the content's own listing
/// would not.
fn content_files(
    config: &Config,
    out: &Path,
    cache: &Path,
    files: crate::content::WalkedFiles,
) -> Option<crate::content::WalkedFiles> {
    let content = crate::paths::resolved(&config.root.join("content"));
    let inside = |p: &Path| crate::paths::resolved(p).starts_with(&content);
    if inside(out) || inside(cache) {
        return None;
    }
    Some(
        (files.into_iter())
            .filter_map(|(f, stamp)| Some((f.strip_prefix("content/")?.to_string(), stamp)))
            .collect(),
    )
}

/// The digest of the sources' walk with the options that change the output and casebook
/// itself.
fn with_options(
    options: &BuildOptions,
    out: &Path,
    tree: up_to_date::Digest32,
) -> up_to_date::Digest32 {
    let exe = std::env::current_exe()
        .and_then(std::fs::metadata)
        .ok()
        .map(|m| {
            use std::os::unix::fs::MetadataExt as _;
            (
                m.dev(),
                m.ino(),
                m.size(),
                m.mtime(),
                m.mtime_nsec(),
                m.ctime_nsec(),
            )
        });
    let mut h = Blake2b512::new();
    h.update(tree);
    h.update(format!(
        "{}|{:?}|{:?}|{}|{}|{}|{:?}",
        env!("CARGO_PKG_VERSION"),
        exe,
        options.base_url,
        options.drafts,
        options.portable,
        options.proofs,
        crate::paths::resolved(out),
    ));
    h.finalize()[..32].try_into().expect("32 bytes")
}

const MAGIC: &[u8] = b"casebook-build-summary-1\n";

fn write_summary(
    (pages, cases, files): (usize, usize, usize),
    reviews: &Reviews,
    warnings: &[Diagnostic],
) -> Vec<u8> {
    let mut w = Writer::new(MAGIC);
    for n in [
        pages,
        cases,
        files,
        reviews.photos,
        reviews.unreviewed.len(),
    ] {
        w.u64(n as u64);
    }
    for u in &reviews.unreviewed {
        w.bytes(u.page.to_string_lossy().as_bytes());
        w.u64(u.line as u64);
        w.u64(u.index as u64);
        w.bytes(u.photo.as_bytes());
        w.u32(u32::from(u.stale));
        w.bytes(u.covers.as_bytes());
    }
    w.u64(warnings.len() as u64);
    for d in warnings {
        w.bytes(d.path.to_string_lossy().as_bytes());
        w.u64(d.line as u64);
        w.u64(d.column as u64);
        for text in [&d.field, &Some(d.message.clone()), &d.hint] {
            w.u32(u32::from(text.is_some()));
            w.bytes(text.as_deref().unwrap_or_default().as_bytes());
        }
    }
    w.finish()
}

type Summary = (usize, usize, usize, Reviews, Vec<Diagnostic>);

fn read_summary(bytes: &[u8]) -> Option<Summary> {
    let mut r = Reader::open(bytes, MAGIC)?;
    let mut n = || r.u64().and_then(|n| usize::try_from(n).ok());
    let (pages, cases, files, photos, unreviewed) = (n()?, n()?, n()?, n()?, n()?);
    let mut reviews = Reviews {
        photos,
        unreviewed: Vec::new(),
    };
    for _ in 0..unreviewed {
        reviews.unreviewed.push(Unreviewed {
            page: PathBuf::from(r.string()?),
            line: usize::try_from(r.u64()?).ok()?,
            index: usize::try_from(r.u64()?).ok()?,
            photo: r.string()?,
            stale: r.u32()? == 1,
            covers: r.string()?,
        });
    }
    let mut warnings = Vec::new();
    for _ in 0..r.u64()? {
        let path = PathBuf::from(r.string()?);
        let line = usize::try_from(r.u64()?).ok()?;
        let column = usize::try_from(r.u64()?).ok()?;
        let mut texts = [None, None, None];
        for text in &mut texts {
            let some = r.u32()? == 1;
            let value = r.string()?;
            *text = some.then_some(value);
        }
        let [field, message, hint] = texts;
        warnings.push(Diagnostic {
            path,
            line,
            column,
            field,
            message: message?,
            hint,
        });
    }
    r.is_empty()
        .then_some((pages, cases, files, reviews, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_comes_back_as_written() {
        let reviews = Reviews {
            photos: 3,
            unreviewed: vec![Unreviewed {
                page: "content/cases/a/index.md".into(),
                line: 7,
                index: 1,
                photo: "b.jpg".into(),
                stale: true,
                covers: "0123".into(),
            }],
        };
        let warnings = vec![
            Diagnostic::new("content/x", "a symbolic link: left out of the site")
                .hint("put the file itself here"),
        ];
        let bytes = write_summary((10, 4, 30), &reviews, &warnings);
        let (pages, cases, files, back, told) = read_summary(&bytes).unwrap();
        assert_eq!((pages, cases, files), (10, 4, 30));
        assert_eq!(back.photos, 3);
        assert_eq!(back.unreviewed, reviews.unreviewed);
        assert_eq!(told, warnings);
        let mut damaged = bytes.clone();
        damaged[30] ^= 1;
        assert!(read_summary(&damaged).is_none());
    }
}
