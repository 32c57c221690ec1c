//! A rebuild's shortcut (`serve`): when the files saved change only what pages say, not
//! which pages there are, where they are published or in what order they are listed, the
//! last load's corpus is copied (its pages are shared, so that is a list of pointers) and
//! only the pages made from those files are made again. Anything else (a section index, a
//! translation, a new title, date, weight, address or case id, a draft, a withdrawal, a
//! parse error, a file added, removed or renamed, anything but markdown touched) takes the
//! full load, which gives the same corpus.

use std::path::PathBuf;
use std::sync::Arc;

use super::assemble::{fallback_edition, slug_of};
use super::listing::{FileStamp, ParseCache, ParseResult};
use super::parse::parse_file;
use super::{Corpus, FileKind, Page, Parsed};
use crate::config::Config;

/// More files than this saved at once take the full load (a script's batch edit).
const MOST_FILES: usize = 16;

/// The corpus of `cache`'s last load with the markdown files of `markdown` that changed
/// since parsed again, when that is a patch; `None` when the full load must run. The files
/// parsed are kept in `cache` either way.
pub(super) fn patched_load(
    config: &Config,
    drafts: bool,
    content_dir: &std::path::Path,
    markdown: &[(PathBuf, Option<FileStamp>)],
    cache: &mut ParseCache,
) -> Option<Corpus> {
    let last = cache.last.clone()?;
    let mut changed: Vec<(&PathBuf, FileStamp)> = Vec::new();
    for (rel, stamp) in markdown {
        let stamp = (*stamp)?;
        if cache.files.get(rel).is_none_or(|(kept, _)| *kept != stamp) {
            changed.push((rel, stamp));
            if changed.len() > MOST_FILES {
                return None;
            }
        }
    }
    let parsed: Vec<(PathBuf, FileStamp, ParseResult)> = changed
        .into_iter()
        .map(|(rel, stamp)| (rel.clone(), stamp, parse_file(config, content_dir, rel)))
        .collect();
    for (rel, stamp, result) in &parsed {
        cache.files.insert(rel.clone(), (*stamp, result.clone()));
    }
    let mut corpus = Corpus::clone(&last);
    for (_, _, result) in &parsed {
        patch(config, drafts, &mut corpus, result.as_ref().ok()?)?;
    }
    cache.last = Some(Arc::new(corpus.clone()));
    Some(corpus)
}

/// Puts the pages made from `p` in place of those made from its last version, if nothing
/// but what they say changed.
fn patch(config: &Config, drafts: bool, corpus: &mut Corpus, p: &Parsed) -> Option<()> {
    let withdrawn = p.case.as_ref().is_some_and(|c| c.withdrawn.is_some());
    if p.kind == FileKind::SectionIndex || (p.standard.draft && !drafts) || withdrawn {
        return None;
    }
    let source = &p.meta.source;
    // The original comes first; its copies in other languages follow, after every original.
    let made: Vec<usize> = (0..corpus.pages.len())
        .filter(|&i| corpus.pages[i].meta.source == *source)
        .collect();
    let (&original, copies) = made.split_first()?;
    let old = corpus.pages[original].clone();
    let same_place = old.meta.lang == config.default_language || copies.is_empty();
    let copies_are_fallbacks = copies.iter().all(|&i| corpus.pages[i].fallback);
    // A translation of the same content comes from another file: the full load merges them.
    let translated = corpus
        .pages
        .iter()
        .any(|q| q.meta.key == old.meta.key && q.meta.source != *source);
    let unmoved = p.key == old.meta.key
        && p.lang == old.meta.lang
        && !old.fallback
        && p.meta.title == old.meta.title
        && p.meta.date == old.meta.date
        && p.meta.weight == old.meta.weight
        && p.case.as_ref().map(|c| &c.id) == old.case.as_ref().map(|c| &c.id)
        && photo_sources(&p.meta.photos).eq(photo_sources(&old.meta.photos))
        && old.meta.path == format!("{}{}/", corpus.sections[old.section].meta.path, slug_of(p));
    if !(unmoved && same_place && copies_are_fallbacks) || translated {
        return None;
    }
    let mut meta = p.meta.clone();
    meta.key = old.meta.key.clone();
    meta.path = old.meta.path.clone();
    let page = Page {
        meta,
        section: old.section,
        case: p.case.clone(),
        fallback: false,
        title_lang: None,
        description_lang: None,
    };
    for &i in copies {
        let copy = &corpus.pages[i];
        let edition =
            fallback_edition(&page, &copy.meta.lang, copy.meta.path.clone(), copy.section);
        corpus.pages[i] = Arc::new(edition);
    }
    corpus.pages[original] = Arc::new(page);
    Some(())
}

