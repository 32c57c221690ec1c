//! Every photograph of the last good build, as the workbench lists and edits them: read
//! from the build's content (the default language's pages), never from the output.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::config::{Config, Sensitivity};
use crate::content::photos::Region;
use crate::site::State;

/// One photograph entry of a page.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    /// The page's URL folder without slashes at either end (`cases/syn-0001`): the
    /// workbench's address for it.
    pub(crate) dir: String,
    /// The case id, or the page's title for a page that is not a case.
    pub(crate) case: String,
    pub(crate) section: String,
    /// The page's file, absolute, and as shown (relative to the site).
    pub(crate) page: PathBuf,
    pub(crate) page_display: String,
    pub(crate) url: String,
    pub(crate) file: String,
    pub(crate) source: PathBuf,
    pub(crate) sensitivity: Sensitivity,
    pub(crate) regions: Vec<Region>,
    pub(crate) alt: String,
    pub(crate) caption: Option<String>,
    /// Whether a review covers the photograph as it is now.
    pub(crate) reviewed: bool,
    /// The source's SHA-256, as the build read it: what a review covers.
    pub(crate) source_sha256: String,
    /// Each other language's page file with its alt text and caption for this photograph
    /// (the original's when it has none of its own).
    pub(crate) translations: Vec<Translation>,
}

#[derive(Debug, Clone)]
pub(crate) struct Translation {
    pub(crate) lang: String,
    pub(crate) page: PathBuf,
    pub(crate) alt: String,
    pub(crate) caption: Option<String>,
}

#[derive(Debug, Default)]
pub(crate) struct Catalogue {
    pub(crate) rows: Vec<Row>,
    by_address: HashMap<(String, String), usize>,
    /// The site's languages, the default first.
    pub(crate) languages: Vec<String>,
    pub(crate) config: Option<Arc<Config>>,
}

impl Catalogue {
    pub(crate) fn of(state: &State) -> Catalogue {
        let config = &state.config;
        let corpus = &state.corpus;
        let mut translated: HashMap<(&str, &str), Vec<Translation>> = HashMap::new();
        for page in &corpus.pages {
            if page.meta.lang == config.default_language || page.fallback {
                continue;
            }
            // An entry the translation wrote in full is a photograph of its own (below);
            // a case's translation gives only the original's alt text and caption.
            for spec in page
                .meta
                .photos
                .iter()
                .filter(|s| s.page != page.meta.source)
            {
                translated
                    .entry((page.meta.key.as_str(), spec.file.as_str()))
                    .or_default()
                    .push(Translation {
                        lang: page.meta.lang.clone(),
                        page: config.root.join(&page.meta.source),
                        alt: spec.alt.clone(),
                        caption: spec.caption.clone(),
                    });
            }
        }
        let mut rows = Vec::new();
        // Every photograph the build counts: each entry of the page file that wrote it.
        for page in corpus.pages.iter() {
            if page.fallback || page.meta.photos.is_empty() {
                continue;
            }
            let dir = page.meta.path.trim_matches('/').to_string();
            let case = page
                .case
                .as_ref()
                .map_or_else(|| page.meta.title.clone(), |c| c.id.clone());
            let section = corpus
                .sections
                .get(page.section)
                .map(|s| s.dir.clone())
                .unwrap_or_default();
            for spec in page
                .meta
                .photos
                .iter()
                .filter(|s| s.page == page.meta.source)
            {
                let source_sha256 = state
                    .images
                    .get(spec)
                    .map(|o| o.source_sha256.clone())
                    .unwrap_or_default();
                let reviewed = spec.reviewed.as_ref().is_some_and(|r| {
                    !source_sha256.is_empty()
                        && r.covers
                            == crate::content::review_covers(
                                &source_sha256,
                                &spec.redact,
                                spec.sensitivity,
                            )
                });
                rows.push(Row {
                    page: config.root.join(&page.meta.source),
                    dir: dir.clone(),
                    case: case.clone(),
                    section: section.clone(),
                    page_display: spec.page.display().to_string(),
                    url: page.meta.path.clone(),
                    file: spec.file.clone(),
                    source: spec.source.clone(),
                    sensitivity: spec.sensitivity,
                    regions: spec.redact.clone(),
                    alt: spec.alt.clone(),
                    caption: spec.caption.clone(),
                    reviewed,
                    source_sha256,
                    translations: translated
                        .get(&(page.meta.key.as_str(), spec.file.as_str()))
                        .cloned()
                        .unwrap_or_default(),
                });
            }
        }
        let by_address = rows
            .iter()
            .enumerate()
            .map(|(i, r)| ((r.dir.clone(), r.file.clone()), i))
            .collect();
        let mut languages = vec![config.default_language.clone()];
        languages.extend(
            config
                .languages
                .iter()
                .map(|l| l.code.clone())
                .filter(|c| *c != config.default_language),
        );
        Catalogue {
            rows,
            by_address,
            languages,
            config: Some(config.clone()),
        }
    }

    /// The row at the workbench address `dir`/`file`.
    pub(crate) fn find(&self, dir: &str, file: &str) -> Option<usize> {
        self.by_address
            .get(&(dir.to_string(), file.to_string()))
            .copied()
    }
}
