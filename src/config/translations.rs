//! `[translations.<lang>]`: the site's title and description and the case schema's labels
//! in every language besides the default one.

use std::collections::{BTreeMap, BTreeSet};

use toml::Spanned;

use super::schema::FieldTexts;
use super::{CaseSchema, Language};
use crate::error::{Diagnostic, Diagnostics, Located, did_you_mean};

/// Checks `[translations.<lang>]` and returns the site's title and description per other
/// language; fills each case field's texts in those languages. Every text the default
/// language shows must be translated: a missing one is an error naming the key, and so is an
/// unknown key.
/// What the translations translate: the site's texts in the default language, and which
/// languages there are.
pub(super) struct Site<'a> {
    pub(super) title: &'a str,
    pub(super) description: &'a str,
    /// `publisher`, when the site names one: its translation may be given, or it stays.
    pub(super) publisher: Option<&'a str>,
    pub(super) default_language: &'a str,
    pub(super) languages: &'a [Language],
}

/// The site's own texts in one other language.
#[derive(Debug, Clone, Default)]
pub(crate) struct SiteTexts {
    pub(crate) title: String,
    pub(crate) description: String,
    /// `site.publisher`, when given (a name may stay as it is written).
    pub(crate) publisher: Option<String>,
}

/// `[translations.<lang>]` as written in the file.
pub(super) type RawTranslations = BTreeMap<String, Spanned<BTreeMap<String, Spanned<String>>>>;

pub(super) fn resolve(
    raw: RawTranslations,
    site: Site,
    cases: Option<&mut CaseSchema>,
    file: Located,
    diags: &mut Diagnostics,
) -> BTreeMap<String, SiteTexts> {
    let Site {
        title,
        description,
        publisher,
        default_language,
        languages,
    } = site;
    let path = file.path;
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
        let site_publisher = publisher.and_then(|p| take("site.publisher".into(), Some(p), false));
        site_texts.insert(
            lang.clone(),
            SiteTexts {
                title: site_title,
                description: site_description,
                publisher: site_publisher,
            },
        );
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
                            "keys are `site.title`, `site.description`, `site.publisher`, and for case fields `field`, `field.facet_label`, `field.description` or `field.<value>`".into()
                        })),
                );
            }
        }
    }
    site_texts
}
