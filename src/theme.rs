//! The theme: Tera templates, static files and UI strings (`i18n/<lang>.toml`).
//!
//! The default theme is compiled into the binary, so a site made by `casebook init` builds
//! without copying it; a `themes/<name>/` folder in the site replaces it, and the site's own
//! `templates/`, `static/` and `i18n/` override single files on top.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use include_dir::{Dir, include_dir};
use tera::Tera;

use crate::config::Config;
use crate::error::{Diagnostic, Diagnostics, Error, Result};
use crate::output::Copied;

static DEFAULT_THEME: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/themes/default");

/// A file of the theme or site, with the path it is reported under.
struct ThemeFile {
    rel: String,
    display: PathBuf,
    body: Body,
}

/// What a theme file holds: its bytes (templates, strings, the built-in theme), or where it
/// is (a static file of a folder, published from disk and never held whole).
enum Body {
    Bytes(Vec<u8>),
    Disk(PathBuf),
}

/// A static file of the theme or site.
#[derive(Debug)]
pub(crate) enum StaticFile {
    /// The built-in theme's, compiled in.
    Bytes(Vec<u8>),
    /// A file of a folder of the site, hashed when the theme was loaded.
    Disk(Copied),
}

/// The most casebook reads of one template or string file.
const TEXT_LIMIT: u64 = 64 << 20;

pub(crate) struct Theme {
    pub(crate) tera: Tera,
    /// Template name -> source, for working out which pages a template edit affects.
    pub(crate) templates: BTreeMap<String, String>,
    /// Language -> key -> text.
    pub(crate) strings: BTreeMap<String, BTreeMap<String, String>>,
    /// Output path -> file, theme files first, overridden by the site's `static/`.
    pub(crate) static_files: BTreeMap<String, StaticFile>,
    /// Symbolic links in the theme's and the site's folders: left out, and named.
    pub(crate) warnings: Vec<Diagnostic>,
}

