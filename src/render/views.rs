//! What templates see: plain serialisable views of pages, sections, cases and facets.
//!
//! Views are built once per page and shared (as cheap-to-clone Tera values) by every list
//! that shows the page, so rendering 11,000 cases does not re-serialise each case per list.

use serde::Serialize;

use crate::config::{CaseSchema, Config, FieldType, Sensitivity};
use crate::content::{Case, Corpus, Date, FieldValue, Meta, Page};
use crate::images::ImageSet;
use crate::locale;
use crate::markdown::{Rendered, TocEntry};

/// The same content in another language, for the switcher and `hreflang`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Link {
    pub(crate) lang: String,
    /// The language's own name for itself.
    pub(crate) name: String,
    pub(crate) path: String,
    pub(crate) permalink: String,
    /// The page has no version in this language: the link leads to that language's home.
    pub(crate) untranslated: bool,
}

impl Link {
    pub(crate) fn new(config: &Config, lang: &str, path: &str) -> Link {
        Link {
            lang: lang.to_string(),
            name: locale::language_name(lang).unwrap_or(lang).to_string(),
            path: path.to_string(),
            permalink: config.permalink(path),
            untranslated: false,
        }
    }
}

/// A page or section as a template sees it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PageView<'a> {
    pub(crate) title: &'a str,
    pub(crate) description: Option<&'a str>,
    /// Root-relative URL path; the output stage makes links relative.
    pub(crate) path: &'a str,
    pub(crate) permalink: String,
    pub(crate) lang: &'a str,
    pub(crate) dir: &'static str,
    pub(crate) date: Option<String>,
    pub(crate) date_display: Option<String>,
    pub(crate) updated: Option<String>,
    pub(crate) updated_display: Option<String>,
    pub(crate) weight: Option<i64>,
    pub(crate) extra: &'a toml::Table,
    pub(crate) content: &'a str,
    pub(crate) summary: Option<&'a str>,
    pub(crate) toc: &'a [TocEntry],
    pub(crate) word_count: usize,
    pub(crate) reading_time: usize,
    pub(crate) translations: Vec<Link>,
    pub(crate) case: Option<CaseView<'a>>,
    /// A case shown in a language its narrative was not translated into.
    pub(crate) fallback: bool,
    /// The title's language when it is not the page's (untranslated): for `lang`.
    pub(crate) title_lang: Option<&'a str>,
    /// The same for the description.
    pub(crate) description_lang: Option<&'a str>,
    pub(crate) source: String,
    pub(crate) photos: Vec<PhotoView>,
    /// True when a photograph is graphic: the theme then offers to show them all.
    pub(crate) has_graphic: bool,
    /// A case's citation ("Cite this case").
    pub(crate) citation: Option<super::cite::Citation>,
    /// In a fingerprint, in place of `citation`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) citation_of: Option<CitationOf<'a>>,
    /// In a fingerprint, in place of `case`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) case_of: Option<CaseOf<'a>>,
    /// In a fingerprint, in place of `content` and `summary`: a hash of their bytes.
    /// Hashed as JSON, every page's HTML was escaped first, a quarter of the fingerprints'
    /// time in a one-case edit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) markdown_of: Option<[u64; 2]>,
}

/// What a case's view (`case_view`) is made from besides the case schema, which is part of
/// the configuration every page's fingerprint covers whole: its values as parsed, not their
/// labels, dates and facet addresses in the page's language.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CaseOf<'a> {
    /// The case it stands for, to make the view from when rendering.
    #[serde(skip)]
    case: &'a Case,
    id: &'a str,
    values: &'a std::collections::BTreeMap<String, FieldValue>,
    section_path: &'a str,
    lang: &'a str,
}

/// What a case's citation is made from besides the configuration, which every page's
/// fingerprint covers whole: hashing this costs a fraction of making the citation (its
/// CSL-JSON, BibTeX and RIS), done for each of 11,000 case pages in every one-shot build.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CitationOf<'a> {
    title: &'a str,
    path: &'a str,
    lang: &'a str,
    id: &'a str,
    /// Each date as seconds and its offset's.
    date: Option<(i64, i32)>,
    updated: Option<(i64, i32)>,
    released: Option<(i64, i32)>,
}

