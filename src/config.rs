//! Site configuration: `casebook.toml`.
//!
//! Parsed in two steps, like ripgrep's flags: `RawConfig` mirrors the file (serde,
//! `deny_unknown_fields` so typos are errors), then `Config::resolve` validates it into the
//! types the rest of the program trusts, including the case schema. The generator knows
//! nothing about the Caesar archive in code: every case field comes from here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::error::{Diagnostic, Diagnostics, Error, Located, Result, did_you_mean, toml_error};
use crate::locale::{self, Digits};

pub const CONFIG_FILE: &str = "casebook.toml";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    title: String,
    #[serde(default)]
    description: String,
    base_url: Spanned<String>,
    #[serde(default = "default_language")]
    default_language: String,
    #[serde(default)]
    languages: Option<Spanned<Vec<String>>>,
    #[serde(default = "default_theme")]
    theme: String,
    #[serde(default = "default_paginate_by")]
    paginate_by: Spanned<i64>,
    #[serde(default = "yes")]
    minify: bool,
    #[serde(default = "default_feed_limit")]
    feed_limit: usize,
    #[serde(default)]
    cases: Option<RawCases>,
    #[serde(default)]
    images: RawImages,
    #[serde(default)]
    search: RawSearch,
    /// Per language: which digits numbers and dates are written in (`ar = "arabic-indic"`).
    #[serde(default)]
    digits: BTreeMap<String, Spanned<String>>,
    /// Per language: the schema's labels in that language (`"branch.215" = "الفرع 215"`).
    #[serde(default)]
    translations: BTreeMap<String, Spanned<BTreeMap<String, Spanned<String>>>>,
    #[serde(default)]
    extra: toml::Table,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawSearch {
    enabled: bool,
    identifiers: Option<Spanned<Vec<String>>>,
    weights: RawWeights,
    results_per_page: Spanned<i64>,
}

