//! "Cite this": a case's (or the archive's) citation as a reader sees it and as reference
//! managers and search engines read it: CSL-JSON, BibTeX and RIS (offered as downloads
//! from `data:` addresses, so no file is added per case and they work from disk),
//! schema.org JSON-LD, and Dublin Core and Highwire `citation_*` meta tags.
//!
//! Everything comes from the build's inputs: the publisher, title and licence of
//! casebook.toml, the page's title, identifier and dates, the release label given to
//! `--sign` and the release date, which is the newest date of the archive's pages, so the
//! same sources always cite the same way.

use serde::Serialize;
use serde_json::json;

use crate::config::Config;
use crate::content::{Corpus, Date, Meta};

/// The release's date: the newest date (`updated`, else `date`) of the archive's pages.
pub(crate) fn released(corpus: &Corpus) -> Option<Date> {
    corpus.metas().filter_map(|m| m.updated.or(m.date)).max()
}

/// What a citation is made of.
pub(crate) struct Cited<'a> {
    pub(crate) config: &'a Config,
    pub(crate) lang: &'a str,
    /// `None` for the archive itself.
    pub(crate) case: Option<(&'a Meta, &'a str)>,
    /// The archive's newest date: the release's.
    pub(crate) released: Option<&'a Date>,
}

/// A citation as templates see it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Citation {
    pub(crate) publisher: String,
    pub(crate) title: String,
    pub(crate) archive: String,
    pub(crate) id: Option<String>,
    pub(crate) release: Option<String>,
    /// `2026-12-06`.
    pub(crate) date: Option<String>,
    pub(crate) url: String,
    /// The CSL-JSON, BibTeX and RIS as `data:` addresses, for download links (the text
    /// itself is not kept: every case page's template context would carry it again).
    pub(crate) csl_href: String,
    pub(crate) bibtex_href: String,
    pub(crate) ris_href: String,
    /// The file name stem of the downloads (`syn-0001`, or `archive`).
    pub(crate) file_stem: String,
    /// The schema.org description, ready for a `<script type="application/ld+json">`.
    pub(crate) json_ld: String,
    /// `<meta name content>` pairs (Dublin Core and Highwire).
    pub(crate) meta: Vec<(String, String)>,
}