/// A list entry: a page without its full content.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ItemView<'a> {
    pub(crate) title: &'a str,
    /// The title's language when it is not the page's (untranslated): for `lang`.
    pub(crate) title_lang: Option<&'a str>,
    pub(crate) description: Option<&'a str>,
    /// The same for the description, and for the summary of an untranslated page.
    pub(crate) description_lang: Option<&'a str>,
    pub(crate) path: &'a str,
    pub(crate) date: Option<String>,
    pub(crate) date_display: Option<String>,
    pub(crate) summary: Option<&'a str>,
    pub(crate) case: Option<ItemCase<'a>>,
    /// In a fingerprint, in place of `case`'s fields (its thumbnail stays).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) case_of: Option<CaseOf<'a>>,
}

/// What a list shows of a case: kept small because every list page of an 11,000-case
/// archive carries it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ItemCase<'a> {
    pub(crate) id: &'a str,
    pub(crate) thumb: Option<ThumbView>,
    pub(crate) synthetic: bool,
    pub(crate) columns: Vec<String>,
    pub(crate) values: std::collections::BTreeMap<&'a str, String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct CaseView<'a> {
    pub(crate) id: &'a str,
    pub(crate) synthetic: bool,
    /// Every declared field the case carries, in schema order.
    pub(crate) fields: Vec<FieldView<'a>>,
    /// Field name -> plain text, for templates that want one field by name.
    pub(crate) values: std::collections::BTreeMap<&'a str, String>,
    /// Display text of each `column = true` field, in schema order (empty when absent), so
    /// list tables stay aligned.
    pub(crate) columns: Vec<String>,
}

/// What the tombstone of a withdrawn case shows: nothing of the record but its id.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TombstoneView<'a> {
    pub(crate) id: &'a str,
    pub(crate) reason: &'a str,
    /// `2026-12-01`.
    pub(crate) date: String,
    pub(crate) date_display: String,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct FieldView<'a> {
    pub(crate) name: &'a str,
    pub(crate) label: &'a str,
    #[serde(rename = "type")]
    pub(crate) kind: FieldType,
    /// Shown as a column of case lists.
    pub(crate) column: bool,
    pub(crate) text: String,
    /// Each value with its display label and, for facets, the facet page it links to.
    pub(crate) items: Vec<ValueView>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct ValueView {
    pub(crate) value: String,
    pub(crate) label: String,
    pub(crate) path: Option<String>,
}

pub(crate) fn format_date(date: &Date, lang: &str) -> String {
    locale::format_date(&date.date_naive(), lang)
}

fn iso(d: &Option<Date>) -> Option<String> {
    d.as_ref().map(|d| d.to_rfc3339())
}

/// The facet page of one value: `/cases/branch/215/` (language-prefixed).
pub(crate) fn facet_value_path(section_path: &str, facet: &str, key: &str) -> String {
    format!("{section_path}{facet}/{key}/")
}

pub(crate) fn case_view<'a>(
    schema: &'a CaseSchema,
    case: &'a Case,
    section_path: &str,
    lang: &str,
) -> CaseView<'a> {
    let mut fields = Vec::new();
    let mut values = std::collections::BTreeMap::new();
    for field in &schema.fields {
        let Some(value) = case.values.get(&field.name) else {
            continue;
        };
        values.insert(field.name.as_str(), value.to_text());
        // The synthetic marker is shown as a badge and notice, not as a data row.
        if schema.synthetic_field.as_ref() == Some(&field.name) {
            continue;
        }
        let keys = value.facet_keys();
        let items = match value {
            FieldValue::List(list) => list
                .iter()
                .map(|v| ValueView {
                    label: field.value_label_in(v, lang).to_string(),
                    path: field
                        .facet
                        .as_ref()
                        .map(|f| facet_value_path(section_path, f, v)),
                    value: v.clone(),
                })
                .collect(),
            other => {
                let text = match other {
                    FieldValue::Date(d) => locale::format_date(d, lang),
                    v => field.value_label_in(&v.to_text(), lang).to_string(),
                };
                vec![ValueView {
                    value: other.to_text(),
                    label: text,
                    path: field
                        .facet
                        .as_ref()
                        .map(|f| facet_value_path(section_path, f, &keys[0])),
                }]
            }
        };
        fields.push(FieldView {
            name: &field.name,
            label: field.label_in(lang),
            kind: field.kind,
            column: field.column,
            text: items
                .iter()
                .map(|i| i.label.as_str())
                .collect::<Vec<_>>()
                .join(locale::list_separator(lang)),
            items,
        });
    }
    let columns = schema
        .fields
        .iter()
        .filter(|f| f.column)
        .map(|f| {
            fields
                .iter()
                .find(|v| v.name == f.name)
                .map_or_else(String::new, |v| v.text.clone())
        })
        .collect();
    CaseView {
        columns,
        id: &case.id,
        synthetic: case.is_synthetic(),
        fields,
        values,
    }
}