impl Default for RawSearch {
    fn default() -> Self {
        RawSearch {
            enabled: true,
            identifiers: None,
            weights: RawWeights::default(),
            results_per_page: Spanned::new(0..0, 10),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawWeights {
    title: Spanned<f64>,
    identifier: Spanned<f64>,
    fields: Spanned<f64>,
    text: Spanned<f64>,
}

impl Default for RawWeights {
    fn default() -> Self {
        let w = |v| Spanned::new(0..0, v);
        RawWeights {
            title: w(4.0),
            identifier: w(8.0),
            fields: w(2.0),
            text: w(1.0),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawImages {
    widths: Spanned<Vec<u32>>,
    quality: Spanned<u8>,
    placeholder_width: u32,
    case_sensitivity: Spanned<String>,
    page_sensitivity: Spanned<String>,
    max_width: u32,
    max_height: u32,
    max_pixels: u64,
    cache_dir: String,
    redact_color: Spanned<String>,
}

impl Default for RawImages {
    fn default() -> Self {
        RawImages {
            widths: Spanned::new(0..0, vec![400, 1200]),
            quality: Spanned::new(0..0, 82),
            placeholder_width: 24,
            case_sensitivity: Spanned::new(0..0, "graphic".into()),
            page_sensitivity: Spanned::new(0..0, "none".into()),
            max_width: 20_000,
            max_height: 20_000,
            max_pixels: 100_000_000,
            cache_dir: ".casebook-cache".into(),
            redact_color: Spanned::new(0..0, "#000000".into()),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCases {
    section: Spanned<String>,
    id_field: Spanned<String>,
    #[serde(default)]
    synthetic_field: Option<Spanned<String>>,
    #[serde(default)]
    fields: Vec<RawField>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawField {
    name: Spanned<String>,
    #[serde(rename = "type")]
    kind: Spanned<String>,
    #[serde(default)]
    required: bool,
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    facet: bool,
    #[serde(default)]
    facet_name: Option<Spanned<String>>,
    #[serde(default)]
    facet_label: Option<String>,
    #[serde(default)]
    column: bool,
    #[serde(default)]
    values: Option<Spanned<Vec<String>>>,
    #[serde(default)]
    value_labels: BTreeMap<String, String>,
}

fn default_language() -> String {
    "en".into()
}
fn default_theme() -> String {
    "default".into()
}
fn default_paginate_by() -> Spanned<i64> {
    Spanned::new(0..0, 20)
}
fn default_feed_limit() -> usize {
    50
}
fn yes() -> bool {
    true
}

/// The validated configuration.
#[derive(Debug, Clone)]
pub struct Config {
    pub root: PathBuf,
    pub title: String,
    pub description: String,
    /// Always ends with `/`.
    pub base_url: String,
    pub default_language: String,
    /// The default language first, then the others in the order given.
    pub languages: Vec<Language>,
    pub theme: String,
    pub paginate_by: usize,
    pub minify: bool,
    pub feed_limit: usize,
    pub cases: Option<CaseSchema>,
    pub images: ImageConfig,
    pub search: SearchConfig,
    /// Digits per language; languages not listed use Latin digits.
    pub digits: BTreeMap<String, Digits>,
    /// The site's title and description in the other languages (`[translations.<lang>]`).
    pub site_texts: BTreeMap<String, (String, String)>,
    pub extra: toml::Table,
}

/// The static search index: on or off, what counts as an identifier, field weights.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchConfig {
    pub enabled: bool,
    /// Case fields matched exactly as identifiers; an entry of several fields joined by `/`
    /// (`detainee_number/branch`) is matched as one identifier such as `2761/215`.
    pub identifiers: Vec<Vec<String>>,
    pub weights: SearchWeights,
    pub results_per_page: usize,
}

/// BM25F field weights: how much a match in each field counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchWeights {
    pub title: f64,
    pub identifier: f64,
    pub fields: f64,
    pub text: f64,
}

/// How photographs are published: sizes, quality, limits, defaults.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ImageConfig {
    /// Widths of the derivatives, ascending; never upscaled.
    pub widths: Vec<u32>,
    /// JPEG quality, 1 to 100.
    pub quality: u8,
    /// Width of the blurred placeholder shown instead of graphic photographs.
    pub placeholder_width: u32,
    pub case_sensitivity: Sensitivity,
    pub page_sensitivity: Sensitivity,
    pub max_width: u32,
    pub max_height: u32,
    pub max_pixels: u64,
    /// Relative to the site root.
    pub cache_dir: PathBuf,
    /// The colour of `fill` redactions.
    pub redact_color: [u8; 3],
}

impl ImageConfig {
    pub fn largest_width(&self) -> u32 {
        self.widths.iter().copied().max().unwrap_or(0)
    }
}

/// How carefully a photograph is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Sensitivity {
    /// Shown directly.
    None,
    /// Shown under a warning.
    Sensitive,
    /// Never shown unasked: a blurred placeholder until the visitor chooses to see it.
    Graphic,
}

impl Sensitivity {
    pub const NAMES: [&'static str; 3] = ["none", "sensitive", "graphic"];

    pub fn parse(s: &str) -> Option<Sensitivity> {
        Some(match s {
            "none" => Sensitivity::None,
            "sensitive" => Sensitivity::Sensitive,
            "graphic" => Sensitivity::Graphic,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Language {
    pub code: String,
    /// `ltr` or `rtl`.
    pub dir: &'static str,
}

/// The case collection: which section holds cases and what each case carries.
#[derive(Debug, Clone)]
pub struct CaseSchema {
    /// The section folder below `content/`, e.g. `cases`.
    pub section: String,
    pub id_field: String,
    /// A boolean field marking sample records that describe no real person; such cases are
    /// labelled "synthetic" wherever they appear.
    pub synthetic_field: Option<String>,
    pub fields: Vec<FieldDef>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FieldType {
    String,
    Integer,
    Date,
    Boolean,
    Enum,
    /// A list of enum values.
    List,
}

impl FieldType {
    const NAMES: [&'static str; 6] = ["string", "integer", "date", "boolean", "enum", "list"];

    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "string" => FieldType::String,
            "integer" => FieldType::Integer,
            "date" => FieldType::Date,
            "boolean" => FieldType::Boolean,
            "enum" => FieldType::Enum,
            "list" => FieldType::List,
            _ => return None,
        })
    }

    pub fn describe(self) -> &'static str {
        match self {
            FieldType::String => "a string",
            FieldType::Integer => "an integer",
            FieldType::Date => "a date (YYYY-MM-DD)",
            FieldType::Boolean => "true or false",
            FieldType::Enum => "one of the allowed values",
            FieldType::List => "a list of allowed values",
        }
    }
}

#[derive(Debug, Clone)]
pub struct FieldDef {
    pub name: String,
    pub kind: FieldType,
    pub required: bool,
    pub label: String,
    pub description: Option<String>,
    /// The URL segment of this field's facet pages (`/cases/<facet>/<value>/`), if it is a facet.
    pub facet: Option<String>,
    /// Shown as a column of case lists.
    pub column: bool,
    /// The heading of the facet's pages; defaults to `label`.
    pub facet_label: String,
    /// Allowed values for `enum` and `list`.
    pub values: Vec<String>,
    pub value_labels: BTreeMap<String, String>,
    /// The texts above in the site's other languages (`[translations.<lang>]`).
    pub translated: BTreeMap<String, FieldTexts>,
}

/// A field's texts in one other language. Every text the default language has is present
/// (a build error otherwise), so no English shows in, say, the Arabic edition.
#[derive(Debug, Clone, Default)]
pub struct FieldTexts {
    pub label: String,
    pub facet_label: String,
    pub description: Option<String>,
    pub value_labels: BTreeMap<String, String>,
}

impl FieldDef {
    /// The display label of a value in the default language: the configured label, else
    /// the value itself.
    pub fn value_label<'a>(&'a self, value: &'a str) -> &'a str {
        self.value_labels.get(value).map_or(value, String::as_str)
    }

    /// The field's label in `lang`.
    pub fn label_in(&self, lang: &str) -> &str {
        self.translated.get(lang).map_or(&self.label, |t| &t.label)
    }

    /// The heading of the field's facet pages in `lang`.
    pub fn facet_label_in(&self, lang: &str) -> &str {
        self.translated
            .get(lang)
            .map_or(&self.facet_label, |t| &t.facet_label)
    }

    pub fn description_in(&self, lang: &str) -> Option<&str> {
        match self.translated.get(lang) {
            Some(t) => t.description.as_deref(),
            None => self.description.as_deref(),
        }
    }

    /// The display label of a value in `lang`.
    pub fn value_label_in<'a>(&'a self, value: &'a str, lang: &str) -> &'a str {
        self.translated
            .get(lang)
            .and_then(|t| t.value_labels.get(value))
            .map_or_else(|| self.value_label(value), String::as_str)
    }
}

impl CaseSchema {
    pub fn field(&self, name: &str) -> Option<&FieldDef> {
        self.fields.iter().find(|f| f.name == name)
    }

    pub fn facets(&self) -> impl Iterator<Item = (&FieldDef, &str)> {
        self.fields
            .iter()
            .filter_map(|f| f.facet.as_deref().map(|facet| (f, facet)))
    }
}

impl Config {
    /// Reads `casebook.toml` under `root`.
    pub fn load(root: &Path) -> Result<Config> {
        let path = root.join(CONFIG_FILE);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::one(
                    Diagnostic::new(&path, "no site configuration found")
                        .hint("run `casebook init DIR` to create a site, or pass --root DIR"),
                )
            } else {
                Error::io(&path, e)
            }
        })?;
        Config::parse(&text, root, Path::new(CONFIG_FILE))
    }

    /// Parses and validates config text; `display_path` names the file in diagnostics.
    pub fn parse(text: &str, root: &Path, display_path: &Path) -> Result<Config> {
        let raw: RawConfig =
            toml::from_str(text).map_err(|e| Error::one(toml_error(display_path, text, &e)))?;
        resolve(raw, text, root, display_path)
    }

    /// Replaces `base_url` (from `--base-url`), with the same validation as the config key.
    pub fn set_base_url(&mut self, url: &str) -> Result<()> {
        self.base_url = normalize_base_url(url).map_err(|message| {
            Error::one(Diagnostic::new("--base-url", message).hint(BASE_URL_HINT))
        })?;
        Ok(())
    }

    /// The site's title in `lang`.
    pub fn title_in(&self, lang: &str) -> &str {
        self.site_texts.get(lang).map_or(&self.title, |t| &t.0)
    }

    /// The site's description in `lang`.
    pub fn description_in(&self, lang: &str) -> &str {
        self.site_texts
            .get(lang)
            .map_or(&self.description, |t| &t.1)
    }

    /// The digits numbers and dates are written in, in `lang`.
    pub fn digits(&self, lang: &str) -> Digits {
        self.digits.get(lang).copied().unwrap_or_default()
    }

    pub fn language(&self, code: &str) -> Option<&Language> {
        self.languages.iter().find(|l| l.code == code)
    }

    /// `/` for the default language, `/ar/` for the others.
    pub fn language_prefix(&self, lang: &str) -> String {
        if lang == self.default_language {
            "/".into()
        } else {
            format!("/{lang}/")
        }
    }

    /// The absolute URL of a root-relative site path (`/cases/` -> `https://x.org/sub/cases/`).
    pub fn permalink(&self, path: &str) -> String {
        format!("{}{}", self.base_url, path.trim_start_matches('/'))
    }

    /// The path part of `base_url`, always starting and ending with `/`.
    pub fn base_path(&self) -> String {
        let after_scheme = self
            .base_url
            .split_once("://")
            .map_or(self.base_url.as_str(), |(_, r)| r);
        match after_scheme.find('/') {
            Some(i) => after_scheme[i..].to_string(),
            None => "/".into(),
        }
    }
}

fn resolve(raw: RawConfig, text: &str, root: &Path, path: &Path) -> Result<Config> {
    let mut diags = Diagnostics::default();
    let file = Located { path, text };

    let base_url = normalize_base_url(raw.base_url.get_ref()).unwrap_or_else(|message| {
        diags.push(
            file.at(raw.base_url.span(), message)
                .field("base_url")
                .hint(BASE_URL_HINT),
        );
        String::new()
    });

    let mut codes = vec![raw.default_language.clone()];
    if let Some(langs) = &raw.languages {
        for code in langs.get_ref() {
            if !locale::is_language_code(code) {
                diags.push(
                    file.at(langs.span(), format!("`{code}` is not a language code"))
                        .field("languages")
                        .hint("use lowercase ISO 639 codes such as \"en\" or \"ar\""),
                );
            } else if !codes.contains(code) {
                codes.push(code.clone());
            }
        }
    }
    let languages: Vec<Language> = codes
        .into_iter()
        .map(|code| Language {
            dir: locale::direction(&code),
            code,
        })
        .collect();

    let paginate_by = *raw.paginate_by.get_ref();
    if paginate_by < 1 {
        diags.push(
            file.at(raw.paginate_by.span(), "must be at least 1")
                .field("paginate_by"),
        );
    }

    let mut digits = BTreeMap::new();
    for (lang, style) in &raw.digits {
        if !languages.iter().any(|x| &x.code == lang) {
            diags.push(
                file.at(
                    style.span(),
                    format!("`{lang}` is not one of the site's languages"),
                )
                .field(format!("digits.{lang}"))
                .hint("list the language in `languages` first"),
            );
        }
        match Digits::parse(style.get_ref()) {
            Some(d) => {
                digits.insert(lang.clone(), d);
            }
            None => diags.push(
                file.at(
                    style.span(),
                    format!("unknown digits `{}`", style.get_ref()),
                )
                .field(format!("digits.{lang}"))
                .hint(format!("use one of: {}", Digits::NAMES.join(", "))),
            ),
        }
    }
    let mut cases = raw.cases.map(|c| resolve_cases(c, text, path, &mut diags));
    let site_texts = resolve_translations(
        raw.translations,
        (&raw.title, &raw.description),
        &raw.default_language,
        &languages,
        cases.as_mut(),
        text,
        path,
        &mut diags,
    );
    let images = resolve_images(raw.images, text, path, &mut diags);
    let search = resolve_search(raw.search, cases.as_ref(), text, path, &mut diags);

    diags.finish(Config {
        root: root.to_path_buf(),
        title: raw.title,
        description: raw.description,
        base_url,
        default_language: raw.default_language,
        languages,
        theme: raw.theme,
        paginate_by: paginate_by.max(1) as usize,
        minify: raw.minify,
        feed_limit: raw.feed_limit,
        cases,
        images,
        search,
        digits,
        site_texts,
        extra: raw.extra,
    })
}

/// Checks `[translations.<lang>]` and returns the site's title and description per other
/// language; fills each case field's texts in those languages. Every text the default
/// language shows must be translated: a missing one is an error naming the key, and so is an
/// unknown key.
#[allow(clippy::too_many_arguments)]
fn resolve_translations(
    raw: BTreeMap<String, Spanned<BTreeMap<String, Spanned<String>>>>,
    (title, description): (&str, &str),
    default_language: &str,
    languages: &[Language],
    cases: Option<&mut CaseSchema>,
    text: &str,
    path: &Path,
    diags: &mut Diagnostics,
) -> BTreeMap<String, (String, String)> {
    let file = Located { path, text };
    for (lang, table) in &raw {
        if lang == default_language || !languages.iter().any(|l| &l.code == lang) {
            diags.push(
                file.at(table.span(), format!("`{lang}` is not one of the site's other languages"))
                    .field(format!("translations.{lang}"))
                    .hint("[translations.<lang>] gives the case schema's labels in a language listed in `languages` (not the default one)"),
            );
        }
    }
    let mut site_texts = BTreeMap::new();
    let mut schema = cases;
    for lang in languages.iter().filter(|l| l.code != default_language) {
        let lang = &lang.code;
        let table = raw.get(lang);
        let entries = table.map(|t| t.get_ref());
        // Every key this language can take, for unknown-key hints.
        let mut known: Vec<String> = Vec::new();
        let mut take = |key: String, english: Option<&str>, required: bool| -> Option<String> {
            known.push(key.clone());
            match entries.and_then(|e| e.get(&key)) {
                Some(v) => Some(v.get_ref().clone()),
                None if required => {
                    let message = format!("missing `{key}` for language `{lang}`");
                    diags.push(
                        table
                            .map_or_else(|| Diagnostic::new(path, &message), |t| file.at(t.span(), &message))
                            .field(format!("translations.{lang}"))
                            .hint(format!(
                                "add `\"{key}\" = \"...\"` under [translations.{lang}] ({default_language}: \"{}\")",
                                english.unwrap_or_default()
                            )),
                    );
                    None
                }
                None => None,
            }
        };
        let site_title = take("site.title".into(), Some(title), true).unwrap_or_default();
        let site_description = take(
            "site.description".into(),
            Some(description),
            !description.is_empty(),
        )
        .unwrap_or_default();
        site_texts.insert(lang.clone(), (site_title, site_description));
        for field in schema.iter_mut().flat_map(|s| s.fields.iter_mut()) {
            let mut texts = FieldTexts::default();
            let name = field.name.clone();
            texts.label = take(name.clone(), Some(&field.label), true).unwrap_or_default();
            texts.facet_label = take(
                format!("{name}.facet_label"),
                Some(&field.facet_label),
                field.facet.is_some() && field.facet_label != field.label,
            )
            .unwrap_or_else(|| texts.label.clone());
            texts.description = take(
                format!("{name}.description"),
                field.description.as_deref(),
                field.description.is_some(),
            );
            let values: BTreeSet<&String> = field
                .values
                .iter()
                .chain(field.value_labels.keys())
                .collect();
            for value in values {
                let required = field.value_labels.contains_key(value);
                if let Some(label) = take(
                    format!("{name}.{value}"),
                    field.value_labels.get(value).map(String::as_str),
                    required,
                ) {
                    texts.value_labels.insert(value.clone(), label);
                }
            }
            field.translated.insert(lang.clone(), texts);
        }
        for (key, value) in entries.into_iter().flatten() {
            if !known.contains(key) {
                diags.push(
                    file.at(value.span(), format!("`{key}` is not a translatable text of the site"))
                        .field(format!("translations.{lang}"))
                        .hint(did_you_mean(key, known.iter().map(String::as_str)).unwrap_or_else(|| {
                            "keys are `site.title`, `site.description`, and for case fields `field`, `field.facet_label`, `field.description` or `field.<value>`".into()
                        })),
                );
            }
        }
    }
    site_texts
}

fn resolve_search(
    raw: RawSearch,
    cases: Option<&CaseSchema>,
    text: &str,
    path: &Path,
    diags: &mut Diagnostics,
) -> SearchConfig {
    let file = Located { path, text };
    let mut weight = |w: &Spanned<f64>, name: &str| {
        let v = *w.get_ref();
        if !(v.is_finite() && (0.0..=1000.0).contains(&v)) {
            diags.push(
                file.at(w.span(), format!("search weight {v} is out of range"))
                    .field(format!("search.weights.{name}"))
                    .hint("use a number from 0 (not searched) to 1000; the defaults are title 4, identifier 8, fields 2, text 1"),
            );
        }
        v.clamp(0.0, 1000.0)
    };
    let weights = SearchWeights {
        title: weight(&raw.weights.title, "title"),
        identifier: weight(&raw.weights.identifier, "identifier"),
        fields: weight(&raw.weights.fields, "fields"),
        text: weight(&raw.weights.text, "text"),
    };
    let per_page = *raw.results_per_page.get_ref();
    if !(1..=100).contains(&per_page) {
        diags.push(
            file.at(raw.results_per_page.span(), "must be between 1 and 100")
                .field("search.results_per_page"),
        );
    }
    let identifiers = match (&raw.identifiers, cases) {
        (Some(list), Some(schema)) => {
            let mut out = Vec::new();
            for entry in list.get_ref() {
                let parts: Vec<String> = entry.split('/').map(|p| p.trim().to_string()).collect();
                for part in &parts {
                    if schema.field(part).is_none() {
                        diags.push(
                            file.at(list.span(), format!("`{part}` is not a case field"))
                                .field("search.identifiers")
                                .hint(did_you_mean(part, schema.fields.iter().map(|f| f.name.as_str())).unwrap_or_else(|| "name fields declared in [[cases.fields]], or several joined by `/`".into())),
                        );
                    }
                }
                out.push(parts);
            }
            out
        }
        (Some(list), None) => {
            diags.push(
                file.at(list.span(), "search identifiers need a case schema")
                    .field("search.identifiers")
                    .hint("declare [cases] first, or remove `identifiers`"),
            );
            Vec::new()
        }
        (None, Some(schema)) => vec![vec![schema.id_field.clone()]],
        (None, None) => Vec::new(),
    };
    SearchConfig {
        enabled: raw.enabled,
        identifiers,
        weights,
        results_per_page: per_page.clamp(1, 100) as usize,
    }
}

fn resolve_images(raw: RawImages, text: &str, path: &Path, diags: &mut Diagnostics) -> ImageConfig {
    let file = Located { path, text };
    let mut widths = raw.widths.get_ref().clone();
    widths.sort_unstable();
    widths.dedup();
    if widths.is_empty() || widths.iter().any(|&w| !(16..=8192).contains(&w)) {
        diags.push(
            file.at(
                raw.widths.span(),
                "image widths must be between 16 and 8192 pixels, at least one",
            )
            .field("images.widths")
            .hint("for example widths = [400, 1200]"),
        );
    }
    let quality = *raw.quality.get_ref();
    if !(1..=100).contains(&quality) {
        diags.push(
            file.at(
                raw.quality.span(),
                format!("JPEG quality {quality} is out of range"),
            )
            .field("images.quality")
            .hint("use a number from 1 to 100; 80 to 85 suits photographs"),
        );
    }
    let mut sensitivity = |s: &Spanned<String>, field: &str| {
        Sensitivity::parse(s.get_ref()).unwrap_or_else(|| {
            diags.push(
                file.at(s.span(), format!("unknown sensitivity `{}`", s.get_ref()))
                    .field(field.to_string())
                    .hint(format!("use one of: {}", Sensitivity::NAMES.join(", "))),
            );
            Sensitivity::Graphic
        })
    };
    let case_sensitivity = sensitivity(&raw.case_sensitivity, "images.case_sensitivity");
    let page_sensitivity = sensitivity(&raw.page_sensitivity, "images.page_sensitivity");
    let redact_color = parse_hex_color(raw.redact_color.get_ref()).unwrap_or_else(|| {
        diags.push(
            file.at(
                raw.redact_color.span(),
                format!("`{}` is not a colour", raw.redact_color.get_ref()),
            )
            .field("images.redact_color")
            .hint("write it as \"#rrggbb\", e.g. \"#000000\""),
        );
        [0, 0, 0]
    });
    ImageConfig {
        widths,
        quality,
        placeholder_width: raw.placeholder_width.clamp(8, 64),
        case_sensitivity,
        page_sensitivity,
        max_width: raw.max_width,
        max_height: raw.max_height,
        max_pixels: raw.max_pixels,
        cache_dir: PathBuf::from(raw.cache_dir),
        redact_color,
    }
}

fn parse_hex_color(s: &str) -> Option<[u8; 3]> {
    let hex = s.strip_prefix('#')?;
    if hex.len() != 6 {
        return None;
    }
    let byte = |i: usize| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok();
    Some([byte(0)?, byte(2)?, byte(4)?])
}

const BASE_URL_HINT: &str =
    "write the address the site will be published at, e.g. \"https://example.org/caesar/\"";

/// An absolute http(s) URL ending with `/`.
fn normalize_base_url(url: &str) -> std::result::Result<String, String> {
    let url = url.trim();
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .ok_or_else(|| format!("`{url}` is not an absolute http(s) URL"))?;
    if rest.is_empty() || rest.starts_with('/') || rest.contains(char::is_whitespace) {
        return Err(format!("`{url}` has no host name"));
    }
    let mut url = url.to_string();
    if !url.ends_with('/') {
        url.push('/');
    }
    Ok(url)
}

/// Names that end up in URLs must be plain lowercase ASCII so links survive every host.
pub fn is_url_safe(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

fn resolve_cases(raw: RawCases, text: &str, path: &Path, diags: &mut Diagnostics) -> CaseSchema {
    let file = Located { path, text };
    let mut fields = Vec::new();
    let mut seen_names = BTreeSet::new();
    let mut seen_facets = BTreeSet::new();
    for (i, f) in raw.fields.into_iter().enumerate() {
        let name = f.name.get_ref().clone();
        let key = |k: &str| format!("cases.fields[{i}].{k}");
        if !seen_names.insert(name.clone()) {
            diags.push(
                file.at(f.name.span(), format!("field `{name}` is declared twice"))
                    .field(key("name")),
            );
        }
        let kind = match FieldType::parse(f.kind.get_ref()) {
            Some(k) => k,
            None => {
                let wrong = f.kind.get_ref();
                diags.push(
                    file.at(f.kind.span(), format!("unknown field type `{wrong}`"))
                        .field(key("type"))
                        .hint(did_you_mean(wrong, FieldType::NAMES).unwrap_or_else(|| {
                            format!("use one of: {}", FieldType::NAMES.join(", "))
                        })),
                );
                FieldType::String
            }
        };
        let values = f
            .values
            .as_ref()
            .map(|v| v.get_ref().clone())
            .unwrap_or_default();
        if matches!(kind, FieldType::Enum | FieldType::List) {
            if values.is_empty() {
                diags.push(
                    file.at(
                        f.kind.span(),
                        format!(
                            "`{name}` is an {} field but lists no values",
                            f.kind.get_ref()
                        ),
                    )
                    .field(key("values"))
                    .hint("add values = [\"a\", \"b\"] with every allowed value"),
                );
            }
            for v in &values {
                if !is_url_safe(v) {
                    diags.push(
                        file.at(f.values.as_ref().map_or(f.kind.span(), |v| v.span()), format!("value `{v}` of `{name}` is not URL-safe"))
                            .field(key("values"))
                            .hint("values appear in facet URLs: use lowercase letters, digits, `-` and `_`; put the display text in value_labels"),
                    );
                }
            }
        } else if let Some(v) = &f.values {
            diags.push(
                file.at(
                    v.span(),
                    format!(
                        "only enum and list fields take values; `{name}` is {}",
                        f.kind.get_ref()
                    ),
                )
                .field(key("values")),
            );
        }
        let facet = if f.facet || f.facet_name.is_some() {
            let facet_name = f
                .facet_name
                .as_ref()
                .map_or(name.clone(), |n| n.get_ref().clone());
            let span = f.facet_name.as_ref().map_or(f.name.span(), |n| n.span());
            if !is_url_safe(&facet_name) || facet_name == "page" {
                diags.push(
                    file.at(span.clone(), format!("facet name `{facet_name}` cannot be used in URLs"))
                        .field(key("facet_name"))
                        .hint("use lowercase letters, digits, `-` and `_`; `page` is reserved for pagination"),
                );
            }
            if !seen_facets.insert(facet_name.clone()) {
                diags.push(
                    file.at(
                        span,
                        format!("two fields use the facet name `{facet_name}`"),
                    )
                    .field(key("facet_name")),
                );
            }
            Some(facet_name)
        } else {
            None
        };
        let label = f.label.unwrap_or_else(|| name.replace('_', " "));
        fields.push(FieldDef {
            facet_label: f.facet_label.unwrap_or_else(|| label.clone()),
            column: f.column,
            label,
            name,
            kind,
            required: f.required,
            description: f.description,
            facet,
            values,
            value_labels: f.value_labels,
            translated: BTreeMap::new(),
        });
    }
    let id_field = raw.id_field.get_ref().clone();
    match fields.iter().find(|f| f.name == id_field) {
        Some(f) if f.kind == FieldType::String && f.required => {}
        Some(_) => {
            diags.push(
                file.at(
                    raw.id_field.span(),
                    format!("the id field `{id_field}` must be a required string field"),
                )
                .field("cases.id_field")
                .hint("declare it with type = \"string\" and required = true"),
            );
        }
        None => {
            diags.push(
                file.at(
                    raw.id_field.span(),
                    format!("no field named `{id_field}` is declared"),
                )
                .field("cases.id_field")
                .maybe_hint(did_you_mean(
                    &id_field,
                    fields.iter().map(|f| f.name.as_str()),
                )),
            );
        }
    }
    let synthetic_field = raw.synthetic_field.map(|s| {
        let name = s.get_ref().clone();
        if !fields
            .iter()
            .any(|f| f.name == name && f.kind == FieldType::Boolean)
        {
            diags.push(
                file.at(
                    s.span(),
                    format!("`{name}` must name a declared boolean field"),
                )
                .field("cases.synthetic_field")
                .hint("declare it in [[cases.fields]] with type = \"boolean\""),
            );
        }
        name
    });
    let section = raw.section.get_ref().trim_matches('/').to_string();
    CaseSchema {
        section,
        id_field,
        synthetic_field,
        fields,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config> {
        Config::parse(text, Path::new("."), Path::new("casebook.toml"))
    }

    #[test]
    fn minimal_config_gets_defaults() {
        let c = parse("title = \"T\"\nbase_url = \"https://x.org/sub\"\n").unwrap();
        assert_eq!(c.base_url, "https://x.org/sub/");
        assert_eq!(c.base_path(), "/sub/");
        assert_eq!(c.paginate_by, 20);
        assert!(c.minify);
        assert_eq!(c.languages[0].code, "en");
    }

    #[test]
    fn unknown_key_is_located_with_a_hint() {
        let err =
            parse("title = \"T\"\nbase_url = \"https://x.org/\"\nminfy = false\n").unwrap_err();
        let d = &err.diagnostics()[0];
        assert_eq!(d.line, 3);
        assert_eq!(d.field.as_deref(), Some("minfy"));
        assert_eq!(d.hint.as_deref(), Some("did you mean `minify`?"));
    }

    #[test]
    fn bad_field_type_is_reported_with_suggestion() {
        let err = parse(
            "title = \"T\"\nbase_url = \"https://x.org/\"\n[cases]\nsection = \"cases\"\nid_field = \"id\"\n[[cases.fields]]\nname = \"id\"\ntype = \"strng\"\nrequired = true\n",
        )
        .unwrap_err();
        let d = &err.diagnostics()[0];
        assert_eq!(
            (d.line, d.field.as_deref()),
            (8, Some("cases.fields[0].type"))
        );
        assert_eq!(d.hint.as_deref(), Some("did you mean `string`?"));
    }

    #[test]
    fn arabic_is_right_to_left() {
        let c =
            parse("title = \"T\"\nbase_url = \"https://x.org/\"\nlanguages = [\"ar\"]\n[translations.ar]\n\"site.title\" = \"ت\"\n").unwrap();
        assert_eq!(c.language("ar").unwrap().dir, "rtl");
        assert_eq!(c.language_prefix("ar"), "/ar/");
        assert_eq!(c.title_in("ar"), "ت");
        assert_eq!(c.title_in("en"), "T");
    }

    #[test]
    fn digits_are_chosen_per_language() {
        let c = parse("title = \"T\"\nbase_url = \"https://x.org/\"\nlanguages = [\"ar\"]\n[digits]\nar = \"arabic-indic\"\n[translations.ar]\n\"site.title\" = \"ت\"\n").unwrap();
        assert_eq!(c.digits("ar"), Digits::ArabicIndic);
        assert_eq!(c.digits("en"), Digits::Latin);
    }
}
