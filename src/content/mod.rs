//! Loading `content/` into a `Corpus`: the only place that reads content files.
//!
//! Sections are folders with `_index.md`; pages are `name.md` or bundles `name/index.md`;
//! translations are `name.<lang>.md`. Pages of the case section are validated against the
//! schema and routed by case id. Every problem of every file is collected before failing.

pub mod case;
pub mod front_matter;
pub mod meta;
pub mod photos;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::config::Config;
use crate::error::{Diagnostic, Diagnostics, Error, Result};
pub use case::{Case, FieldValue};
pub use meta::Date;

/// Images never leave `content/` as they are: only redacted, metadata-free derivatives may be
/// published, so the loader never treats them as copyable attachments. SVG is included: it
/// can embed raster photographs and metadata.
const IMAGE_EXTENSIONS: &[&str] = &[
    "jpg", "jpeg", "png", "gif", "webp", "tif", "tiff", "heic", "heif", "bmp", "avif", "svg",
    "svgz", "jxl", "jp2", "dng", "raw", "cr2", "nef", "arw",
];

/// What pages and sections share.
#[derive(Debug, Clone, PartialEq)]
pub struct Meta {
    /// The file, relative to the site root (`content/report/_index.md`), for diagnostics.
    pub source: PathBuf,
    /// The language-neutral content path used by `@/` links (`report/_index.md`).
    pub key: String,
    pub lang: String,
    pub title: String,
    pub description: Option<String>,
    pub date: Option<Date>,
    pub updated: Option<Date>,
    pub weight: Option<i64>,
    pub template: Option<String>,
    pub extra: toml::Table,
    /// Root-relative URL path, e.g. `/ar/cases/syn-0001/`.
    pub path: String,
    pub body: String,
    /// The file line on which `body` starts.
    pub body_line: usize,
    /// Photographs this page publishes (`[[photos]]`).
    pub photos: Vec<photos::PhotoSpec>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    pub meta: Meta,
    /// The folder below `content/` (`""` for the home page).
    pub dir: String,
    pub paginate_by: Option<usize>,
    /// Indices into `Corpus::pages`, in display order.
    pub pages: Vec<usize>,
    /// Indices into `Corpus::sections`, in display order.
    pub subsections: Vec<usize>,
    pub is_case_collection: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    pub meta: Meta,
    /// Index into `Corpus::sections`.
    pub section: usize,
    pub case: Option<Case>,
    /// True when this is a case shown in a language it was not translated into.
    pub fallback: bool,
}

/// A file copied as it is (bundle attachments such as PDFs).
#[derive(Debug, Clone, PartialEq)]
pub struct Asset {
    pub source: PathBuf,
    /// Output path relative to the output folder.
    pub output: String,
}

#[derive(Debug, Clone, Default)]
pub struct Corpus {
    pub sections: Vec<Section>,
    pub pages: Vec<Page>,
    pub assets: Vec<Asset>,
    /// (content key, language) -> URL path, for `@/` links.
    links: HashMap<(String, String), String>,
    /// content key -> every (language, URL path) it is published at, in language order.
    versions: HashMap<String, Vec<(String, String)>>,
    /// URL path -> the file that produces it.
    source_of_path: HashMap<String, PathBuf>,
    /// Content keys of files that exist but failed to load: links to them are not reported
    /// as broken on top of the file's own errors.
    pub failed_keys: std::collections::HashSet<String>,
}