#[derive(Clone, Copy)]
pub(crate) struct ViewContext<'a> {
    pub(crate) config: &'a Config,
    pub(crate) corpus: &'a Corpus,
    pub(crate) images: &'a ImageSet,
    /// The release's date, for citations (`cite::released`).
    pub(crate) released: Option<crate::content::Date>,
    /// True when only a hash of the views is made (a page's fingerprint): a case's fields
    /// and citation are then stood for by what they are made from (`CaseOf`, `CitationOf`),
    /// not made.
    pub(crate) hashing: bool,
}

/// One image file as templates see it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ImageFile {
    pub(crate) path: String,
    pub(crate) width: u32,
    pub(crate) height: u32,
}

/// A photograph as templates see it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PhotoView {
    pub(crate) alt: String,
    pub(crate) caption: Option<String>,
    /// The language of the alt text and of the caption when not the page's (untranslated).
    pub(crate) alt_lang: Option<String>,
    pub(crate) caption_lang: Option<String>,
    /// `none`, `sensitive` or `graphic`.
    pub(crate) sensitivity: Sensitivity,
    /// The largest derivative.
    pub(crate) src: ImageFile,
    /// Every derivative, ascending: for `srcset`.
    pub(crate) sizes: Vec<ImageFile>,
    /// `path 400w, path 1200w`.
    pub(crate) srcset: String,
    /// The blurred placeholder.
    pub(crate) placeholder: ImageFile,
    /// The SHA-256 of the largest derivative, as the manifest lists it.
    pub(crate) sha256: String,
}

/// What a list shows of a case's first photograph: only the placeholder when graphic.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ThumbView {
    pub(crate) path: String,
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) alt: String,
    pub(crate) graphic: bool,
}

fn image_file(p: &crate::images::Published) -> ImageFile {
    ImageFile {
        path: p.path.clone(),
        width: p.width,
        height: p.height,
    }
}

