//! The search and image settings: `[search]` and `[images]`.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use super::CaseSchema;
use crate::error::{Diagnostics, Located, did_you_mean};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(super) struct RawSearch {
    enabled: bool,
    identifiers: Option<Spanned<Vec<String>>>,
    names: Option<Spanned<Vec<String>>>,
    name_spellings: std::collections::BTreeMap<String, String>,
    name_equivalents: Vec<Vec<String>>,
    weights: RawWeights,
    results_per_page: Spanned<i64>,
}

impl Default for RawSearch {
    fn default() -> Self {
        RawSearch {
            enabled: true,
            identifiers: None,
            names: None,
            name_spellings: Default::default(),
            name_equivalents: Vec::new(),
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
pub(super) struct RawImages {
    widths: Spanned<Vec<u32>>,
    quality: Spanned<u8>,
    placeholder_width: u32,
    case_sensitivity: Spanned<String>,
    page_sensitivity: Spanned<String>,
    max_width: u32,
    max_height: u32,
    max_pixels: u64,
    max_memory_mb: Spanned<u64>,
    cache_dir: Spanned<String>,
    redact_color: Spanned<String>,
    require_review: bool,
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
            max_memory_mb: Spanned::new(0..0, 768),
            cache_dir: Spanned::new(0..0, ".casebook-cache".into()),
            redact_color: Spanned::new(0..0, "#000000".into()),
            require_review: false,
        }
    }
}

/// The static search index: on or off, what counts as an identifier, field weights.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SearchConfig {
    pub(crate) enabled: bool,
    /// Case fields matched exactly as identifiers; an entry of several fields joined by `/`
    /// (`detainee_number/branch`) is matched as one identifier such as `2761/215`.
    pub(crate) identifiers: Vec<Vec<String>>,
    /// Case fields holding person or place names, matched across spellings, scripts and
    /// single typos (`search::names`).
    pub(crate) names: Vec<String>,
    /// Latin spellings pinned to the Arabic they write (`name_spellings`), added to the
    /// built-in table of `search::names`.
    pub(crate) name_spellings: Vec<(String, String)>,
    /// Groups of one name in several languages (`name_equivalents`), found for each other
    /// as near matches.
    pub(crate) name_equivalents: Vec<Vec<String>>,
    pub(crate) weights: SearchWeights,
    pub(crate) results_per_page: usize,
}

/// BM25F field weights: how much a match in each field counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SearchWeights {
    pub(crate) title: f64,
    pub(crate) identifier: f64,
    pub(crate) fields: f64,
    pub(crate) text: f64,
}

/// How photographs are published: sizes, quality, limits, defaults.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct ImageConfig {
    /// Widths of the derivatives, ascending; never upscaled.
    pub(crate) widths: Vec<u32>,
    /// JPEG quality, 1 to 100.
    pub(crate) quality: u8,
    /// Width of the blurred placeholder shown instead of graphic photographs.
    pub(crate) placeholder_width: u32,
    pub(crate) case_sensitivity: Sensitivity,
    pub(crate) page_sensitivity: Sensitivity,
    pub(crate) max_width: u32,
    pub(crate) max_height: u32,
    pub(crate) max_pixels: u64,
    /// The bytes that photographs being derived may hold at once, all threads together
    /// (`max_memory_mb`); a photograph that needs more is refused.
    pub(crate) max_memory: u64,
    /// Relative to the site root.
    pub(crate) cache_dir: PathBuf,
    /// The colour of `fill` redactions.
    pub(crate) redact_color: [u8; 3],
    /// `build` and `check` refuse a photograph whose review does not cover it as it is.
    pub(crate) require_review: bool,
}

impl ImageConfig {
    pub(crate) fn largest_width(&self) -> u32 {
        self.widths.iter().copied().max().unwrap_or(0)
    }
}

/// How carefully a photograph is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Sensitivity {
    /// Shown directly.
    None,
    /// Shown under a warning.
    Sensitive,
    /// Never shown unasked: a blurred placeholder until the visitor chooses to see it.
    Graphic,
}

impl Sensitivity {
    pub(crate) const NAMES: [&'static str; 3] = ["none", "sensitive", "graphic"];

    pub(crate) fn parse(s: &str) -> Option<Sensitivity> {
        Some(match s {
            "none" => Sensitivity::None,
            "sensitive" => Sensitivity::Sensitive,
            "graphic" => Sensitivity::Graphic,
            _ => return None,
        })
    }

    /// The name written in front matter and configuration.
    pub(crate) fn name(self) -> &'static str {
        Sensitivity::NAMES[self as usize]
    }
}

