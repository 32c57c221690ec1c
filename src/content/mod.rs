//! Loading `content/` into a `Corpus`: the only place that reads content files.
//!
//! Sections are folders with `_index.md`; pages are `name.md` or bundles `name/index.md`;
//! translations are `name.<lang>.md`. Pages of the case section are validated against the
//! schema and routed by case id. Every problem of every file is collected before failing.

mod assemble;
pub(crate) mod case;
pub(crate) mod front_matter;
mod listing;
pub(crate) mod meta;
mod page_key;
mod parse;
mod patch;
pub(crate) mod photos;
pub(crate) mod review;
pub(crate) mod saved;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::config::Config;
use crate::error::{Diagnostic, Diagnostics, Error, Result};
pub(crate) use assemble::looks_like_image;
use assemble::*;
pub(crate) use case::{Case, FieldValue};
pub(crate) use listing::ParseCache;
use listing::{Listing, ParseResult, list};
pub(crate) use meta::Date;
use parse::parse_file;
pub(crate) use review::{Review, review_covers};

/// Images never leave `content/` as they are: only redacted, metadata-free derivatives may be
/// published, so the loader never treats them as copyable attachments. SVG is included: it
/// can embed raster photographs and metadata.
const IMAGE_EXTENSIONS: &[&str] = &[
    "jpg", "jpeg", "png", "gif", "webp", "tif", "tiff", "heic", "heif", "bmp", "avif", "svg",
    "svgz", "jxl", "jp2", "dng", "raw", "cr2", "nef", "arw",
];

/// A redaction region in fractions of the (upright) image's width and height.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Region {
    pub(crate) x: f64,
    pub(crate) y: f64,
    pub(crate) w: f64,
    pub(crate) h: f64,
    pub(crate) method: RedactMethod,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum RedactMethod {
    /// A solid colour: nothing of the region survives.
    Fill,
    /// Blocks of at least 1/12 of the region's shorter side.
    Pixelate,
}