impl<'a> ViewContext<'a> {
    fn dir(&self, lang: &str) -> &'static str {
        self.config.language(lang).map_or("ltr", |l| l.dir)
    }

    fn case_section_path(&self, page: &Page) -> &'a str {
        &self.corpus.sections[page.section].meta.path
    }

    /// What the view of `page`'s case is made from, if it is a case.
    fn case_of(&self, meta: &'a Meta, page: &'a Page) -> Option<CaseOf<'a>> {
        let case = page.case.as_ref()?;
        Some(CaseOf {
            case,
            id: &case.id,
            values: &case.values,
            section_path: self.case_section_path(page),
            lang: &meta.lang,
        })
    }

    pub(crate) fn page(
        &self,
        meta: &'a Meta,
        rendered: &'a Rendered,
        page: Option<&'a Page>,
    ) -> PageView<'a> {
        let schema = self.config.cases.as_ref();
        let case_of = page.and_then(|p| self.case_of(meta, p));
        let id = case_of.as_ref().map(|of| of.id);
        let (case, case_of) = match (schema, case_of) {
            (Some(_), Some(of)) if self.hashing => (None, Some(of)),
            (Some(schema), Some(of)) => (
                Some(case_view(schema, of.case, of.section_path, of.lang)),
                None,
            ),
            _ => (None, None),
        };
        let citation = id.filter(|_| !self.hashing).map(|id| {
            let cited = super::cite::Cited {
                config: self.config,
                lang: &meta.lang,
                case: Some((meta, id)),
                released: self.released.as_ref(),
            };
            cited.citation()
        });
        let when = |d: &crate::content::Date| (d.timestamp(), d.offset().local_minus_utc());
        let citation_of = id.filter(|_| self.hashing).map(|id| CitationOf {
            title: &meta.title,
            path: &meta.path,
            lang: &meta.lang,
            id,
            date: meta.date.as_ref().map(when),
            updated: meta.updated.as_ref().map(when),
            released: self.released.as_ref().map(when),
        });
        PageView {
            citation,
            citation_of,
            case_of,
            title: &meta.title,
            description: meta.description.as_deref(),
            path: &meta.path,
            permalink: self.config.permalink(&meta.path),
            lang: &meta.lang,
            dir: self.dir(&meta.lang),
            date: iso(&meta.date),
            date_display: meta.date.as_ref().map(|d| format_date(d, &meta.lang)),
            updated: iso(&meta.updated),
            updated_display: meta.updated.as_ref().map(|d| format_date(d, &meta.lang)),
            weight: meta.weight,
            extra: &meta.extra,
            content: if self.hashing { "" } else { &rendered.html },
            summary: rendered.summary.as_deref().filter(|_| !self.hashing),
            markdown_of: self.hashing.then(|| rendered.key()),
            toc: &rendered.toc,
            word_count: rendered.word_count,
            reading_time: rendered.word_count.div_ceil(200).max(1),
            translations: self.translations(meta),
            case,
            fallback: page.is_some_and(|p| p.fallback),
            title_lang: page.and_then(|p| p.title_lang.as_deref()),
            description_lang: page.and_then(|p| p.description_lang.as_deref()),
            source: meta.source.display().to_string(),
            photos: self.photos(meta),
            has_graphic: meta
                .photos
                .iter()
                .any(|p| p.sensitivity == Sensitivity::Graphic),
        }
    }

    pub(crate) fn photos(&self, meta: &Meta) -> Vec<PhotoView> {
        meta.photos
            .iter()
            .filter_map(|spec| {
                let out = self.images.get(spec)?;
                let sizes: Vec<ImageFile> = out.sizes.iter().map(image_file).collect();
                Some(PhotoView {
                    alt: spec.alt.clone(),
                    caption: spec.caption.clone(),
                    alt_lang: spec.alt_lang.clone(),
                    caption_lang: spec.caption_lang.clone(),
                    sensitivity: spec.sensitivity,
                    src: sizes.last()?.clone(),
                    srcset: sizes
                        .iter()
                        .map(|s| format!("{} {}w", s.path, s.width))
                        .collect::<Vec<_>>()
                        .join(", "),
                    sizes,
                    placeholder: image_file(&out.placeholder),
                    sha256: out.sizes.last()?.sha256.clone(),
                })
            })
            .collect()
    }

    /// The tombstone of a withdrawn case.
    pub(crate) fn tombstone(&self, page: &'a Page) -> Option<TombstoneView<'a>> {
        let case = page.case.as_ref()?;
        let withdrawal = case.withdrawn.as_ref()?;
        Some(TombstoneView {
            id: &case.id,
            reason: &withdrawal.reason,
            date: withdrawal.date.format("%Y-%m-%d").to_string(),
            date_display: locale::format_date(&withdrawal.date, &page.meta.lang),
        })
    }

    /// Other-language versions of a page or section, in language order.
    pub(crate) fn translations(&self, meta: &Meta) -> Vec<Link> {
        self.corpus
            .translations(&meta.key)
            .into_iter()
            .filter(|(lang, _)| *lang != meta.lang)
            .map(|(lang, path)| Link::new(self.config, lang, path))
            .collect()
    }

    pub(crate) fn item(
        &self,
        meta: &'a Meta,
        rendered: &'a Rendered,
        page: Option<&'a Page>,
    ) -> ItemView<'a> {
        let case_of = page.and_then(|p| self.case_of(meta, p));
        let case = case_of.as_ref().and_then(|of| {
            let schema = self.config.cases.as_ref()?;
            let thumb = meta.photos.first().and_then(|spec| {
                let out = self.images.get(spec)?;
                let graphic = spec.sensitivity == Sensitivity::Graphic;
                let file = if graphic {
                    &out.placeholder
                } else {
                    &out.sizes[0]
                };
                // Lists show a 48-pixel-wide thumbnail.
                Some(ThumbView {
                    path: file.path.clone(),
                    width: 48,
                    height: (48 * file.height).div_ceil(file.width.max(1)),
                    alt: spec.alt.clone(),
                    graphic,
                })
            });
            if self.hashing {
                return Some(ItemCase {
                    thumb,
                    id: of.id,
                    synthetic: false,
                    columns: Vec::new(),
                    values: Default::default(),
                });
            }
            let view = case_view(schema, of.case, of.section_path, of.lang);
            Some(ItemCase {
                thumb,
                id: view.id,
                synthetic: view.synthetic,
                columns: view.columns,
                values: view.values,
            })
        });
        let case_of = case_of.filter(|_| self.hashing && case.is_some());
        ItemView {
            title: &meta.title,
            title_lang: page.and_then(|p| p.title_lang.as_deref()),
            description: meta.description.as_deref(),
            description_lang: page.and_then(Page::summary_lang),
            path: &meta.path,
            date: iso(&meta.date),
            date_display: meta.date.as_ref().map(|d| format_date(d, &meta.lang)),
            summary: rendered.summary.as_deref(),
            case,
            case_of,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fingerprint's stand-ins for a case's fields and citation: the latter changes with the
    /// release's date, which the page shows nowhere else; both are made only when rendering.
    #[test]
    fn a_fingerprint_stands_for_the_case_and_its_citation_with_the_release_date() {
        let config = Config::load(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
        let (corpus, _) = crate::content::load_partial(&config, false).unwrap();
        let images = ImageSet::default();
        let page = corpus.pages.iter().find(|p| p.case.is_some()).unwrap();
        let rendered = crate::markdown::Rendered::default();
        let released = crate::render::cite::released(&corpus).unwrap();
        let view = |released, hashing| {
            let views = ViewContext {
                config: &config,
                corpus: &corpus,
                images: &images,
                released,
                hashing,
            };
            serde_json::to_value(views.page(&page.meta, &rendered, Some(page))).unwrap()
        };
        let rendering = view(Some(released), false);
        assert!(rendering["citation"].is_object() && rendering.get("citation_of").is_none());
        let hashed = view(Some(released), true);
        assert!(hashed["citation"].is_null() && hashed["citation_of"]["id"].is_string());
        assert!(rendering["case"]["fields"].is_array() && rendering.get("case_of").is_none());
        assert!(hashed["case"].is_null() && hashed["case_of"]["values"].is_object());
        let later = view(Some(released + chrono::Duration::days(1)), true);
        assert_ne!(hashed, later);
        assert_ne!(hashed, view(None, true));
        // The page's HTML and summary stand in as a hash of their bytes.
        assert!(rendering["content"].is_string() && rendering.get("markdown_of").is_none());
        assert_eq!(hashed["content"], "");
        let views = ViewContext {
            config: &config,
            corpus: &corpus,
            images: &images,
            released: Some(released),
            hashing: true,
        };
        let with = |html: &str, summary: Option<&str>| {
            let rendered = crate::markdown::Rendered {
                html: html.into(),
                summary: summary.map(Into::into),
                ..Default::default()
            };
            serde_json::to_value(views.page(&page.meta, &rendered, Some(page))).unwrap()
        };
        let stand_ins = [
            with("<p>a</p>", None),
            with("<p>b</p>", None),
            with("<p>a</p>", Some("")),
            with("<p>a</p>", Some("<p>a</p>")),
        ];
        for (i, a) in stand_ins.iter().enumerate() {
            for b in &stand_ins[i + 1..] {
                assert_ne!(a["markdown_of"], b["markdown_of"]);
            }
        }
    }
}