/// Validates `[search]`.
pub(super) fn resolve_search(
    raw: RawSearch,
    cases: Option<&CaseSchema>,
    file: Located,
    diags: &mut Diagnostics,
) -> SearchConfig {
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
                    check_case_field(
                        schema,
                        part,
                        list,
                        "search.identifiers",
                        "name fields declared in [[cases.fields]], or several joined by `/`",
                        file,
                        diags,
                    );
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
    let names = match (&raw.names, cases) {
        (Some(list), Some(schema)) => {
            for name in list.get_ref() {
                check_case_field(
                    schema,
                    name,
                    list,
                    "search.names",
                    "name fields declared in [[cases.fields]] that hold person or place names",
                    file,
                    diags,
                );
            }
            list.get_ref().clone()
        }
        (Some(list), None) => {
            diags.push(
                file.at(list.span(), "search names need a case schema")
                    .field("search.names")
                    .hint("declare [cases] first, or remove `names`"),
            );
            Vec::new()
        }
        (None, _) => Vec::new(),
    };
    SearchConfig {
        enabled: raw.enabled,
        identifiers,
        names,
        name_spellings: raw.name_spellings.clone().into_iter().collect(),
        name_equivalents: raw.name_equivalents.clone(),
        weights,
        results_per_page: per_page.clamp(1, 100) as usize,
    }
}

/// A field named in `[search]` (`key`) that the schema lacks is an error at the list, with
/// the nearest field name as a hint, else `fallback`.
fn check_case_field(
    schema: &CaseSchema,
    name: &str,
    list: &Spanned<Vec<String>>,
    key: &str,
    fallback: &str,
    file: Located,
    diags: &mut Diagnostics,
) {
    if schema.field(name).is_some() {
        return;
    }
    let fields = schema.fields.iter().map(|f| f.name.as_str());
    diags.push(
        file.at(list.span(), format!("`{name}` is not a case field"))
            .field(key)
            .hint(did_you_mean(name, fields).unwrap_or_else(|| fallback.into())),
    );
}

/// Validates `[images]`.
pub(super) fn resolve_images(
    raw: RawImages,
    root: &Path,
    file: Located,
    diags: &mut Diagnostics,
) -> ImageConfig {
    check_cache_dir(&raw.cache_dir, root, file, diags);
    let memory = *raw.max_memory_mb.get_ref();
    if !(64..=1 << 20).contains(&memory) {
        diags.push(
            file.at(raw.max_memory_mb.span(), format!("{memory} MiB is out of range"))
                .field("images.max_memory_mb")
                .hint("give the memory photographs may hold at once, in MiB, from 64; the default 768 keeps a build under 1 GiB"),
        );
    }
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
        max_memory: (*raw.max_memory_mb.get_ref()).min(1 << 20) << 20,
        cache_dir: PathBuf::from(raw.cache_dir.into_inner()),
        redact_color,
        require_review: raw.require_review,
    }
}

/// The cache holds absolute paths and file identities of the publisher's machine: it must
/// never be where a build publishes from (`content/`, `static/`) or the site's own folder,
/// wherever links make it point. (Its place against the output is checked with the
/// output, `output::check_output_dir`.)
fn check_cache_dir(dir: &Spanned<String>, root: &Path, file: Located, diags: &mut Diagnostics) {
    use crate::paths::{is_within, resolved};
    let (root, cache) = (resolved(root), resolved(&root.join(dir.get_ref())));
    let problem = if is_within(&root, &cache) {
        Some("the site's folder itself, or a folder holding it".to_string())
    } else {
        ["content", "static", "themes", "templates"]
            .into_iter()
            .find(|d| is_within(&cache, &root.join(d)))
            .map(|d| {
                format!("inside {d}/, whose files are published or read as the site's sources")
            })
    };
    if let Some(problem) = problem {
        diags.push(
            file.at(
                dir.span(),
                format!("the cache folder `{}` is {problem}", dir.get_ref()),
            )
            .field("images.cache_dir")
            .hint("keep it beside the site's sources, e.g. cache_dir = \".casebook-cache\""),
        );
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
