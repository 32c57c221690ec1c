//! A page's key: a hash of everything the page was loaded as, so that what a build derives
//! from a page alone (its markdown, its search document) can be kept for the next build
//! and used again while the key is the same.

use super::case::Case;
use super::{Meta, Page};
use crate::hashing::Hasher;

impl Page {
    /// The hash of every field of this page and of its section's address, which its search
    /// document shows; `None` for a page with photographs, whose derived data also depends
    /// on their files. Each field is named, so a field added to a page cannot be left out.
    pub(crate) fn key(&self, section_path: &str) -> Option<u128> {
        let Page {
            meta,
            section: _,
            case,
            fallback,
            title_lang,
            description_lang,
        } = self;
        let Meta {
            source,
            key,
            lang,
            title,
            description,
            date,
            updated,
            weight,
            template,
            extra,
            path,
            body,
            body_line,
            photos,
        } = meta;
        if !photos.is_empty() {
            return None;
        }
        let mut h = Hasher::default();
        h.text(section_path);
        h.text(source.to_str()?);
        for text in [key, lang, title, path, body] {
            h.text(text);
        }
        for text in [description, template, title_lang, description_lang] {
            optional(&mut h, text.as_deref());
        }
        h.serialized(&(date, updated, weight, extra, body_line, fallback));
        match case {
            Some(Case {
                id,
                id_at,
                values,
                synthetic,
                withdrawn,
            }) => {
                h.text(id);
                // Values serialise without their kind (`Str` and `Enum` alike): the kinds
                // are the schema's, which the kept file's own key holds.
                h.serialized(&(id_at, values, synthetic, withdrawn));
            }
            None => h.number(u64::MAX),
        }
        Some(h.digest())
    }
}

fn optional(h: &mut Hasher, text: Option<&str>) {
    match text {
        Some(text) => {
            h.number(1);
            h.text(text);
        }
        None => h.number(0),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::content::case::FieldValue;

    fn page() -> Page {
        Page {
            meta: Meta {
                source: PathBuf::from("content/cases/syn-1/index.md"),
                key: "cases/syn-1/index.md".into(),
                lang: "en".into(),
                title: "Case syn-1".into(),
                description: None,
                date: None,
                updated: None,
                weight: None,
                template: None,
                extra: Default::default(),
                path: "/cases/syn-1/".into(),
                body: "Text.".into(),
                body_line: 12,
                photos: Vec::new(),
            },
            section: 1,
            case: Some(Case {
                id: "syn-1".into(),
                id_at: (2, 1),
                values: [("branch".to_string(), FieldValue::Str("215".into()))].into(),
                synthetic: true,
                withdrawn: None,
            }),
            fallback: false,
            title_lang: None,
            description_lang: None,
        }
    }

    #[test]
    fn a_page_key_moves_with_every_field_and_the_section_address() {
        let base = page().key("/cases/").unwrap();
        assert_eq!(page().key("/cases/"), Some(base));
        assert_ne!(page().key("/ar/cases/"), Some(base));
        let changes: Vec<fn(&mut Page)> = vec![
            |p| p.meta.source = PathBuf::from("content/cases/syn-1/index.ar.md"),
            |p| p.meta.key = "cases/syn-2/index.md".into(),
            |p| p.meta.lang = "ar".into(),
            |p| p.meta.title = "Case syn-2".into(),
            |p| p.meta.description = Some(String::new()),
            |p| p.meta.date = Some(chrono::DateTime::UNIX_EPOCH.into()),
            |p| p.meta.updated = Some(chrono::DateTime::UNIX_EPOCH.into()),
            |p| p.meta.weight = Some(0),
            |p| p.meta.template = Some("case.html".into()),
            |p| {
                p.meta.extra.insert("k".into(), toml::Value::Integer(1));
            },
            |p| p.meta.path = "/cases/syn-2/".into(),
            |p| p.meta.body = "Text!".into(),
            |p| p.meta.body_line = 13,
            |p| p.case.as_mut().unwrap().id = "syn-2".into(),
            |p| p.case.as_mut().unwrap().id_at = (3, 1),
            |p| {
                let values = &mut p.case.as_mut().unwrap().values;
                values.insert("branch".into(), FieldValue::Str("227".into()));
            },
            |p| p.case.as_mut().unwrap().synthetic = false,
            |p| {
                p.case.as_mut().unwrap().withdrawn = Some(crate::content::case::Withdrawal {
                    reason: "duplicate".into(),
                    date: chrono::NaiveDate::MIN,
                })
            },
            |p| p.case = None,
            |p| p.fallback = true,
            |p| p.title_lang = Some("en".into()),
            |p| p.description_lang = Some("en".into()),
        ];
        for (n, change) in changes.iter().enumerate() {
            let mut changed = page();
            change(&mut changed);
            assert_ne!(changed.key("/cases/"), Some(base), "change {n}");
        }
        // The section the page is listed in counts only through its address.
        let mut moved = page();
        moved.section = 7;
        assert_eq!(moved.key("/cases/"), Some(base));
    }

    #[test]
    fn a_page_with_photographs_has_no_key() {
        let mut p = page();
        p.meta.photos.push(crate::content::photos::PhotoSpec {
            file: "a.jpg".into(),
            source: PathBuf::from("/site/content/cases/syn-1/a.jpg"),
            display: PathBuf::from("content/cases/syn-1/a.jpg"),
            alt: "A synthetic sample".into(),
            caption: None,
            alt_lang: None,
            caption_lang: None,
            sensitivity: crate::config::Sensitivity::Graphic,
            source_sha256: None,
            redact: Vec::new(),
            reviewed: None,
            page: PathBuf::from("content/cases/syn-1/index.md"),
            index: 0,
            line: 5,
            key: "content/cases/syn-1/a.jpg".into(),
        });
        assert_eq!(p.key("/cases/"), None);
    }
}
