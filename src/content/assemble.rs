//! Assembling parsed files into a `Corpus`: the section tree, translations, case routing,
//! attachments, duplicate cases and `@/` link targets.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::parse::{section_url, with_lang};
use super::{
    Asset, Corpus, FileKind, IMAGE_EXTENSIONS, Meta, Page, Parsed, Section, order, to_slash,
};
use crate::config::Config;
use crate::error::{Diagnostic, Diagnostics};

pub(super) fn assemble(
    config: &Config,
    parsed: Vec<Parsed>,
    other_files: &[PathBuf],
    content_dir: &Path,
    failed_keys: &HashSet<String>,
    diags: &mut Diagnostics,
) -> Corpus {
    let mut corpus = Corpus::default();
    let case_dir = config.cases.as_ref().map(|s| s.section.as_str());
    let mut section_index: BTreeMap<(String, String), usize> = BTreeMap::new();
    // Into lists sized at once: partitioned into lists grown as they filled, 11,000 parsed
    // files (most of a kilobyte each) were moved and faulted into fresh memory several times.
    let mut section_files = Vec::new();
    let mut page_files = Vec::with_capacity(parsed.len());
    for p in parsed {
        match p.kind {
            FileKind::SectionIndex => section_files.push(p),
            _ => page_files.push(p),
        }
    }

    for p in section_files {
        let mut meta = p.meta;
        meta.key = p.key.clone();
        meta.path = with_lang(config, &p.lang, &section_url(&p.dir));
        name_fits(&meta.path, &meta.source, diags);
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

    // Images are never attachments (`publishable_attachment`): an archive's tens of
    // thousands of photographs are left out at once, by name.
    let attachable: Vec<(&PathBuf, String)> = (other_files.iter())
        .filter(|f| !is_image(f))
        .map(|f| (f, to_slash(f)))
        .collect();
    let photo_sources: HashSet<PathBuf> = if attachable.is_empty() {
        HashSet::new()
    } else {
        (page_files.iter())
            .flat_map(|p| p.meta.photos.iter().map(|s| s.source.clone()))
            .collect()
    };

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
        let slug = slug_of(&p);
        let mut meta = p.meta;
        meta.key = p.key.clone();
        meta.path = format!("{}{slug}/", corpus.sections[section].meta.path);
        if p.case.is_none() {
            // A case's folder is its id, checked with the id; a page's is its slug.
            name_fits(&format!("/{slug}/"), &meta.source, diags);
        }
        if p.kind == FileKind::BundleIndex && p.lang == config.default_language && !is_case {
            // Bundle attachments are published once, beside the default-language page. Case
            // folders hold source photographs: nothing in them is ever copied as it is.
            let bundle_dir = format!("{}/", p.dir);
            for (f, rel) in &attachable {
                if let Some(name) = rel.strip_prefix(&bundle_dir) {
                    if !name.contains('/')
                        && publishable_attachment(
                            &config.root,
                            &content_dir.join(f),
                            &photo_sources,
                        )
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
        corpus.pages.push(Arc::new(Page {
            meta,
            section,
            case: p.case,
            fallback: false,
            title_lang: None,
            description_lang: None,
        }));
    }

    // Loose files beside `_index.md` belong to the section.
    for (f, rel) in &attachable {
        let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        if let Some(&s) = section_index.get(&(dir.to_string(), config.default_language.clone())) {
            if Some(dir) != case_dir
                && publishable_attachment(&config.root, &content_dir.join(f), &photo_sources)
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

    // A translation whose default-language file failed to load is not an orphan: that
    // file's own errors are reported.
    translated_cases.retain(|key, _| !failed_keys.contains(key));
    add_case_translations(config, &mut corpus, translated_cases, &section_index, diags);
    check_duplicate_cases(config, &corpus, diags);
    // Withdrawn cases leave every list, index, feed and export: only their tombstones stay.
    let (withdrawn, pages) = std::mem::take(&mut corpus.pages)
        .into_iter()
        .partition(|p| p.case.as_ref().is_some_and(|c| c.withdrawn.is_some()));
    corpus.pages = pages;
    corpus.withdrawn = withdrawn;
    link_tree(config, &mut corpus);
    index_links(config, &mut corpus, diags);
    corpus
}

/// The last part of a page's address: a case's id, else its `slug`, else its file's name.
pub(super) fn slug_of(p: &Parsed) -> String {
    let page_name = match p.kind {
        FileKind::BundleIndex => p.dir.rsplit('/').next().unwrap_or_default(),
        _ => &p.stem,
    };
    match (&p.case, &p.standard.slug) {
        (Some(c), _) => c.id.clone(),
        (None, Some(s)) => slug::slugify(s),
        (None, None) => slug::slugify(page_name),
    }
}

/// A case's page in another language before any translation: the original's record, with
/// every text marked as in the original's language.
pub(super) fn fallback_edition(original: &Page, lang: &str, path: String, section: usize) -> Page {
    let mut meta = original.meta.clone();
    meta.lang = lang.to_string();
    meta.path = path;
    let original_lang = Some(original.meta.lang.clone());
    for photo in &mut meta.photos {
        photo.alt_lang = original_lang.clone();
        photo.caption_lang = photo.caption.as_ref().and(original_lang.clone());
    }
    Page {
        description_lang: original
            .meta
            .description
            .as_ref()
            .and(original_lang.clone()),
        title_lang: original_lang,
        meta,
        section,
        case: original.case.clone(),
        fallback: true,
    }
}

pub(super) fn is_image(path: &Path) -> bool {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .is_some_and(|e| IMAGE_EXTENSIONS.contains(&e.as_str()))
}

/// Whether bytes start like an image file, whatever the file is called (`.jfif`, `.bak`,
/// no extension...): names lie, signatures do not.
pub(crate) fn looks_like_image(head: &[u8]) -> bool {
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

/// Reports a folder of `url_path` that no file system would accept as a name: a slug made
/// from a long Arabic file name, for one, can be longer than the name itself.
fn name_fits(url_path: &str, source: &Path, diags: &mut Diagnostics) {
    if let Some(problem) = url_path
        .split('/')
        .find_map(|part| crate::output::name_too_long(part, 0))
    {
        diags.push(
            Diagnostic::new(
                source,
                format!("the page's address cannot be a folder name: {problem}"),
            )
            .at(1, 1)
            .hint("give the page a shorter `slug`, or its file or folder a shorter name"),
        );
    }
}

/// Attachments are copied as they are, so anything that is or may be a photograph is not:
/// by extension, by content, or because a page lists it in `[[photos]]`.
pub(super) fn publishable_attachment(
    root: &Path,
    path: &Path,
    photo_sources: &HashSet<PathBuf>,
) -> bool {
    if is_image(path) {
        return false;
    }
    if std::fs::canonicalize(path).is_ok_and(|real| photo_sources.contains(&real)) {
        return false;
    }
    let mut head = [0u8; 16];
    let n = crate::beneath::open(root, path)
        .and_then(|(mut f, _)| std::io::Read::read(&mut f, &mut head))
        .unwrap_or(0);
    !looks_like_image(&head[..n])
}

/// Cases exist in every language whose case section exists: translated where a
/// `index.<lang>.md` exists, otherwise the default-language record marked as a fallback.
pub(super) fn add_case_translations(
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
            let path = format!(
                "{}{}/",
                corpus.sections[section].meta.path,
                original.case.as_ref().map_or("", |c| c.id.as_str())
            );
            // Until a translation says otherwise, every text is the original's.
            let mut page = fallback_edition(original, &lang.code, path, section);
            let (meta, title_lang, description_lang) = (
                &mut page.meta,
                &mut page.title_lang,
                &mut page.description_lang,
            );
            let withdrawn = original
                .case
                .as_ref()
                .is_some_and(|c| c.withdrawn.is_some());
            page.fallback = translation.is_none();
            if let Some(t) = translation.filter(|_| !withdrawn) {
                meta.source = t.meta.source;
                if !t.meta.title.is_empty() {
                    meta.title = t.meta.title;
                    *title_lang = None;
                }
                if t.meta.description.is_some() {
                    *description_lang = None;
                }
                meta.description = t.meta.description.or(meta.description.take());
                meta.body = t.meta.body;
                meta.body_line = t.meta.body_line;
                meta.extra = t.meta.extra;
                // The photographs are the original's; a translation may translate their
                // alt text and captions, matched by file.
                for photo in &mut meta.photos {
                    if let Some(tr) = t.meta.photos.iter().find(|p| p.file == photo.file) {
                        photo.alt = tr.alt.clone();
                        photo.alt_lang = None;
                        if tr.caption.is_some() {
                            photo.caption = tr.caption.clone();
                            photo.caption_lang = None;
                        }
                    }
                }
            }
            corpus.pages.push(Arc::new(page));
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

pub(super) fn check_duplicate_cases(config: &Config, corpus: &Corpus, diags: &mut Diagnostics) {
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
pub(super) fn link_tree(config: &Config, corpus: &mut Corpus) {
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
    // Every edition lists pages in one order: ties after weight and date are broken by the
    // default language's title, so an untranslated page (its title in the default
    // language) does not sort apart from translated ones (SYN-0009 before SYN-0001).
    let default_titles: HashMap<&str, &str> = pages
        .iter()
        .filter(|p| p.meta.lang == config.default_language)
        .map(|p| (p.meta.key.as_str(), p.meta.title.as_str()))
        .collect();
    fn sort_title<'a>(titles: &HashMap<&str, &'a str>, m: &'a Meta) -> &'a str {
        titles.get(m.key.as_str()).copied().unwrap_or(&m.title)
    }
    let by_default_title = |a: &Meta, b: &Meta| {
        let title = |m| sort_title(&default_titles, m);
        let weight = |m: &Meta| (m.weight.is_none(), m.weight);
        let date = |m: &Meta| (m.date.is_none(), std::cmp::Reverse(m.date));
        weight(a)
            .cmp(&weight(b))
            .then_with(|| date(a).cmp(&date(b)))
            .then_with(|| title(a).cmp(title(b)))
            .then_with(|| order(a, b))
    };
    for s in &mut corpus.sections {
        s.pages
            .sort_by(|&a, &b| by_default_title(&pages[a].meta, &pages[b].meta));
        s.subsections
            .sort_by(|&a, &b| order(&sections_meta[a], &sections_meta[b]));
    }
}

pub(super) fn index_links(config: &Config, corpus: &mut Corpus, diags: &mut Diagnostics) {
    let metas: Vec<&Meta> = (corpus.sections.iter().map(|s| &s.meta))
        .chain(corpus.pages.iter().map(|p| &p.meta))
        .chain(corpus.withdrawn.iter().map(|p| &p.meta))
        .collect();
    // Three indexes of every page, independent of each other: made side by side, each
    // sized at once (15,876 pages at 11,000 cases; grown and hashed one by one, they were
    // half of assembling the corpus after a one-case edit).
    let ((by_path, same_path), (links, versions)) = rayon::join(
        || paths_and_sources(&metas),
        || {
            rayon::join(
                || link_targets(config, &metas),
                || versions_of(config, &metas),
            )
        },
    );
    for (meta, first) in same_path {
        diags.push(
            Diagnostic::new(
                &meta.source,
                format!(
                    "the URL {} is also produced by {}",
                    meta.path,
                    first.display()
                ),
            )
            .hint("rename one of the files or give it a different `slug`"),
        );
    }
    corpus.source_of_path = Arc::new(by_path);
    corpus.links = Arc::new(links);
    corpus.versions = Arc::new(versions);
}

/// Each URL path with the file that produces it (the first, in `metas`' order), and each
/// later page that produces a path already taken, with that first file.
#[allow(clippy::type_complexity)]
fn paths_and_sources<'m>(
    metas: &[&'m Meta],
) -> (HashMap<String, PathBuf>, Vec<(&'m Meta, PathBuf)>) {
    let mut by_path: HashMap<String, PathBuf> = HashMap::with_capacity(metas.len());
    let mut same_path = Vec::new();
    for m in metas {
        match by_path.get(&m.path) {
            Some(first) if first != &m.source => same_path.push((*m, first.clone())),
            Some(_) => {}
            None => {
                by_path.insert(m.path.clone(), m.source.clone());
            }
        }
    }
    (by_path, same_path)
}

/// (content key, language) -> URL path, for `@/` links; an explicit translation file name
/// (`about.ar.md`) links to that language.
fn link_targets(config: &Config, metas: &[&Meta]) -> HashMap<(String, String), String> {
    let mut links = HashMap::with_capacity(metas.len() * 2);
    for m in metas {
        links.insert((m.key.clone(), m.lang.clone()), m.path.clone());
        if m.lang != config.default_language {
            let explicit = m.key.replacen(".md", &format!(".{}.md", m.lang), 1);
            links
                .entry((explicit, String::new()))
                .or_insert_with(|| m.path.clone());
        }
    }
    links
}

/// Content key -> every (language, URL path) it is published at, in language order.
fn versions_of(config: &Config, metas: &[&Meta]) -> HashMap<String, Vec<(String, String)>> {
    let mut versions: HashMap<String, Vec<(String, String)>> = HashMap::with_capacity(metas.len());
    for m in metas {
        let version = (m.lang.clone(), m.path.clone());
        match versions.get_mut(&m.key) {
            Some(list) => list.push(version),
            None => {
                versions.insert(m.key.clone(), vec![version]);
            }
        }
    }
    let order: HashMap<&str, usize> = (config.languages.iter().enumerate())
        .map(|(i, l)| (l.code.as_str(), i))
        .collect();
    for v in versions.values_mut() {
        v.sort_by_key(|(lang, _)| order.get(lang.as_str()).copied());
        v.dedup();
    }
    versions
}