impl Theme {
    pub(crate) fn load(config: &Config) -> Result<Theme> {
        let mut diags = Diagnostics::default();
        let mut links = Vec::new();
        let theme_dir = config.root.join("themes").join(&config.theme);
        let theme_files = if theme_dir.is_dir() {
            read_tree(
                &theme_dir,
                &Path::new("themes").join(&config.theme),
                &mut links,
            )?
        } else if config.theme == "default" {
            embedded_files()
        } else {
            return Err(Error::one(
                Diagnostic::new(
                    "casebook.toml",
                    format!(
                        "theme `{}` not found at {}",
                        config.theme,
                        theme_dir.display()
                    ),
                )
                .field("theme")
                .hint("use theme = \"default\" (built in), or put the theme in themes/<name>/"),
            ));
        };
        let mut site_files = |dir: &str| -> Result<Vec<ThemeFile>> {
            let path = config.root.join(dir);
            if path.is_dir() {
                Ok(read_tree(&path, Path::new(dir), &mut links)?
                    .into_iter()
                    .map(|mut f| {
                        f.rel = format!("{dir}/{}", f.rel);
                        f
                    })
                    .collect())
            } else {
                Ok(Vec::new())
            }
        };
        let site_templates = site_files("templates")?;
        let site_static = site_files("static")?;
        let site_i18n = site_files("i18n")?;
        // Every file read from the site's folders must check out on every common system.
        let on_disk = if theme_dir.is_dir() {
            &theme_files[..]
        } else {
            &[]
        };
        let names: Vec<String> = on_disk
            .iter()
            .chain(&site_templates)
            .chain(&site_static)
            .chain(&site_i18n)
            .map(|f| f.display.to_string_lossy().into_owned())
            .collect();
        diags.extend(crate::output::unportable_sources(
            names.iter().map(String::as_str),
        ));

        // Templates: theme first, then the site's (same name wins).
        let mut templates: BTreeMap<String, (PathBuf, String)> = BTreeMap::new();
        let mut strings_files: BTreeMap<String, Vec<(PathBuf, String)>> = BTreeMap::new();
        let mut static_files = BTreeMap::new();
        for f in theme_files
            .into_iter()
            .chain(site_templates)
            .chain(site_static)
            .chain(site_i18n)
        {
            let bytes = match f.body {
                Body::Disk(file) if f.rel.starts_with("static/") => {
                    match Copied::of(&config.root, &file) {
                        Ok(c) => {
                            static_files.insert(f.rel["static/".len()..].to_string(), StaticFile::Disk(c));
                        }
                        Err(e) => diags.push(
                            Diagnostic::new(&f.display, format!("cannot read it: {}", io_cause(&e)))
                                .hint("put the file itself here, and keep it unchanged while the site builds"),
                        ),
                    }
                    continue;
                }
                Body::Disk(file) => match crate::beneath::read(&config.root, &file, TEXT_LIMIT) {
                    Ok(bytes) => bytes,
                    Err(e) => {
                        diags.push(Diagnostic::new(&f.display, format!("cannot read it: {e}")));
                        continue;
                    }
                },
                Body::Bytes(bytes) => bytes,
            };
            if let Some(name) = f.rel.strip_prefix("templates/") {
                match String::from_utf8(bytes) {
                    Ok(text) => {
                        templates.insert(name.to_string(), (f.display, text));
                    }
                    Err(_) => diags.push(Diagnostic::new(&f.display, "template is not UTF-8 text")),
                }
            } else if let Some(name) = f.rel.strip_prefix("static/") {
                static_files.insert(name.to_string(), StaticFile::Bytes(bytes));
            } else if let Some(name) = f.rel.strip_prefix("i18n/") {
                if let Some(lang) = name.strip_suffix(".toml") {
                    strings_files
                        .entry(lang.to_string())
                        .or_default()
                        .push((f.display, String::from_utf8_lossy(&bytes).into_owned()));
                }
            }
        }

        let mut tera = Tera::new();
        tera.autoescape_on([".html", ".xml"]);
        // `{{ n | digits }}`: a number or date in the page language's digits (`[digits]`).
        tera.register_filter(
            "digits",
            |value: tera::Value, _: tera::Kwargs, state: &tera::State| -> String {
                let text = value
                    .as_str()
                    .map_or_else(|| value.to_string(), str::to_string);
                match state.get::<String>("digits") {
                    Ok(Some(style)) => crate::locale::Digits::parse(&style)
                        .unwrap_or_default()
                        .apply(&text),
                    _ => text,
                }
            },
        );
        crate::charts::register(&mut tera);
        let raw = templates
            .iter()
            .map(|(name, (_, text))| (name.as_str(), text.as_str()));
        if let Err(e) = tera.add_raw_templates(raw) {
            // Tera reports `--> name:line:col`; name the file the publisher edits.
            let message = error_chain(&e);
            let display = templates
                .iter()
                .find(|(name, _)| message.contains(&format!("--> {name}:")))
                .map_or_else(|| PathBuf::from("templates"), |(_, (d, _))| d.clone());
            diags.push(
                Diagnostic::new(display, format!("template error: {message}"))
                    .hint("check the Tera syntax near the reported position"),
            );
        }
        let strings = load_strings(config, strings_files, &mut diags);
        diags.finish(Theme {
            tera,
            templates: templates
                .into_iter()
                .map(|(name, (_, text))| (name, text))
                .collect(),
            strings,
            static_files,
            warnings: links
                .into_iter()
                .map(|link| {
                    Diagnostic::new(link, "a symbolic link: left out of the site").hint(
                        "casebook never follows links in the site's folders (one could publish any file of this machine): put the file itself here",
                    )
                })
                .collect(),
        })
    }
}

impl Theme {
    /// The templates `name` is built from: itself and, transitively, every template it
    /// extends, includes or imports.
    pub(crate) fn template_closure(&self, name: &str) -> std::collections::BTreeSet<String> {
        let mut seen = std::collections::BTreeSet::new();
        let mut todo = vec![name.to_string()];
        while let Some(next) = todo.pop() {
            let Some(source) = self.templates.get(&next) else {
                continue;
            };
            if !seen.insert(next) {
                continue;
            }
            todo.extend(referenced_templates(source));
        }
        seen
    }
}

/// Template names in `{% extends/include/import "name" %}` tags.
fn referenced_templates(source: &str) -> Vec<String> {
    let mut out = Vec::new();
    for tag in source.split("{%").skip(1) {
        let tag = tag.split("%}").next().unwrap_or_default();
        let mut words = tag.trim_start_matches('-').split_whitespace();
        if !matches!(words.next(), Some("extends" | "include" | "import")) {
            continue;
        }
        // Every quoted string in the tag: `include ["a.html", "b.html"]` names several.
        let mut rest = tag;
        while let Some(start) = rest.find(['"', '\'']) {
            let quote = rest.as_bytes()[start] as char;
            let after = &rest[start + 1..];
            let Some(end) = after.find(quote) else { break };
            out.push(after[..end].to_string());
            rest = &after[end + 1..];
        }
    }
    out
}

/// Tera errors nest their causes; publishers need all of them on one line.
pub(crate) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    out
}

/// What the operating system said, without the path (the diagnostic names the file).
fn io_cause(e: &Error) -> String {
    match e {
        Error::Io { source, .. } => source.to_string(),
        other => other.to_string(),
    }
}