fn photo_sources(photos: &[super::photos::PhotoSpec]) -> impl Iterator<Item = &PathBuf> {
    photos.iter().map(|photo| &photo.source)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::content::{load_cached, load_partial};

    /// Rewrites `rel` (below `content/`) and loads as serve does after the watcher reported
    /// it; checks the corpus against a load from nothing and returns whether it was patched.
    fn edit(
        root: &Path,
        cache: &mut ParseCache,
        rel: &str,
        change: impl Fn(&str) -> String,
    ) -> bool {
        let file = root.join("content").join(rel);
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        std::fs::write(&file, change(&text)).unwrap();
        let config = Config::load(root).unwrap();
        let before = cache.last.clone();
        cache.forget(Path::new(rel));
        let (corpus, problems) = load_cached(&config, false, cache).unwrap();
        let (fresh, fresh_problems) = load_partial(&config, false).unwrap();
        assert_eq!(problems, fresh_problems, "{rel}");
        assert!(
            corpus == fresh,
            "after editing {rel}, the corpus differs from a full load"
        );
        // A patch shares every page it did not make again with the last load.
        let before = before.expect("the last load found no problem");
        let shared = (corpus.pages.iter().zip(&before.pages)).filter(|(a, b)| Arc::ptr_eq(a, b));
        shared.count() > 0
    }

    #[test]
    fn a_patched_corpus_is_the_corpus_a_full_load_gives() {
        let (_dir, root) = crate::paths::fixture_copy("i18n");
        let config = Config::load(&root).unwrap();
        let mut cache = ParseCache::default();
        load_cached(&config, false, &mut cache).unwrap();
        let body = |t: &str| format!("{t}\nMore narrative.\n");
        let c2 = "cases/c-2/index.md";
        // What pages say: patched (the case and its Arabic fallback copy made again).
        assert!(edit(&root, &mut cache, c2, body));
        assert!(edit(&root, &mut cache, c2, |t| t.replace("\"227\"", "\"215\"")));
        assert!(edit(&root, &mut cache, c2, |t| t
            .replace("+++\nEnglish", "description = \"d\"\n+++\nEnglish")));
        // A new file is listed again in full; then its edits are patched.
        assert!(!edit(&root, &mut cache, "notes.md", |_| {
            "+++\ntitle = \"Notes\"\n+++\nA.\n".into()
        }));
        assert!(edit(&root, &mut cache, "notes.md", body));
        // What pages are, where and in what order: a full load.
        let full = [
            (c2, "title = \"Case two\"", "title = \"Case 2\""),
            (c2, "case_id = \"c-2\"", "case_id = \"c-3\""),
            (c2, "+++\nEnglish", "date = 2014-01-20\n+++\nEnglish"),
            (c2, "+++\nEnglish", "draft = true\n+++\nEnglish"),
            ("notes.md", "+++\nA", "slug = \"n\"\n+++\nA"),
            ("notes.md", "+++\nA", "weight = 3\n+++\nA"),
        ];
        for (rel, from, to) in full {
            assert!(
                !edit(&root, &mut cache, rel, |t| t.replacen(from, to, 1)),
                "{to}"
            );
            assert!(
                edit(&root, &mut cache, rel, body) || to.contains("draft"),
                "{to}"
            );
        }
        // Out of draft: listed again, a full load.
        assert!(!edit(&root, &mut cache, c2, |t| t.replace("draft = true\n", "")));
        // A translated case, its translation, a section: a full load.
        for rel in [
            "cases/c-1/index.md",
            "cases/c-1/index.ar.md",
            "cases/_index.md",
            "about.md",
        ] {
            assert!(!edit(&root, &mut cache, rel, body), "{rel}");
        }
        // A file that fails to parse, then mended: full loads, and patches again after.
        let broken = |t: &str| t.replacen("+++", "+++\nbroken = [", 1);
        let file = root.join("content").join(c2);
        let good = std::fs::read_to_string(&file).unwrap();
        std::fs::write(&file, broken(&good)).unwrap();
        cache.forget(Path::new(c2));
        assert!(
            !load_cached(&config, false, &mut cache)
                .unwrap()
                .1
                .is_empty()
        );
        assert!(cache.last.is_none());
        std::fs::write(&file, &good).unwrap();
        cache.forget(Path::new(c2));
        load_cached(&config, false, &mut cache).unwrap();
        assert!(edit(&root, &mut cache, c2, body));
    }
}