impl Cited<'_> {
    pub(crate) fn citation(&self) -> Citation {
        let config = self.config;
        let archive = config.title_in(self.lang).to_string();
        let publisher = config.publisher_in(self.lang).to_string();
        let (title, url, id, modified) = match self.case {
            Some((meta, id)) => (
                meta.title.clone(),
                config.permalink(&meta.path),
                Some(id.to_string()),
                meta.updated.as_ref().or(meta.date.as_ref()),
            ),
            None => (
                archive.clone(),
                config.permalink(&config.language_prefix(self.lang)),
                None,
                self.released,
            ),
        };
        let release = config.release_label.clone();
        let date = self.released.map(|d| d.format("%Y-%m-%d").to_string());
        let parts = self.released.map(|d| {
            let ymd = d.format("%Y %m %d").to_string();
            ymd.split(' ')
                .map(|p| p.parse::<u32>().unwrap_or(0))
                .collect::<Vec<_>>()
        });
        let license = config.license.as_ref().map(|l| l.url.clone());
        let mut csl = json!({
            "id": id.clone().unwrap_or_else(|| "archive".into()),
            "type": if id.is_some() { "document" } else { "dataset" },
            // An organisation as author: styles then name it where they name an author.
            "author": [{ "literal": publisher }],
            "title": title,
            "publisher": publisher,
            "URL": url,
            "language": self.lang,
        });
        if let Some(id) = &id {
            csl["container-title"] = json!(archive);
            csl["archive"] = json!(archive);
            csl["archive_location"] = json!(id);
            csl["number"] = json!(id);
        }
        if let Some(parts) = &parts {
            csl["issued"] = json!({ "date-parts": [parts] });
        }
        if let Some(release) = &release {
            csl["version"] = json!(release);
        }
        if let Some(license) = &license {
            csl["license"] = json!(license);
        }
        let csl_json = serde_json::to_string(&json!([csl])).expect("CSL-JSON serialises");
        let file_stem = id.clone().unwrap_or_else(|| "archive".into());
        let record = Record {
            title: &title,
            archive: &archive,
            publisher: &publisher,
            id: id.as_deref(),
            release: release.as_deref(),
            date: self.released,
            url: &url,
            lang: self.lang,
        };
        let bibtex = bibtex(&record, &format!("casebook-{file_stem}"));
        let ris = ris(&record, if id.is_some() { "GEN" } else { "DATA" });
        let json_ld = json_ld(
            self,
            &title,
            &url,
            id.as_deref(),
            modified,
            &publisher,
            &archive,
        );
        let mut meta = vec![
            ("citation_title".to_string(), title.clone()),
            ("citation_publisher".into(), publisher.clone()),
            ("citation_public_url".into(), url.clone()),
            ("citation_language".into(), self.lang.to_string()),
            ("DC.title".into(), title.clone()),
            ("DC.publisher".into(), publisher.clone()),
            ("DC.identifier".into(), url.clone()),
            ("DC.language".into(), self.lang.to_string()),
            (
                "DC.type".into(),
                if id.is_some() { "Text" } else { "Dataset" }.into(),
            ),
        ];
        if let Some(id) = &id {
            meta.push(("DC.identifier".into(), id.clone()));
            meta.push(("DC.relation.ispartof".into(), archive.clone()));
        }
        if let Some(d) = self.released {
            meta.push(("citation_date".into(), d.format("%Y/%m/%d").to_string()));
            meta.push(("DC.date".into(), d.format("%Y-%m-%d").to_string()));
        }
        if let Some(license) = &license {
            meta.push(("DC.rights".into(), license.clone()));
        }
        Citation {
            csl_href: data_url("application/vnd.citationstyles.csl+json", &csl_json),
            bibtex_href: data_url("application/x-bibtex", &bibtex),
            ris_href: data_url("application/x-research-info-systems", &ris),
            publisher,
            title,
            archive,
            id,
            release,
            date,
            url,
            file_stem,
            json_ld,
            meta,
        }
    }
}

/// schema.org: a case is an `ArchiveComponent` of the archive, a `Dataset` with its exports.
fn json_ld(
    cited: &Cited,
    title: &str,
    url: &str,
    id: Option<&str>,
    modified: Option<&Date>,
    publisher: &str,
    archive: &str,
) -> String {
    let config = cited.config;
    let home = config.permalink(&config.language_prefix(cited.lang));
    let organisation = json!({ "@type": "Organization", "name": publisher });
    let mut ld = match id {
        Some(id) => json!({
            "@context": "https://schema.org",
            "@type": "ArchiveComponent",
            "name": title,
            "identifier": id,
            "url": url,
            "inLanguage": cited.lang,
            "isPartOf": { "@type": "Dataset", "name": archive, "url": home },
            "publisher": organisation,
        }),
        None => json!({
            "@context": "https://schema.org",
            "@type": "Dataset",
            "name": title,
            "description": config.description_in(cited.lang),
            "identifier": url,
            "url": url,
            "inLanguage": cited.lang,
            "publisher": organisation,
            "distribution": [
                {
                    "@type": "DataDownload",
                    "encodingFormat": "application/json",
                    "contentUrl": config.permalink("/data/cases.json"),
                },
                {
                    "@type": "DataDownload",
                    "encodingFormat": "text/csv",
                    "contentUrl": config.permalink("/data/cases.csv"),
                },
            ],
        }),
    };
    if let Some(d) = modified {
        ld["dateModified"] = json!(d.format("%Y-%m-%d").to_string());
    }
    if let Some(label) = &config.release_label {
        ld["version"] = json!(label);
    }
    if let Some(license) = &config.license {
        ld["license"] = json!(license.url);
    }
    // Inside a <script> element: `</` must not close it.
    serde_json::to_string(&ld)
        .expect("JSON-LD serialises")
        .replace("</", "<\\/")
}

/// What the BibTeX entry and the RIS record say: a case (with its `id`, in the `archive`) or
/// the archive itself.
struct Record<'a> {
    title: &'a str,
    archive: &'a str,
    publisher: &'a str,
    id: Option<&'a str>,
    release: Option<&'a str>,
    date: Option<&'a Date>,
    url: &'a str,
    lang: &'a str,
}