fn embedded_files() -> Vec<ThemeFile> {
    fn walk(dir: &'static Dir<'static>, out: &mut Vec<ThemeFile>) {
        for f in dir.files() {
            let rel = f.path().to_string_lossy().replace('\\', "/");
            out.push(ThemeFile {
                display: Path::new("themes/default (built in)").join(&rel),
                rel,
                body: Body::Bytes(f.contents().to_vec()),
            });
        }
        for d in dir.dirs() {
            walk(d, out);
        }
    }
    let mut out = Vec::new();
    walk(&DEFAULT_THEME, &mut out);
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    out
}

/// The files below `dir`, hidden ones left out; symbolic links are never followed, and
/// are added to `links` (as `display_root/...`). Files are only listed here: they are
/// read later, beneath `root`, so a file swapped for a link meanwhile is never read.
fn read_tree(dir: &Path, display_root: &Path, links: &mut Vec<PathBuf>) -> Result<Vec<ThemeFile>> {
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| Error::io(dir, e.into()))?;
        let rel_path = entry.path().strip_prefix(dir).expect("below root");
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        if entry.path_is_symlink() {
            links.push(display_root.join(rel_path));
            continue;
        }
        if !entry.file_type().is_file() {
            continue;
        }
        let rel = rel_path
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        out.push(ThemeFile {
            display: display_root.join(rel_path),
            rel,
            body: Body::Disk(entry.path().to_path_buf()),
        });
    }
    Ok(out)
}

/// Merges each language's string files and checks that every key of the default language
/// exists in every other: a missing key would silently show the wrong language.
fn load_strings(
    config: &Config,
    files: BTreeMap<String, Vec<(PathBuf, String)>>,
    diags: &mut Diagnostics,
) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut strings: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut last_file: BTreeMap<String, PathBuf> = BTreeMap::new();
    for (lang, sources) in files {
        let merged = strings.entry(lang.clone()).or_default();
        for (path, text) in sources {
            match toml::from_str::<BTreeMap<String, String>>(&text) {
                Ok(table) => merged.extend(table),
                Err(e) => diags.push(crate::error::toml_error(&path, &text, &e)),
            }
            last_file.insert(lang.clone(), path);
        }
    }
    let default = &config.default_language;
    let Some(reference) = strings.get(default).cloned() else {
        diags.push(
            Diagnostic::new(
                format!("themes/{}/i18n/{default}.toml", config.theme),
                "the UI strings of the default language are missing",
            )
            .hint("create the file, or copy it from the default theme"),
        );
        return strings;
    };
    for lang in config.languages.iter().skip(1) {
        let Some(table) = strings.get(&lang.code) else {
            diags.push(
                Diagnostic::new(
                    format!("i18n/{}.toml", lang.code),
                    format!("no UI strings for language `{}`", lang.code),
                )
                .hint(format!(
                    "create i18n/{}.toml with a translation of every key in the {default} file",
                    lang.code
                )),
            );
            continue;
        };
        let file = last_file.get(&lang.code).cloned().unwrap_or_default();
        for key in reference.keys().filter(|k| !table.contains_key(*k)) {
            diags.push(
                Diagnostic::new(
                    &file,
                    format!("missing UI string `{key}` for language `{}`", lang.code),
                )
                .field(key.clone())
                .hint(format!(
                    "add `{key} = \"...\"` (the {default} text is \"{}\")",
                    reference[key]
                )),
            );
        }
    }
    strings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_references_cover_extends_include_and_import() {
        let source = r#"{% extends "base.html" %}{%- include "partials/a.html" -%}
{% import 'macros.html' as m %}{% include ["x.html", "y.html"] %}{{ "not.html" }}
{% if x %}{% include "z.html" ignore missing %}{% endif %}"#;
        assert_eq!(
            referenced_templates(source),
            [
                "base.html",
                "partials/a.html",
                "macros.html",
                "x.html",
                "y.html",
                "z.html"
            ]
        );
    }

    #[test]
    fn a_template_closure_follows_references_transitively() {
        let theme = Theme {
            warnings: Vec::new(),
            tera: Tera::new(),
            templates: [
                ("case.html", r#"{% extends "base.html" %}"#),
                ("base.html", r#"{% include "partials/nav.html" %}"#),
                ("partials/nav.html", "nav"),
                ("page.html", "alone"),
            ]
            .into_iter()
            .map(|(n, s)| (n.to_string(), s.to_string()))
            .collect(),
            strings: BTreeMap::new(),
            static_files: BTreeMap::new(),
        };
        let closure: Vec<String> = theme.template_closure("case.html").into_iter().collect();
        assert_eq!(closure, ["base.html", "case.html", "partials/nav.html"]);
        assert_eq!(theme.template_closure("page.html").len(), 1);
    }
}
