//! Parsing one content file: front matter, standard keys, the case record, photographs.

use std::path::Path;

use super::{FileKind, Meta, Parsed, case, display_path, front_matter, meta, photos, to_slash};
use crate::config::Config;
use crate::error::Diagnostic;

pub(super) fn parse_file(
    config: &Config,
    content_dir: &Path,
    rel: &Path,
) -> std::result::Result<Parsed, Vec<Diagnostic>> {
    let source = display_path(rel);
    let abs = content_dir.join(rel);
    // Beneath the site's folder, never through a link: the file may have been swapped
    // for one since it was listed.
    let text = crate::beneath::read_to_string(&config.root, &abs, 64 << 20).map_err(|e| {
        vec![
            Diagnostic::new(&source, format!("cannot read the file: {e}"))
                .hint("content files must be UTF-8 text"),
        ]
    })?;
    let doc = front_matter::parse(&source, &text).map_err(|d| vec![d])?;

    let file_name = rel.file_name().unwrap_or_default().to_string_lossy();
    let full_stem = file_name.trim_end_matches(".md");
    let (stem, lang) = match split_language(full_stem) {
        Some((stem, code)) => {
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
    let mut withdrawn_entry = None;
    for e in &doc.entries {
        if standard_keys.contains(&e.key.as_str()) {
            standard_entries.push(e);
        } else if in_case_section && e.key == case::WITHDRAWN_KEY {
            withdrawn_entry = Some(e);
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
                known.push(case::WITHDRAWN_KEY);
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
        Some(e) if kind != FileKind::SectionIndex && withdrawn_entry.is_none() => {
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
                photos::Site {
                    front_matter: doc.block,
                    key_line: e.line,
                    page: &source,
                    dir: &dir,
                    display_dir: &display_dir,
                    default_sensitivity: default,
                },
                &mut diags,
            )
        }
        _ => Vec::new(),
    };
    let withdrawal = match withdrawn_entry {
        Some(e) if !is_translation => case::withdrawal(&source, e, &mut diags),
        _ => None,
    };
    let has_case_fields = !case_entries.is_empty() || withdrawn_entry.is_some();
    let case = match schema {
        Some(schema) if in_case_section && !is_translation => {
            case::validate(&source, schema, &case_entries, 1, withdrawal, &mut diags)
        }
        _ => None,
    };
    if in_case_section && is_translation && has_case_fields {
        let e = case_entries
            .first()
            .copied()
            .or(withdrawn_entry)
            .expect("one entry");
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
    // Nothing of a withdrawn case is published but its id and the withdrawal: not its
    // narrative, not its photographs, not a title that might name someone.
    let withdrawn = case.as_ref().is_some_and(|c| c.withdrawn.is_some());
    let (title, photos, body) = match &case {
        Some(c) if withdrawn => (c.id.clone(), Vec::new(), String::new()),
        _ => (title, photos, doc.body.to_string()),
    };
    let standard = if withdrawn {
        meta::Standard {
            draft: standard.draft,
            ..Default::default()
        }
    } else {
        standard
    };
    Ok(Parsed {
        kind,
        dir,
        stem,
        key,
        lang: lang.clone(),
        meta: meta_of(source, lang, title, &standard, body, doc.body_line, photos),
        standard,
        case,
    })
}

/// A file's metadata as parsed (its key and address are set when the corpus is assembled):
/// what its standard keys say, with what the file itself gives.
pub(super) fn meta_of(
    source: std::path::PathBuf,
    lang: String,
    title: String,
    standard: &meta::Standard,
    body: String,
    body_line: usize,
    photos: Vec<photos::PhotoSpec>,
) -> Meta {
    Meta {
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
        body,
        body_line,
        photos,
    }
}

pub(super) fn section_url(dir: &str) -> String {
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

pub(super) fn with_lang(config: &Config, lang: &str, path: &str) -> String {
    format!(
        "{}{}",
        config.language_prefix(lang),
        path.trim_start_matches('/')
    )
}

/// `about.ar` → (`about`, `ar`): a file name's stem and the language it is written in, when
/// the name says (a default-language file's name does not).
pub(super) fn split_language(full_stem: &str) -> Option<(&str, &str)> {
    full_stem
        .rsplit_once('.')
        .filter(|(_, code)| crate::locale::is_language_code(code))
}
