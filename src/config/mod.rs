//! Site configuration: `casebook.toml`.
//!
//! Parsed in two steps, like ripgrep's flags: `RawConfig` mirrors the file (serde,
//! `deny_unknown_fields` so typos are errors), then `resolve` validates it into the types the
//! rest of the program trusts. The generator knows nothing about the Caesar archive in code:
//! every case field comes from the case schema declared here.
//!
//! This module holds the site settings; `settings` the search and image settings, `schema`
//! the case schema, `translations` the `[translations.<lang>]` texts.

mod schema;
mod settings;
mod translations;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::error::{Diagnostic, Diagnostics, Error, Located, Result, toml_error};
use crate::locale::{self, Digits};
use crate::public_key::PublicKey;
use schema::RawCases;
pub(crate) use schema::{CaseSchema, FieldDef, FieldType, is_url_safe};
pub(crate) use settings::{ImageConfig, SearchConfig, SearchWeights, Sensitivity};
use settings::{RawImages, RawSearch};

pub(crate) const CONFIG_FILE: &str = "casebook.toml";

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
    #[serde(default)]
    signing: Option<RawSigning>,
    #[serde(default)]
    hosting: Option<RawHosting>,
    /// The terms the site's own text may be reused under.
    #[serde(default)]
    license: Option<Spanned<RawLicense>>,
    /// The organisation that publishes the archive, named in citations.
    #[serde(default)]
    publisher: Option<String>,
    /// Per language: which digits numbers and dates are written in (`ar = "arabic-indic"`).
    #[serde(default)]
    digits: BTreeMap<String, Spanned<String>>,
    /// Per language: the schema's labels in that language (`"branch.215" = "الفرع 215"`).
    #[serde(default)]
    translations: BTreeMap<String, Spanned<BTreeMap<String, Spanned<String>>>>,
    #[serde(default)]
    extra: toml::Table,
}

/// `license = { name = "CC BY 4.0", url = "https://creativecommons.org/licenses/by/4.0/" }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLicense {
    name: String,
    url: String,
}

/// `[signing]`: the public half of the key releases are signed with.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSigning {
    public_key: Spanned<String>,
    /// Root certificates of the time-stamp authorities that `verify` trusts.
    #[serde(default)]
    tsa_certs: Vec<PathBuf>,
}

/// `[hosting]`: the hosts whose own files the build writes.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHosting {
    hosts: Vec<Spanned<String>>,
}

/// A host whose configuration files a build can write (`[hosting] hosts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Host {
    /// `.nojekyll`, so that GitHub Pages publishes the files as they are.
    GithubPages,
    /// `_headers`: the recommended headers and long caching.
    Netlify,
    /// `_headers`, in the same form.
    CloudflarePages,
}