impl Corpus {
    /// Resolves an `@/` link target (`report/_index.md`, optionally `about.ar.md`) for a page
    /// in `lang`: the same language if translated, else the default language.
    pub fn resolve(&self, target: &str, lang: &str, default_lang: &str) -> Option<&str> {
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
    pub fn source_of(&self, path: &str) -> Option<&Path> {
        self.source_of_path.get(path).map(PathBuf::as_path)
    }

    /// Every section's and page's metadata, sections first.
    pub fn metas(&self) -> impl Iterator<Item = &Meta> {
        self.sections
            .iter()
            .map(|s| &s.meta)
            .chain(self.pages.iter().map(|p| &p.meta))
    }

    /// Case records, each counted once (in the default language) whatever the number of
    /// languages it is shown in.
    pub fn case_count(&self, config: &Config) -> usize {
        self.pages
            .iter()
            .filter(|p| p.case.is_some() && p.meta.lang == config.default_language)
            .count()
    }

    pub fn root_section(&self, lang: &str) -> Option<usize> {
        self.sections
            .iter()
            .position(|s| s.dir.is_empty() && s.meta.lang == lang)
    }

    pub fn case_section(&self, lang: &str) -> Option<usize> {
        self.sections
            .iter()
            .position(|s| s.is_case_collection && s.meta.lang == lang)
    }

    /// Every version of the same content in other languages: (lang, path).
    pub fn translations(&self, key: &str) -> Vec<(&str, &str)> {
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
pub fn load_partial(config: &Config, drafts: bool) -> Result<(Corpus, Vec<Diagnostic>)> {
    load_with(config, drafts, None)
}

/// What parsing one content file gave, kept between rebuilds.
type ParseResult = std::result::Result<Parsed, Vec<Diagnostic>>;

/// Content files parsed by earlier loads (`casebook serve`), so a rebuild re-parses only the
/// files that changed and lists only the folders that changed. An entry is reused while the
/// file's size and modification time are unchanged; the watcher also reports every path it
/// saw change (`forget`), whatever the timestamps say. Parsing depends on the
/// configuration: clear the cache when it changes.
#[derive(Default)]
pub struct ParseCache {
    files: HashMap<PathBuf, (FileStamp, ParseResult)>,
    listing: Option<Listing>,
    /// Paths (relative to `content/`) reported changed since the listing was made.
    touched: Vec<PathBuf>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
struct FileStamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
}

/// The files below `content/`, in the walk's order (by path, component by component).
#[derive(Clone, Default)]
struct Listing {
    markdown: Vec<(PathBuf, Option<FileStamp>)>,
    other: Vec<PathBuf>,
}

impl ParseCache {
    /// Forgets a changed, added or removed file or folder (relative to `content/`).
    pub fn forget(&mut self, rel: &Path) {
        self.files.retain(|path, _| !path.starts_with(rel));
        self.touched.push(rel.to_path_buf());
    }

    pub fn clear(&mut self) {
        *self = ParseCache::default();
    }
}

/// `load_partial`, reusing and refreshing `cache`.
pub fn load_cached(
    config: &Config,
    drafts: bool,
    cache: &mut ParseCache,
) -> Result<(Corpus, Vec<Diagnostic>)> {
    load_with(config, drafts, Some(cache))
}

/// Lists the files below `content_dir/under`, skipping hidden ones, with timestamps of
/// markdown files when asked.
fn list(content_dir: &Path, under: &Path, stamps: bool, into: &mut Listing) -> Result<()> {
    let start = content_dir.join(under);
    for entry in walkdir::WalkDir::new(&start)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| !e.file_name().to_string_lossy().starts_with('.'))
    {
        let entry = entry.map_err(|e| {
            let path = e.path().unwrap_or(&start).to_path_buf();
            Error::io(&path, e.into())
        })?;
        if !entry.file_type().is_file() {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(content_dir)
            .expect("walkdir stays below its root")
            .to_path_buf();
        if rel.extension().is_some_and(|e| e == "md") {
            // Only a cache needs the timestamps; a plain build spares the extra stat calls.
            let stamp = stamps
                .then(|| entry.metadata().ok())
                .flatten()
                .map(|m| FileStamp {
                    len: m.len(),
                    modified: m.modified().ok(),
                });
            into.markdown.push((rel, stamp));
        } else {
            into.other.push(rel);
        }
    }
    Ok(())
}

impl Listing {
    /// Brings the listing up to date with changed paths, listing only those again.
    fn refresh(&mut self, content_dir: &Path, touched: &[PathBuf]) -> Result<()> {
        let mut relisted = Listing::default();
        for rel in touched {
            self.markdown.retain(|(p, _)| !p.starts_with(rel));
            self.other.retain(|p| !p.starts_with(rel));
            let hidden = rel
                .components()
                .any(|c| c.as_os_str().to_string_lossy().starts_with('.'));
            if !hidden && content_dir.join(rel).exists() {
                list(content_dir, rel, true, &mut relisted)?;
            }
        }
        self.markdown.extend(relisted.markdown);
        self.other.extend(relisted.other);
        self.markdown.sort_by(|a, b| a.0.cmp(&b.0));
        self.markdown.dedup_by(|a, b| a.0 == b.0);
        self.other.sort();
        self.other.dedup();
        Ok(())
    }
}

fn load_with(
    config: &Config,
    drafts: bool,
    mut cache: Option<&mut ParseCache>,
) -> Result<(Corpus, Vec<Diagnostic>)> {
    let content_dir = config.root.join("content");
    if !content_dir.is_dir() {
        return Err(Error::one(
            Diagnostic::new("content", "the content folder is missing")
                .hint("create content/_index.md (the home page); `casebook init DIR` makes a working skeleton"),
        ));
    }
    let mut diags = Diagnostics::default();
    let listing = match cache.as_deref_mut() {
        Some(ParseCache {
            listing: Some(listing),
            touched,
            ..
        }) => {
            listing.refresh(&content_dir, touched)?;
            touched.clear();
            listing.clone()
        }
        _ => {
            let mut listing = Listing::default();
            list(&content_dir, Path::new(""), cache.is_some(), &mut listing)?;
            if let Some(cache) = cache.as_deref_mut() {
                cache.listing = Some(listing.clone());
                cache.touched.clear();
            }
            listing
        }
    };
    let Listing {
        markdown,
        other: other_files,
    } = listing;

    let cached = cache.as_deref();
    let results: Vec<(ParseResult, bool)> = markdown
        .par_iter()
        .map(|(rel, stamp)| {
            let hit = cached
                .and_then(|c| c.files.get(rel))
                .filter(|(s, _)| Some(*s) == *stamp);
            match hit {
                Some((_, r)) => (r.clone(), false),
                None => (parse_file(config, &content_dir, rel), true),
            }
        })
        .collect();
    if let Some(cache) = cache {
        if cache.files.len() != markdown.len() {
            let present: HashSet<&PathBuf> = markdown.iter().map(|(rel, _)| rel).collect();
            cache.files.retain(|rel, _| present.contains(rel));
        }
        for ((r, fresh), (rel, stamp)) in results.iter().zip(&markdown) {
            if let (true, Some(stamp)) = (fresh, stamp) {
                cache.files.insert(rel.clone(), (*stamp, r.clone()));
            }
        }
    }
    let mut parsed = Vec::new();
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

    let mut corpus = assemble(config, parsed, &other_files, &content_dir, &mut diags);
    corpus.failed_keys = failed_keys;
    Ok((corpus, diags.into_vec()))
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

fn parse_file(
    config: &Config,
    content_dir: &Path,
    rel: &Path,
) -> std::result::Result<Parsed, Vec<Diagnostic>> {
    let source = display_path(rel);
    let abs = content_dir.join(rel);
    let text = std::fs::read_to_string(&abs).map_err(|e| {
        vec![
            Diagnostic::new(&source, format!("cannot read the file: {e}"))
                .hint("content files must be UTF-8 text"),
        ]
    })?;
    let doc = front_matter::parse(&source, &text).map_err(|d| vec![d])?;

    let file_name = rel.file_name().unwrap_or_default().to_string_lossy();
    let full_stem = file_name.trim_end_matches(".md");
    let (stem, lang) = match full_stem.rsplit_once('.') {
        Some((stem, code)) if crate::locale::is_language_code(code) => {
            if config.language(code).is_none() {
                return Err(vec![
                    Diagnostic::new(
                        &source,
                        format!("`{code}` is not one of the site's languages"),
                    )
                    .hint(format!(
                        "add \"{code}\" to `languages` in casebook.toml, or rename the file"
                    )),
                ]);
            }
            (stem.to_string(), code.to_string())
        }
        _ => (full_stem.to_string(), config.default_language.clone()),
    };
    let dir = rel.parent().map(to_slash).unwrap_or_default();
    let kind = match stem.as_str() {
        "_index" => FileKind::SectionIndex,
        "index" if !dir.is_empty() => FileKind::BundleIndex,
        _ => FileKind::Page,
    };
    let key = if dir.is_empty() {
        format!("{stem}.md")
    } else {
        format!("{dir}/{stem}.md")
    };

    let schema = config.cases.as_ref();
    let in_case_section = schema.is_some_and(|s| {
        let parent = match kind {
            FileKind::BundleIndex => dir.rsplit_once('/').map_or("", |(p, _)| p),
            _ => dir.as_str(),
        };
        kind != FileKind::SectionIndex && parent == s.section
    });
    let is_translation = lang != config.default_language;
    let standard_keys = if kind == FileKind::SectionIndex {
        meta::SECTION_KEYS
    } else {
        meta::PAGE_KEYS
    };

    let mut diags = Vec::new();
    let mut standard_entries = Vec::new();
    let mut case_entries = Vec::new();
    for e in &doc.entries {
        if standard_keys.contains(&e.key.as_str()) {
            standard_entries.push(e);
        } else if in_case_section && schema.is_some_and(|s| s.field(&e.key).is_some()) {
            case_entries.push(e);
        } else {
            let mut known: Vec<&str> = standard_keys.to_vec();
            if in_case_section {
                known.extend(
                    schema
                        .into_iter()
                        .flat_map(|s| s.fields.iter().map(|f| f.name.as_str())),
                );
            }
            diags.push(
                Diagnostic::new(&source, format!("unknown front-matter key `{}`", e.key))
                    .at(e.line, e.column)
                    .field(&e.key)
                    .hint(case::unknown_key_hint(&e.key, known)),
            );
        }
    }
    let standard = meta::extract(&source, &standard_entries, &mut diags);
    let photos = match doc.entries.iter().find(|e| e.key == "photos") {
        Some(e) if kind != FileKind::SectionIndex => {
            let default = if in_case_section {
                config.images.case_sensitivity
            } else {
                config.images.page_sensitivity
            };
            let display_dir = source
                .parent()
                .unwrap_or(Path::new("content"))
                .to_path_buf();
            let dir = abs.parent().unwrap_or(content_dir).to_path_buf();
            photos::parse(
                &e.value,
                doc.block,
                e.line,
                &source,
                &dir,
                &display_dir,
                default,
                &mut diags,
            )
        }
        _ => Vec::new(),
    };
    let has_case_fields = !case_entries.is_empty();
    let case = match schema {
        Some(schema) if in_case_section && !is_translation => {
            case::validate(&source, schema, &case_entries, 1, &mut diags)
        }
        _ => None,
    };
    if in_case_section && is_translation && has_case_fields {
        let e = case_entries[0];
        diags.push(
            Diagnostic::new(&source, "case fields are written once, in the default-language file")
                .at(e.line, e.column)
                .field(&e.key)
                .hint("remove the case fields from the translation; keep only title, description and the narrative"),
        );
    }
    let title = match (&standard.title, &case) {
        (Some(t), _) if !t.trim().is_empty() => t.clone(),
        (_, Some(c)) => format!("Case {}", c.id),
        _ if in_case_section && is_translation => String::new(),
        _ => {
            diags.push(
                Diagnostic::new(&source, "every page needs a title")
                    .at(1, 1)
                    .field("title")
                    .hint("add `title = \"...\"` to the front matter"),
            );
            String::new()
        }
    };
    if !diags.is_empty() {
        return Err(diags);
    }
    Ok(Parsed {
        kind,
        dir,
        stem,
        key,
        lang: lang.clone(),
        meta: Meta {
            source,
            key: String::new(),
            lang,
            title,
            description: standard.description.clone(),
            date: standard.date,
            updated: standard.updated,
            weight: standard.weight,
            template: standard.template.clone(),
            extra: standard.extra.clone(),
            path: String::new(),
            body: doc.body.to_string(),
            body_line: doc.body_line,
            photos,
        },
        standard,
        case,
    })
}

fn section_url(dir: &str) -> String {
    if dir.is_empty() {
        return "/".into();
    }
    let mut out = String::from("/");
    for part in dir.split('/') {
        out.push_str(&slug::slugify(part));
        out.push('/');
    }
    out
}

fn with_lang(config: &Config, lang: &str, path: &str) -> String {
    format!(
        "{}{}",
        config.language_prefix(lang),
        path.trim_start_matches('/')
    )
}

fn assemble(
    config: &Config,
    parsed: Vec<Parsed>,
    other_files: &[PathBuf],
    content_dir: &Path,
    diags: &mut Diagnostics,
) -> Corpus {
    let mut corpus = Corpus::default();
    let case_dir = config.cases.as_ref().map(|s| s.section.as_str());
    let mut section_index: BTreeMap<(String, String), usize> = BTreeMap::new();
    let (section_files, page_files): (Vec<_>, Vec<_>) = parsed
        .into_iter()
        .partition(|p| p.kind == FileKind::SectionIndex);

    for p in section_files {
        let mut meta = p.meta;
        meta.key = p.key.clone();
        meta.path = with_lang(config, &p.lang, &section_url(&p.dir));
        section_index.insert((p.dir.clone(), p.lang.clone()), corpus.sections.len());
        corpus.sections.push(Section {
            meta,
            is_case_collection: Some(p.dir.as_str()) == case_dir,
            dir: p.dir,
            paginate_by: p.standard.paginate_by,
            pages: Vec::new(),
            subsections: Vec::new(),
        });
    }
    if corpus.root_section(&config.default_language).is_none() {
        diags.push(
            Diagnostic::new("content/_index.md", "the home page is missing").hint(
                "create content/_index.md with at least `title = \"...\"` in its front matter",
            ),
        );
    }

    let photo_sources: HashSet<PathBuf> = page_files
        .iter()
        .flat_map(|p| p.meta.photos.iter().map(|s| s.source.clone()))
        .collect();

    // Pages, attached to the section of their folder in their language.
    let mut translated_cases: BTreeMap<String, Vec<Parsed>> = BTreeMap::new();
    for p in page_files {
        let section_dir = match p.kind {
            FileKind::BundleIndex => p.dir.rsplit_once('/').map_or("", |(d, _)| d).to_string(),
            _ => p.dir.clone(),
        };
        let Some(&section) = section_index.get(&(section_dir.clone(), p.lang.clone())) else {
            let wanted = if p.lang == config.default_language {
                format!("{section_dir}/_index.md")
            } else {
                format!("{section_dir}/_index.{}.md", p.lang)
            };
            diags.push(
                Diagnostic::new(&p.meta.source, "this page's folder is not a section").hint(
                    format!(
                        "create content/{} so the page has a section to belong to",
                        wanted.trim_start_matches('/')
                    ),
                ),
            );
            continue;
        };
        let is_case = Some(section_dir.as_str()) == case_dir;
        if is_case && p.lang != config.default_language {
            translated_cases.entry(p.key.clone()).or_default().push(p);
            continue;
        }
        let page_name = match p.kind {
            FileKind::BundleIndex => p.dir.rsplit('/').next().unwrap_or_default().to_string(),
            _ => p.stem.clone(),
        };
        let slug = match (&p.case, &p.standard.slug) {
            (Some(c), _) => c.id.clone(),
            (None, Some(s)) => slug::slugify(s),
            (None, None) => slug::slugify(&page_name),
        };
        let mut meta = p.meta;
        meta.key = p.key.clone();
        meta.path = format!("{}{slug}/", corpus.sections[section].meta.path);
        if p.kind == FileKind::BundleIndex && p.lang == config.default_language && !is_case {
            // Bundle attachments are published once, beside the default-language page. Case
            // folders hold source photographs: nothing in them is ever copied as it is.
            let bundle_dir = format!("{}/", p.dir);
            for f in other_files {
                let rel = to_slash(f);
                if let Some(name) = rel.strip_prefix(&bundle_dir) {
                    if !name.contains('/')
                        && publishable_attachment(&content_dir.join(f), &photo_sources)
                    {
                        corpus.assets.push(Asset {
                            source: content_dir.join(f),
                            output: format!("{}{name}", meta.path.trim_start_matches('/')),
                        });
                    }
                }
            }
        }
        if is_case && p.case.is_none() {
            continue; // schema errors were already reported
        }
        corpus.pages.push(Page {
            meta,
            section,
            case: p.case,
            fallback: false,
        });
    }

    // Loose files beside `_index.md` belong to the section.
    for f in other_files {
        let rel = to_slash(f);
        let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        if let Some(&s) = section_index.get(&(dir.to_string(), config.default_language.clone())) {
            if Some(dir) != case_dir && publishable_attachment(&content_dir.join(f), &photo_sources)
            {
                let name = rel.rsplit('/').next().unwrap_or_default();
                corpus.assets.push(Asset {
                    source: content_dir.join(f),
                    output: format!(
                        "{}{name}",
                        corpus.sections[s].meta.path.trim_start_matches('/')
                    ),
                });
            }
        }
    }

    add_case_translations(config, &mut corpus, translated_cases, &section_index, diags);
    check_duplicate_cases(config, &corpus, diags);
    link_tree(&mut corpus);
    index_links(config, &mut corpus, diags);
    corpus
}

fn is_image(path: &Path) -> bool {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .is_some_and(|e| IMAGE_EXTENSIONS.contains(&e.as_str()))
}

/// Whether bytes start like an image file, whatever the file is called (`.jfif`, `.bak`,
/// no extension...): names lie, signatures do not.
pub fn looks_like_image(head: &[u8]) -> bool {
    head.starts_with(&[0xFF, 0xD8, 0xFF])
        || head.starts_with(b"\x89PNG")
        || head.starts_with(b"GIF8")
        || (head.starts_with(b"RIFF") && head.get(8..12) == Some(&b"WEBP"[..]))
        || head.starts_with(b"II*\0")
        || head.starts_with(b"MM\0*")
        || (head.starts_with(b"BM") && head.get(6..10) == Some(&[0u8, 0, 0, 0][..]))
        || head.starts_with(&[0xFF, 0x0A])
        || head.get(4..8) == Some(&b"ftyp"[..])
        || head.get(4..8) == Some(&b"jP  "[..])
        || head.get(4..12) == Some(&b"JXL \r\n\x87\n"[..])
        || head.starts_with(b"<svg")
        || head.starts_with(b"<?xml")
}

/// Attachments are copied as they are, so anything that is or may be a photograph is not:
/// by extension, by content, or because a page lists it in `[[photos]]`.
fn publishable_attachment(path: &Path, photo_sources: &HashSet<PathBuf>) -> bool {
    if is_image(path) {
        return false;
    }
    if std::fs::canonicalize(path).is_ok_and(|real| photo_sources.contains(&real)) {
        return false;
    }
    let mut head = [0u8; 16];
    let n = std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
        .unwrap_or(0);
    !looks_like_image(&head[..n])
}

/// Cases exist in every language whose case section exists: translated where a
/// `index.<lang>.md` exists, otherwise the default-language record marked as a fallback.
fn add_case_translations(
    config: &Config,
    corpus: &mut Corpus,
    mut translated: BTreeMap<String, Vec<Parsed>>,
    section_index: &BTreeMap<(String, String), usize>,
    diags: &mut Diagnostics,
) {
    let Some(case_dir) = config.cases.as_ref().map(|s| s.section.clone()) else {
        return;
    };
    let originals: Vec<usize> = (0..corpus.pages.len())
        .filter(|&i| corpus.pages[i].case.is_some())
        .collect();
    for lang in config.languages.iter().skip(1) {
        let Some(&section) = section_index.get(&(case_dir.clone(), lang.code.clone())) else {
            continue;
        };
        for &i in &originals {
            let original = &corpus.pages[i];
            let translation = translated.get_mut(&original.meta.key).and_then(|v| {
                v.iter()
                    .position(|p| p.lang == lang.code)
                    .map(|j| v.remove(j))
            });
            let mut meta = original.meta.clone();
            meta.lang = lang.code.clone();
            meta.path = format!(
                "{}{}/",
                corpus.sections[section].meta.path,
                original.case.as_ref().map_or("", |c| c.id.as_str())
            );
            let fallback = translation.is_none();
            if let Some(t) = translation {
                meta.source = t.meta.source;
                if !t.meta.title.is_empty() {
                    meta.title = t.meta.title;
                }
                meta.description = t.meta.description.or(meta.description);
                meta.body = t.meta.body;
                meta.body_line = t.meta.body_line;
                meta.extra = t.meta.extra;
                // The photographs are the original's; a translation may translate their
                // alt text and captions, matched by file.
                for photo in &mut meta.photos {
                    if let Some(tr) = t.meta.photos.iter().find(|p| p.file == photo.file) {
                        photo.alt = tr.alt.clone();
                        photo.caption = tr.caption.clone().or(photo.caption.take());
                    }
                }
            }
            let case = original.case.clone();
            corpus.pages.push(Page {
                meta,
                section,
                case,
                fallback,
            });
        }
    }
    for p in translated.into_values().flatten() {
        let message = if section_index.contains_key(&(case_dir.clone(), p.lang.clone())) {
            "this translation has no default-language case file beside it"
        } else {
            "the case section has no translation in this language"
        };
        diags.push(Diagnostic::new(&p.meta.source, message).hint(format!(
            "create the default-language index.md beside it, or content/{case_dir}/_index.{}.md",
            p.lang
        )));
    }
}

fn check_duplicate_cases(config: &Config, corpus: &Corpus, diags: &mut Diagnostics) {
    let Some(schema) = &config.cases else { return };
    let mut seen: HashMap<&str, &Path> = HashMap::new();
    for p in corpus
        .pages
        .iter()
        .filter(|p| !p.fallback && p.meta.lang == config.default_language)
    {
        if let Some(c) = &p.case {
            if let Some(first) = seen.insert(&c.id, &p.meta.source) {
                diags.push(
                    Diagnostic::new(
                        &p.meta.source,
                        format!("case id `{}` is already used by {}", c.id, first.display()),
                    )
                    .at(c.id_at.0, c.id_at.1)
                    .field(&schema.id_field)
                    .hint("every case needs its own id; change one of the two"),
                );
            }
        }
    }
}

/// Sorts pages into their sections and sections into their parents.
fn link_tree(corpus: &mut Corpus) {
    for (i, page) in corpus.pages.iter().enumerate() {
        corpus.sections[page.section].pages.push(i);
    }
    let parents: Vec<(usize, Option<usize>)> = (0..corpus.sections.len())
        .map(|i| {
            let s = &corpus.sections[i];
            let parent = (!s.dir.is_empty()).then(|| {
                let parent_dir = s.dir.rsplit_once('/').map_or("", |(d, _)| d);
                corpus
                    .sections
                    .iter()
                    .position(|p| p.dir == parent_dir && p.meta.lang == s.meta.lang)
            });
            (i, parent.flatten())
        })
        .collect();
    for (child, parent) in parents {
        if let Some(parent) = parent {
            corpus.sections[parent].subsections.push(child);
        }
    }
    let pages = &corpus.pages;
    let sections_meta: Vec<Meta> = corpus.sections.iter().map(|s| s.meta.clone()).collect();
    for s in &mut corpus.sections {
        s.pages
            .sort_by(|&a, &b| order(&pages[a].meta, &pages[b].meta));
        s.subsections
            .sort_by(|&a, &b| order(&sections_meta[a], &sections_meta[b]));
    }
}

/// Weight first (unweighted last), then newest date, then title, then file.
pub fn order(a: &Meta, b: &Meta) -> std::cmp::Ordering {
    let weight = |m: &Meta| (m.weight.is_none(), m.weight);
    let date = |m: &Meta| (m.date.is_none(), std::cmp::Reverse(m.date));
    weight(a)
        .cmp(&weight(b))
        .then_with(|| date(a).cmp(&date(b)))
        .then_with(|| a.title.cmp(&b.title))
        .then_with(|| a.source.cmp(&b.source))
}

fn index_links(config: &Config, corpus: &mut Corpus, diags: &mut Diagnostics) {
    let mut by_path: HashMap<String, PathBuf> = HashMap::new();
    // Fields borrowed apart: the loop fills `links` and `versions` while reading metas.
    let metas = corpus
        .sections
        .iter()
        .map(|s| &s.meta)
        .chain(corpus.pages.iter().map(|p| &p.meta));
    for m in metas {
        if let Some(first) = by_path.get(&m.path) {
            if first != &m.source {
                diags.push(
                    Diagnostic::new(
                        &m.source,
                        format!("the URL {} is also produced by {}", m.path, first.display()),
                    )
                    .hint("rename one of the files or give it a different `slug`"),
                );
            }
        } else {
            by_path.insert(m.path.clone(), m.source.clone());
        }
        corpus
            .links
            .insert((m.key.clone(), m.lang.clone()), m.path.clone());
        corpus
            .versions
            .entry(m.key.clone())
            .or_default()
            .push((m.lang.clone(), m.path.clone()));
        // An explicit translation file name (`about.ar.md`) links to that language.
        if m.lang != config.default_language {
            let explicit = m.key.replacen(".md", &format!(".{}.md", m.lang), 1);
            corpus
                .links
                .entry((explicit, String::new()))
                .or_insert_with(|| m.path.clone());
        }
    }
    corpus.source_of_path = by_path;
    let order: HashMap<&str, usize> = config
        .languages
        .iter()
        .enumerate()
        .map(|(i, l)| (l.code.as_str(), i))
        .collect();
    for v in corpus.versions.values_mut() {
        v.sort_by_key(|(lang, _)| order.get(lang.as_str()).copied());
        v.dedup();
    }
}
