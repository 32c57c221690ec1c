//! The template context every page of a language shares, built and serialised once per
//! build.
//!
//! The values a template may read from it are the fields of `SharedValues`, declared once
//! below: the same declaration gives the context its keys and gives incremental rebuilds the
//! list of values to compare (`SharedValues::KEYS`), so the two cannot drift apart. A page's
//! own values (`page`, `section`, `paginator`, `facet`, `value`) are added by its job.

use std::collections::BTreeMap;

use serde::Serialize;
use tera::{Context, Value};

use super::chart_data::{self, ChartData};
use super::facets::Facet;
use super::views::Link;
use crate::config::Config;
use crate::content::{Corpus, Meta};
use crate::hashing::Hasher;
use crate::theme::Theme;

/// Declares the shared values: the struct, its keys in declaration order and its fields
/// by key.
macro_rules! shared_values {
    ($($(#[doc = $doc:literal])* $name:ident),* $(,)?) => {
        /// Context values every page of one language shares, each serialised once.
        #[derive(Debug, Clone, PartialEq, Serialize)]
        pub(crate) struct SharedValues {
            $($(#[doc = $doc])* pub(crate) $name: Value,)*
        }

        impl SharedValues {
            /// Every shared value's name in templates.
            pub(crate) const KEYS: &'static [&'static str] = &[$(stringify!($name)),*];

            /// Every shared value with its name in templates.
            pub(crate) fn fields(&self) -> Vec<(&'static str, &Value)> {
                vec![$((stringify!($name), &self.$name)),*]
            }
        }
    };
}

shared_values! {
    /// The site's title, description and settings, in this language.
    site,
    /// The theme's strings in this language (`i18n/<lang>.toml`).
    t,
    /// The top-level sections and pages.
    nav,
    /// The case collection: its title, path, count and list columns.
    cases,
    /// Every facet of the language's case section, with its values and counts.
    facets,
    /// What time charts count (`chart()` reads it).
    chart_data,
    /// The search page, when search is on.
    search,
    /// Where a copy is checked: the `/verify/` page, the manifest, its signature, the
    /// per-case proofs and the public key.
    verify,
    /// The archive's own citation in this language ("Cite this archive").
    cite,
}

/// Context values shared by every page, per language.
pub(crate) struct Shared {
    base_url: String,
    /// Every language's home, for the language switcher of untranslated pages.
    homes: Vec<Link>,
    /// Where 404.html links point: it is served at any URL.
    pub(crate) base_path: String,
    pub(crate) per_lang: BTreeMap<String, LangShared>,
}

pub(crate) struct LangShared {
    pub(crate) values: SharedValues,
    dir: &'static str,
    digits: &'static str,
    home: String,
    feed: String,
    /// The chart data as data: compared between builds, cheaper than its template value.
    pub(crate) charts: ChartData,
}

#[derive(Serialize)]
struct NavEntry<'a> {
    title: &'a str,
    path: &'a str,
}

impl Shared {
    /// `previous` (serve's last build) lends its serialised chart data when it is unchanged;
    /// `proofs`: whether the build publishes the per-case proofs.
    pub(crate) fn new(
        config: &Config,
        corpus: &Corpus,
        theme: &Theme,
        prepared: &super::Prepared,
        previous: Option<&Shared>,
        proofs: bool,
    ) -> Shared {
        let mut per_lang = BTreeMap::new();
        let (facets, released) = (&prepared.facets, prepared.released);
        for lang in &config.languages {
            let charts = chart_data::compute(config, corpus, facets, &lang.code);
            let chart_data = previous
                .and_then(|p| p.per_lang.get(&lang.code))
                .filter(|p| p.charts == charts)
                .map_or_else(
                    || Value::from_serializable(&charts),
                    |p| p.values.chart_data.clone(),
                );
            let lang_facets: Vec<&Facet> = facets.iter().filter(|f| f.lang == lang.code).collect();
            let values = SharedValues {
                site: Value::from_serializable(&serde_json::json!({
                    "title": config.title_in(&lang.code),
                    "description": config.description_in(&lang.code),
                    "base_url": config.base_url,
                    "default_language": config.default_language,
                    "languages": config.languages,
                    "extra": config.extra,
                    "license": config.license,
                })),
                cite: Value::from_serializable(
                    &super::cite::Cited {
                        config,
                        lang: &lang.code,
                        case: None,
                        released: released.as_ref(),
                    }
                    .citation(),
                ),
                t: Value::from_serializable(
                    &theme.strings.get(&lang.code).cloned().unwrap_or_default(),
                ),
                nav: Value::from_serializable(&nav(corpus, &lang.code)),
                cases: Value::from_serializable(&case_collection(config, corpus, &lang.code)),
                facets: Value::from_serializable(&lang_facets),
                chart_data,
                search: Value::from_serializable(&config.search.enabled.then(|| {
                    serde_json::json!({
                        "path": format!("{}search/", config.language_prefix(&lang.code)),
                    })
                })),
                verify: Value::from_serializable(&verify_paths(config, &lang.code, proofs)),
            };
            per_lang.insert(
                lang.code.clone(),
                LangShared {
                    values,
                    dir: lang.dir,
                    digits: config.digits(&lang.code).name(),
                    home: config.language_prefix(&lang.code),
                    feed: format!("{}atom.xml", config.language_prefix(&lang.code)),
                    charts,
                },
            );
        }
        let homes = config
            .languages
            .iter()
            .map(|l| Link {
                untranslated: true,
                ..Link::new(config, &l.code, &config.language_prefix(&l.code))
            })
            .collect();
        Shared {
            homes,
            base_url: config.base_url.clone(),
            base_path: config.base_path(),
            per_lang,
        }
    }

    /// A page's context before its own values: the shared values of its language, and what
    /// follows from its URL and its translations (`hashing`: only a hash of the latter).
    pub(crate) fn context(
        &self,
        lang: &str,
        current_path: &str,
        translations: &[Link],
        hashing: bool,
    ) -> PageContext {
        let l = &self.per_lang[lang];
        let mut ctx = if hashing {
            PageContext::Hash(Box::default())
        } else {
            PageContext::Context(Context::new())
        };
        ctx.insert(
            "canonical",
            &format!("{}{}", self.base_url, current_path.trim_start_matches('/')),
        );
        ctx.insert("translations", translations);
        // Every other language: the same page where it exists, else that language's home.
        let switcher: Vec<&Link> = self
            .homes
            .iter()
            .filter(|home| home.lang != lang)
            .map(|home| {
                translations
                    .iter()
                    .find(|t| t.lang == home.lang)
                    .unwrap_or(home)
            })
            .collect();
        ctx.insert("switcher", &switcher);
        // The shared values count in a fingerprint through their hashes (`Unchanged`).
        if let PageContext::Context(ctx) = &mut ctx {
            for (key, value) in l.values.fields() {
                ctx.insert_value(key, value.clone());
            }
        }
        ctx.insert("lang", lang);
        ctx.insert("dir", l.dir);
        ctx.insert("digits", l.digits);
        ctx.insert("home_path", &l.home);
        ctx.insert("feed_path", &l.feed);
        ctx.insert("current_path", current_path);
        ctx
    }
}

/// A page's template context or, for its fingerprint, only a hash of its own values (those
/// not shared by every page of its language).
pub(crate) enum PageContext {
    Context(Context),
    Hash(Box<Hasher>),
}

impl PageContext {
    pub(crate) fn insert<T: Serialize + ?Sized>(&mut self, key: &'static str, val: &T) {
        match self {
            PageContext::Context(ctx) => ctx.insert(key, val),
            PageContext::Hash(h) => {
                h.text(key);
                h.serialized(val);
            }
        }
    }

    pub(crate) fn insert_value(&mut self, key: &'static str, val: Value) {
        match self {
            PageContext::Context(ctx) => ctx.insert_value(key, val),
            PageContext::Hash(h) => {
                h.text(key);
                h.value(&val);
            }
        }
    }

    pub(crate) fn into_context(self) -> Option<Context> {
        match self {
            PageContext::Context(ctx) => Some(ctx),
            PageContext::Hash(_) => None,
        }
    }

    pub(crate) fn into_hash(self) -> Option<u128> {
        match self {
            PageContext::Hash(h) => Some(h.digest()),
            PageContext::Context(_) => None,
        }
    }
}

/// The verification page and files, and the public key when the site has one.
fn verify_paths(config: &Config, lang: &str, proofs: bool) -> serde_json::Value {
    use crate::signing::{PUBLIC_KEY_FILE, SIGNATURE_FILE};
    serde_json::json!({
        "path": verify_page_path(config, lang),
        "manifest": format!("/{}", crate::integrity::manifest::MANIFEST),
        "signature": format!("/{SIGNATURE_FILE}"),
        // Whether each case's proof is published, for the check of one record.
        "proofs": proofs,
        "public_key": config.public_key.as_ref().map(|k| k.to_base64()),
        "public_key_id": config.public_key.as_ref().map(|k| k.id()),
        "public_key_file": config.public_key.as_ref().map(|_| format!("/{PUBLIC_KEY_FILE}")),
    })
}

/// The `/verify/` page of a language.
pub(crate) fn verify_page_path(config: &Config, lang: &str) -> String {
    format!("{}verify/", config.language_prefix(lang))
}

/// The top-level sections and pages of a language, in display order.
fn nav<'a>(corpus: &'a Corpus, lang: &str) -> Vec<NavEntry<'a>> {
    let mut nav: Vec<&Meta> = Vec::new();
    if let Some(root) = corpus.root_section(lang) {
        let root = &corpus.sections[root];
        nav.extend(root.subsections.iter().map(|&s| &corpus.sections[s].meta));
        nav.extend(root.pages.iter().map(|&p| &corpus.pages[p].meta));
    }
    nav.sort_by(|a, b| crate::content::order(a, b));
    nav.iter()
        .map(|m| NavEntry {
            title: &m.title,
            path: &m.path,
        })
        .collect()
}