/// What pages and sections share.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Meta {
    /// The file, relative to the site root (`content/report/_index.md`), for diagnostics.
    pub(crate) source: PathBuf,
    /// The language-neutral content path used by `@/` links (`report/_index.md`).
    pub(crate) key: String,
    pub(crate) lang: String,
    pub(crate) title: String,
    pub(crate) description: Option<String>,
    pub(crate) date: Option<Date>,
    pub(crate) updated: Option<Date>,
    pub(crate) weight: Option<i64>,
    pub(crate) template: Option<String>,
    pub(crate) extra: toml::Table,
    /// Root-relative URL path, e.g. `/ar/cases/syn-0001/`.
    pub(crate) path: String,
    pub(crate) body: String,
    /// The file line on which `body` starts.
    pub(crate) body_line: usize,
    /// Photographs this page publishes (`[[photos]]`).
    pub(crate) photos: Vec<photos::PhotoSpec>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Section {
    pub(crate) meta: Meta,
    /// The folder below `content/` (`""` for the home page).
    pub(crate) dir: String,
    pub(crate) paginate_by: Option<usize>,
    /// Indices into `Corpus::pages`, in display order.
    pub(crate) pages: Vec<usize>,
    /// Indices into `Corpus::sections`, in display order.
    pub(crate) subsections: Vec<usize>,
    pub(crate) is_case_collection: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Page {
    pub(crate) meta: Meta,
    /// Index into `Corpus::sections`.
    pub(crate) section: usize,
    pub(crate) case: Option<Case>,
    /// True when this is a case shown in a language it was not translated into.
    pub(crate) fallback: bool,
    /// The language of the title when it is not the page's (a case shown untranslated, or a
    /// translation without a title of its own).
    pub(crate) title_lang: Option<String>,
    /// The same for the description (a translation without one shows the original's).
    pub(crate) description_lang: Option<String>,
}

impl Page {
    /// The language of the page's summary (its description, or else the start of its text)
    /// when it is not the page's own.
    pub(crate) fn summary_lang(&self) -> Option<&str> {
        if self.meta.description.is_some() {
            self.description_lang.as_deref()
        } else if self.fallback {
            self.title_lang.as_deref()
        } else {
            None
        }
    }
}

/// A file copied as it is (bundle attachments such as PDFs).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Asset {
    pub(crate) source: PathBuf,
    /// Output path relative to the output folder.
    pub(crate) output: String,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Corpus {
    pub(crate) sections: Vec<Section>,
    /// Shared: a rebuild that changed one file copies the list, not every page.
    pub(crate) pages: Vec<Arc<Page>>,
    /// Withdrawn cases, in every language: published only as tombstones.
    pub(crate) withdrawn: Vec<Arc<Page>>,
    pub(crate) assets: Vec<Asset>,
    /// (content key, language) -> URL path, for `@/` links.
    links: Arc<HashMap<(String, String), String>>,
    /// content key -> every (language, URL path) it is published at, in language order.
    versions: Arc<HashMap<String, Vec<(String, String)>>>,
    /// URL path -> the file that produces it.
    source_of_path: Arc<HashMap<String, PathBuf>>,
    /// Content keys of files that exist but failed to load: links to them are not reported
    /// as broken on top of the file's own errors.
    pub(crate) failed_keys: std::collections::HashSet<String>,
    /// What loading left out and the publisher should hear of (symbolic links).
    pub(crate) warnings: Vec<Diagnostic>,
}

/// The case section's default-language files, the ones that carry the case fields
/// (translations and `_index` files left out): what `casebook import` compares a sheet with.
pub(crate) fn case_files(config: &Config, section: &str) -> Result<Vec<PathBuf>> {
    let content_dir = config.root.join("content");
    let mut listing = Listing::default();
    if content_dir.join(section).is_dir() {
        listing::list(&content_dir, Path::new(section), false, &mut listing)?;
    }
    Ok(listing
        .markdown
        .into_iter()
        .filter(|(rel, _)| {
            let stem = rel.file_stem().unwrap_or_default().to_string_lossy();
            !stem.starts_with("_index") && parse::split_language(&stem).is_none()
        })
        .map(|(rel, _)| content_dir.join(rel))
        .collect())
}

impl Corpus {
    /// Resolves an `@/` link target (`report/_index.md`, optionally `about.ar.md`) for a page
    /// in `lang`: the same language if translated, else the default language.
    pub(crate) fn resolve(&self, target: &str, lang: &str, default_lang: &str) -> Option<&str> {
        self.links
            .get(&(target.to_string(), lang.to_string()))
            .or_else(|| {
                self.links
                    .get(&(target.to_string(), default_lang.to_string()))
            })
            .or_else(|| self.links.get(&(target.to_string(), String::new())))
            .map(String::as_str)
    }

    /// The source file that produces a URL path, if any.
    pub(crate) fn source_of(&self, path: &str) -> Option<&Path> {
        self.source_of_path.get(path).map(PathBuf::as_path)
    }

    /// Every section's and page's metadata, sections first.
    pub(crate) fn metas(&self) -> impl Iterator<Item = &Meta> {
        self.sections
            .iter()
            .map(|s| &s.meta)
            .chain(self.pages.iter().map(|p| &p.meta))
    }

    /// Case records, each counted once (in the default language) whatever the number of
    /// languages it is shown in.
    pub(crate) fn case_count(&self, config: &Config) -> usize {
        self.pages
            .iter()
            .filter(|p| p.case.is_some() && p.meta.lang == config.default_language)
            .count()
    }

    pub(crate) fn root_section(&self, lang: &str) -> Option<usize> {
        self.sections
            .iter()
            .position(|s| s.dir.is_empty() && s.meta.lang == lang)
    }

    pub(crate) fn case_section(&self, lang: &str) -> Option<usize> {
        self.sections
            .iter()
            .position(|s| s.is_case_collection && s.meta.lang == lang)
    }

    /// Every version of the same content in other languages: (lang, path).
    pub(crate) fn translations(&self, key: &str) -> Vec<(&str, &str)> {
        self.versions.get(key).map_or_else(Vec::new, |v| {
            v.iter().map(|(l, p)| (l.as_str(), p.as_str())).collect()
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileKind {
    SectionIndex,
    Page,
    BundleIndex,
}

#[derive(Clone)]
struct Parsed {
    kind: FileKind,
    /// Folder of the file relative to `content/`, with `/` separators.
    dir: String,
    stem: String,
    key: String,
    lang: String,
    meta: Meta,
    standard: meta::Standard,
    case: Option<Case>,
}

/// Loads what can be loaded and returns it with every problem found, so later checks
/// (internal links) can still run and be reported together with the content errors.
pub(crate) fn load_partial(config: &Config, drafts: bool) -> Result<(Corpus, Vec<Diagnostic>)> {
    load_with(config, drafts, None, None).map(|(corpus, diags, _)| (corpus, diags))
}

/// Paths below `content/` (`/`-separated, in any order), each with its stamp from the walk
/// that found them, once it has settled.
pub(crate) type WalkedFiles = Vec<(String, Option<saved::SourceStamp>)>;

/// The files below `content/` as a walk of the whole site just found them (relative to it,
/// `/`-separated, in any order), each with its stamp when it is settled, and the parses a
/// previous build kept (`saved`).
pub(crate) struct Listed<'a> {
    pub(crate) files: WalkedFiles,
    pub(crate) saved: saved::Saved<'a>,
    /// `saved::key` of this build.
    pub(crate) key: u128,
}

/// `load_partial` of the files `listed`, so the folder is not listed again, reading and
/// parsing only those not kept unchanged in `listed.saved`. Also gives the parses to keep
/// for the next build, when they differ from the saved ones.
pub(crate) fn load_listed(
    config: &Config,
    drafts: bool,
    listed: Listed,
) -> Result<(Corpus, Vec<Diagnostic>, Option<Vec<u8>>)> {
    load_with(config, drafts, None, Some(listed))
}

/// `load_partial`, reusing and refreshing `cache`.
pub(crate) fn load_cached(
    config: &Config,
    drafts: bool,
    cache: &mut ParseCache,
) -> Result<(Corpus, Vec<Diagnostic>)> {
    load_with(config, drafts, Some(cache), None).map(|(corpus, diags, _)| (corpus, diags))
}

fn load_with(
    config: &Config,
    drafts: bool,
    mut cache: Option<&mut ParseCache>,
    listed: Option<Listed>,
) -> Result<(Corpus, Vec<Diagnostic>, Option<Vec<u8>>)> {
    let content_dir = config.root.join("content");
    if !content_dir.is_dir() {
        return Err(Error::one(
            Diagnostic::new("content", "the content folder is missing")
                .hint("create content/_index.md (the home page); `casebook init DIR` makes a working skeleton"),
        ));
    }
    let mut diags = Diagnostics::default();
    let mut only_markdown = false;
    // A cached listing is lent to this load and given back at its end (66,000 paths at
    // archive scale are not copied); a load that fails on the way leaves none, and the next
    // one lists the folder again.
    let (listed, saved) = match listed {
        Some(Listed { files, saved, key }) => (Some(files), Some((saved, key))),
        None => (None, None),
    };
    let mut stamps = Vec::new();
    let (listing, names_known) = match cache.as_deref_mut() {
        Some(ParseCache {
            listing: slot @ Some(_),
            touched,
            unportable,
            ..
        }) => {
            let mut listing = slot.take().unwrap_or_default();
            only_markdown = touched
                .iter()
                .all(|rel| rel.extension() == Some("md".as_ref()));
            if listing.refresh(&content_dir, touched)? {
                *unportable = None;
            }
            touched.clear();
            (listing, unportable.clone())
        }
        None if listed.is_some() => {
            let (listing, listed_stamps) = Listing::of_files(listed.unwrap_or_default());
            stamps = listed_stamps;
            (listing, None)
        }
        _ => {
            let mut listing = Listing::default();
            list(&content_dir, Path::new(""), cache.is_some(), &mut listing)?;
            if let Some(cache) = cache.as_deref_mut() {
                cache.unportable = None;
                cache.touched.clear();
            }
            (listing, None)
        }
    };
    let names_unchanged = names_known.is_some();
    let Listing {
        markdown,
        other: other_files,
        links,
    } = listing;
    // Every file of content/ must check out on every common system, published or not.
    let unportable = match names_known {
        Some(known) => known,
        None => {
            let names: Vec<String> = markdown
                .iter()
                .map(|(rel, _)| rel)
                .chain(&other_files)
                .chain(&links)
                .map(|rel| format!("content/{}", to_slash(rel)))
                .collect();
            let found = crate::output::unportable_sources(names.iter().map(String::as_str));
            if let Some(cache) = cache.as_deref_mut() {
                cache.unportable = Some(found.clone());
            }
            found
        }
    };
    diags.extend(unportable);
    // Only markdown files saved, with every name as it was: perhaps a patch will do.
    let patchable = names_unchanged && only_markdown && diags.is_empty();
    if let Some(cache) = cache.as_deref_mut().filter(|_| patchable) {
        if let Some(corpus) = patch::patched_load(config, drafts, &content_dir, &markdown, cache) {
            cache.listing = Some(Listing {
                markdown,
                other: other_files,
                links,
            });
            return Ok((corpus, Vec::new(), None));
        }
    }

    let cached = cache.as_deref();
    let results: Vec<(ParseResult, Origin)> = markdown
        .par_iter()
        .enumerate()
        .map(|(i, (rel, stamp))| {
            let hit = cached
                .and_then(|c| c.files.get(rel))
                .filter(|(s, _)| Some(*s) == *stamp);
            if let Some((_, r)) = hit {
                return (r.clone(), Origin::Cache);
            }
            let kept = saved.as_ref().zip(stamps.get(i).copied().flatten());
            let record = kept.and_then(|((saved, _), stamp)| saved.record(rel.to_str()?, &stamp));
            match record.and_then(|record| Some((saved::decode(record)?, record))) {
                Some((parsed, record)) => (Ok(parsed), Origin::Saved(record)),
                None => (parse_file(config, &content_dir, rel), Origin::Read),
            }
        })
        .collect();
    if let Some(cache) = cache.as_deref_mut() {
        if cache.files.len() != markdown.len() {
            let present: HashSet<&PathBuf> = markdown.iter().map(|(rel, _)| rel).collect();
            cache.files.retain(|rel, _| present.contains(rel));
        }
        for ((r, origin), (rel, stamp)) in results.iter().zip(&markdown) {
            if let (Origin::Read, Some(stamp)) = (origin, stamp) {
                cache.files.insert(rel.clone(), (*stamp, r.clone()));
            }
        }
    }
    let next = saved.map(|(saved, key)| to_keep(&saved, key, &markdown, &stamps, &results));
    let mut parsed = Vec::with_capacity(results.len());
    let mut failed_keys = std::collections::HashSet::new();
    for ((r, _), (rel, _)) in results.into_iter().zip(&markdown) {
        match r {
            Ok(p) if p.standard.draft && !drafts => {}
            Ok(p) => parsed.push(p),
            Err(ds) => {
                diags.extend(ds);
                let key = to_slash(rel);
                failed_keys.extend(
                    config
                        .languages
                        .iter()
                        .map(|l| key.replace(&format!(".{}.md", l.code), ".md")),
                );
                failed_keys.insert(key);
            }
        }
    }

    let mut corpus = assemble(
        config,
        parsed,
        &other_files,
        &content_dir,
        &failed_keys,
        &mut diags,
    );
    corpus.failed_keys = failed_keys;
    corpus.warnings = links
        .iter()
        .map(|rel| {
            Diagnostic::new(display_path(rel), "a symbolic link: left out of the site")
                .hint("casebook never follows links in content/ (one could publish any file of this machine): put the file itself here")
        })
        .collect();
    if let Some(cache) = cache {
        let clean = diags.is_empty();
        cache.last = clean.then(|| Arc::new(corpus.clone()));
        cache.listing = Some(Listing {
            markdown,
            other: other_files,
            links,
        });
    }
    Ok((corpus, diags.into_vec(), next.flatten()))
}

/// Where a file's parse came from.
enum Origin<'a> {
    /// `serve`'s parse cache.
    Cache,
    /// The parses a previous build kept: its bytes there.
    Saved(&'a [u8]),
    /// The file itself.
    Read,
}

/// The parses to keep for the next build (see `saved`), unless the kept ones will still
/// do: a few files changed since they were kept are cheaper to parse again next time than
/// the whole cache is to write again (tens of megabytes at archive scale).
fn to_keep(
    saved: &saved::Saved,
    key: u128,
    markdown: &[(PathBuf, Option<listing::FileStamp>)],
    stamps: &[Option<saved::SourceStamp>],
    results: &[(ParseResult, Origin)],
) -> Option<Vec<u8>> {
    let reused = (results.iter())
        .filter(|(_, origin)| matches!(origin, Origin::Saved(_)))
        .count();
    let read = (results.iter().zip(stamps))
        .filter(|((result, origin), stamp)| {
            matches!(origin, Origin::Read)
                && stamp.is_some()
                && result.as_ref().is_ok_and(saved::keepable)
        })
        .count();
    // Parsed again because not kept, or kept for nothing (files removed since).
    let stale = read + (saved.len() - reused);
    if stale * 32 <= results.len() {
        return None;
    }
    // One record at a time: at the peak of a first build, not all of them twice.
    let mut next = saved::Next::new(key, reused + read, saved);
    for (((rel, _), stamp), (result, origin)) in markdown.iter().zip(stamps).zip(results) {
        let (Some(rel), Some(stamp)) = (rel.to_str(), stamp) else {
            continue;
        };
        match (result, origin) {
            (_, Origin::Saved(record)) => next.push(rel, stamp, record),
            (Ok(parsed), Origin::Read) if saved::keepable(parsed) => {
                next.push(rel, stamp, &saved::encode(parsed));
            }
            _ => {}
        }
    }
    Some(next.finish())
}

fn display_path(rel: &Path) -> PathBuf {
    Path::new("content").join(rel)
}

fn to_slash(p: &Path) -> String {
    p.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Weight first (unweighted last), then newest date, then title, then file.
pub(crate) fn order(a: &Meta, b: &Meta) -> std::cmp::Ordering {
    let weight = |m: &Meta| (m.weight.is_none(), m.weight);
    let date = |m: &Meta| (m.date.is_none(), std::cmp::Reverse(m.date));
    weight(a)
        .cmp(&weight(b))
        .then_with(|| date(a).cmp(&date(b)))
        .then_with(|| a.title.cmp(&b.title))
        .then_with(|| a.source.cmp(&b.source))
}