impl Host {
    const ALL: [(&'static str, Host); 3] = [
        ("github-pages", Host::GithubPages),
        ("netlify", Host::Netlify),
        ("cloudflare-pages", Host::CloudflarePages),
    ];
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
pub(crate) struct Config {
    pub(crate) root: PathBuf,
    pub(crate) title: String,
    pub(crate) description: String,
    /// Always ends with `/`.
    pub(crate) base_url: String,
    pub(crate) default_language: String,
    /// The default language first, then the others in the order given.
    pub(crate) languages: Vec<Language>,
    pub(crate) theme: String,
    pub(crate) paginate_by: usize,
    pub(crate) minify: bool,
    pub(crate) feed_limit: usize,
    pub(crate) cases: Option<CaseSchema>,
    pub(crate) images: ImageConfig,
    pub(crate) search: SearchConfig,
    /// The key releases are signed with (`[signing] public_key`), published on the site.
    pub(crate) public_key: Option<PublicKey>,
    /// Root certificates of the time-stamp authorities `verify` trusts (`[signing] tsa_certs`).
    pub(crate) tsa_certs: Vec<PathBuf>,
    /// The hosts whose files the build writes (`[hosting] hosts`).
    pub(crate) hosts: Vec<Host>,
    /// Digits per language; languages not listed use Latin digits.
    pub(crate) digits: BTreeMap<String, Digits>,
    /// The site's title and description in the other languages (`[translations.<lang>]`).
    pub(crate) site_texts: BTreeMap<String, translations::SiteTexts>,
    /// The terms the site's own text may be reused under (`license`), shown in every page's
    /// footer and declared in the feeds.
    pub(crate) license: Option<License>,
    /// The organisation that publishes the archive (`publisher`), named in citations; the
    /// site's title when it is not given.
    pub(crate) publisher: Option<String>,
    /// The label of the release being built (`build --sign KEY --release-label TEXT`), not
    /// read from the file: citations name it.
    pub(crate) release_label: Option<String>,
    pub(crate) extra: toml::Table,
}

/// A licence by name and the address of its terms.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct License {
    pub(crate) name: String,
    pub(crate) url: String,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Language {
    pub(crate) code: String,
    /// `ltr` or `rtl`.
    pub(crate) dir: &'static str,
}

impl Config {
    /// Reads `casebook.toml` under `root`.
    pub(crate) fn load(root: &Path) -> Result<Config> {
        let path = root.join(CONFIG_FILE);
        let text = crate::beneath::read_to_string(root, &path, 16 << 20).map_err(|e| {
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
    pub(crate) fn parse(text: &str, root: &Path, display_path: &Path) -> Result<Config> {
        let raw: RawConfig =
            toml::from_str(text).map_err(|e| Error::one(toml_error(display_path, text, &e)))?;
        resolve(raw, text, root, display_path)
    }

    /// Replaces `base_url` (from `--base-url`), with the same validation as the config key.
    pub(crate) fn set_base_url(&mut self, url: &str) -> Result<()> {
        self.base_url = normalize_base_url(url).map_err(|message| {
            Error::one(Diagnostic::new("--base-url", message).hint(BASE_URL_HINT))
        })?;
        Ok(())
    }

    /// The site's title in `lang`.
    pub(crate) fn title_in(&self, lang: &str) -> &str {
        self.site_texts.get(lang).map_or(&self.title, |t| &t.title)
    }

    /// The site's description in `lang`.
    pub(crate) fn description_in(&self, lang: &str) -> &str {
        self.site_texts
            .get(lang)
            .map_or(&self.description, |t| &t.description)
    }

    /// The publisher named in citations, in `lang` (`site.publisher` under
    /// `[translations.<lang>]`), or as written; the site's title in `lang` without one.
    pub(crate) fn publisher_in(&self, lang: &str) -> &str {
        let translated = self
            .site_texts
            .get(lang)
            .and_then(|t| t.publisher.as_deref());
        translated
            .or(self.publisher.as_deref())
            .unwrap_or_else(|| self.title_in(lang))
    }

    /// The digits numbers and dates are written in, in `lang`.
    pub(crate) fn digits(&self, lang: &str) -> Digits {
        self.digits.get(lang).copied().unwrap_or_default()
    }

    pub(crate) fn language(&self, code: &str) -> Option<&Language> {
        self.languages.iter().find(|l| l.code == code)
    }

    /// `/` for the default language, `/ar/` for the others.
    pub(crate) fn language_prefix(&self, lang: &str) -> String {
        if lang == self.default_language {
            "/".into()
        } else {
            format!("/{lang}/")
        }
    }

    /// The absolute URL of a root-relative site path (`/cases/` -> `https://x.org/sub/cases/`).
    pub(crate) fn permalink(&self, path: &str) -> String {
        format!("{}{}", self.base_url, path.trim_start_matches('/'))
    }

    /// The path part of `base_url`, always starting and ending with `/`.
    pub(crate) fn base_path(&self) -> String {
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
    let mut cases = raw.cases.map(|c| schema::resolve(c, file, &mut diags));
    let publisher = raw.publisher.filter(|p| !p.trim().is_empty());
    let site_texts = translations::resolve(
        raw.translations,
        translations::Site {
            title: &raw.title,
            description: &raw.description,
            publisher: publisher.as_deref(),
            default_language: &raw.default_language,
            languages: &languages,
        },
        cases.as_mut(),
        file,
        &mut diags,
    );
    let images = settings::resolve_images(raw.images, root, file, &mut diags);
    let search = settings::resolve_search(raw.search, cases.as_ref(), file, &mut diags);
    let tsa_certs = (raw.signing.iter())
        .flat_map(|s| s.tsa_certs.iter().map(|c| root.join(c)))
        .collect();
    let public_key = raw.signing.and_then(|s| {
        PublicKey::parse(s.public_key.get_ref())
            .map_err(|message| {
                diags.push(
                    file.at(s.public_key.span(), message)
                        .field("signing.public_key")
                        .hint("paste the base64 line of the casebook.pub file that `casebook keygen` wrote (it starts with RW)"),
                )
            })
            .ok()
    });

    let mut hosts = Vec::new();
    for name in raw.hosting.map(|h| h.hosts).unwrap_or_default() {
        match Host::ALL.iter().find(|(n, _)| n == name.get_ref()) {
            Some((_, host)) => hosts.push(*host),
            None => {
                let known: Vec<&str> = Host::ALL.iter().map(|(n, _)| *n).collect();
                diags.push(
                    file.at(name.span(), format!("unknown host `{}`", name.get_ref()))
                        .field("hosting.hosts")
                        .hint(format!("known hosts: {}", known.join(", "))),
                );
            }
        }
    }

    let license = raw.license.and_then(|l| {
        let span = l.span();
        let RawLicense { name, url } = l.into_inner();
        let hint = "write the licence's name and the address of its terms, e.g. license = { name = \"CC BY 4.0\", url = \"https://creativecommons.org/licenses/by/4.0/\" }";
        if name.trim().is_empty() {
            diags.push(file.at(span, "the licence has no name").field("license.name").hint(hint));
            return None;
        }
        let absolute = url.starts_with("https://") || url.starts_with("http://");
        if !absolute || url.contains(char::is_whitespace) {
            diags.push(
                file.at(span, format!("`{url}` is not an absolute http(s) address"))
                    .field("license.url")
                    .hint(hint),
            );
            return None;
        }
        Some(License { name, url })
    });

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
        public_key,
        tsa_certs,
        hosts,
        digits,
        site_texts,
        license,
        publisher,
        release_label: None,
        extra: raw.extra,
    })
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