/// The language's case collection, if it has one.
fn case_collection(config: &Config, corpus: &Corpus, lang: &str) -> Option<serde_json::Value> {
    corpus.case_section(lang).map(|i| {
        let s = &corpus.sections[i];
        let columns: Vec<serde_json::Value> = config
            .cases
            .iter()
            .flat_map(|schema| schema.fields.iter().filter(|f| f.column))
            .map(|f| serde_json::json!({ "name": f.name, "label": f.label_in(lang) }))
            .collect();
        serde_json::json!({
            "title": s.meta.title,
            "path": s.meta.path,
            "count": s.pages.len(),
            "columns": columns,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::SharedValues;
    use tera::Value;

    /// The keys rebuilds compare are exactly the keys the context gets, in the type's
    /// serialised form too (a `serde(rename)` would break the match).
    #[test]
    fn shared_keys_are_the_context_types_fields() {
        let values = SharedValues {
            site: Value::from(1),
            t: Value::from(2),
            nav: Value::from(3),
            cases: Value::from(4),
            facets: Value::from(5),
            chart_data: Value::from(6),
            search: Value::from(7),
            verify: Value::from(8),
            cite: Value::from(9),
        };
        let serialised = serde_json::to_value(&values).unwrap();
        let mut keys: Vec<&str> = serialised
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut declared = SharedValues::KEYS.to_vec();
        keys.sort_unstable();
        declared.sort_unstable();
        assert_eq!(keys, declared);
        let fields: Vec<&str> = values.fields().into_iter().map(|(k, _)| k).collect();
        assert_eq!(fields, SharedValues::KEYS);
        // Each field under its own name, not another's.
        assert_eq!(serialised["chart_data"], serde_json::json!(6));
    }
}