/// A BibTeX `@misc` entry under `key` (biblatex reads the same fields).
fn bibtex(f: &Record, key: &str) -> String {
    let mut fields = vec![
        // Braced twice: an organisation, not a person's family and given names.
        ("author", format!("{{{}}}", bib_escape(f.publisher))),
        ("title", format!("{{{}}}", bib_escape(f.title))),
    ];
    if let Some(id) = f.id {
        fields.push(("number", bib_escape(id)));
        fields.push(("howpublished", bib_escape(f.archive)));
    }
    fields.push(("organization", bib_escape(f.publisher)));
    fields.push(("publisher", bib_escape(f.publisher)));
    if let Some(release) = f.release {
        fields.push(("version", bib_escape(release)));
    }
    if let Some(d) = f.date {
        fields.push(("year", d.format("%Y").to_string()));
        fields.push(("month", d.format("%m").to_string()));
        fields.push(("date", d.format("%Y-%m-%d").to_string()));
    }
    fields.push(("url", f.url.to_string()));
    fields.push(("language", f.lang.to_string()));
    let mut out = format!("@misc{{{key},\n");
    for (name, value) in fields {
        out.push_str(&format!("  {name} = {{{value}}},\n"));
    }
    out.push_str("}\n");
    out
}

/// BibTeX's special characters, escaped (in a braced value).
fn bib_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            '{' | '}' | '%' | '&' | '$' | '#' | '_' => {
                out.push('\\');
                out.push(c);
            }
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// An RIS record of type `kind`: one `TAG  - value` line each, ending with `ER`.
fn ris(f: &Record, kind: &str) -> String {
    let one_line = |s: &str| s.replace(['\r', '\n'], " ");
    let mut lines = vec![
        ("TY", kind.to_string()),
        ("AU", one_line(f.publisher)),
        ("TI", one_line(f.title)),
    ];
    if f.id.is_some() {
        lines.push(("T2", one_line(f.archive)));
    }
    lines.push(("PB", one_line(f.publisher)));
    if let Some(id) = f.id {
        lines.push(("ID", one_line(id)));
        lines.push(("AN", one_line(id)));
    }
    if let Some(release) = f.release {
        lines.push(("ET", one_line(release)));
    }
    if let Some(d) = f.date {
        lines.push(("PY", d.format("%Y").to_string()));
        lines.push(("DA", d.format("%Y/%m/%d").to_string()));
    }
    lines.push(("UR", f.url.to_string()));
    lines.push(("LA", f.lang.to_string()));
    let mut out = String::new();
    for (tag, value) in lines {
        out.push_str(&format!("{tag}  - {value}\r\n"));
    }
    out.push_str("ER  - \r\n");
    out
}

/// A `data:` address holding `text` (UTF-8, in base64: a third larger, where percent-encoding
/// JSON more than doubles it).
fn data_url(media_type: &str, text: &str) -> String {
    use base64::Engine as _;
    let encoded = base64::engine::general_purpose::STANDARD.encode(text);
    format!("data:{media_type};charset=utf-8;base64,{encoded}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bibtex_escapes_its_special_characters_and_ris_keeps_one_line_per_tag() {
        assert_eq!(
            bib_escape("50% & {x}_#$~^\\"),
            "50\\% \\& \\{x\\}\\_\\#\\$\\textasciitilde{}\\textasciicircum{}\\textbackslash{}"
        );
        let record = ris(
            &Record {
                title: "Two\nlines",
                archive: "A",
                publisher: "P",
                id: None,
                release: None,
                date: None,
                url: "https://x.org/",
                lang: "en",
            },
            "GEN",
        );
        assert_eq!(
            record,
            "TY  - GEN\r\nAU  - P\r\nTI  - Two lines\r\nPB  - P\r\nUR  - https://x.org/\r\nLA  - en\r\nER  - \r\n"
        );
    }

    #[test]
    fn data_addresses_carry_the_text_in_base64() {
        assert_eq!(
            data_url("text/plain", "a b/é"),
            "data:text/plain;charset=utf-8;base64,YSBiL8Op"
        );
    }
}
