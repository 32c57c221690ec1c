//! `casebook check`: everything a build would publish, checked before it is.
//!
//! Every internal link and anchor must lead somewhere (this module), and nothing may leak
//! what the photographs or their sources could reveal: originals, metadata, images larger
//! than configured, images without alt text (`audit`).
//!
//! Runs on the in-memory rendering (root-relative links, before minification), reads links
//! with an HTML tokenizer (any quoting style), collects every problem, and reports them
//! sorted, like a compiler.

use std::collections::{HashMap, HashSet};

use rayon::prelude::*;

mod audit;

use std::path::Path;

use crate::error::Diagnostic;
use crate::html::{PageLinks, page_links, percent_decode};
use crate::render::HtmlPage;
use crate::site::{Files, State};

/// Every problem of a build (and of the built output at `public`, if there is one), sorted.
pub(crate) fn site(built: &State, public: &Path) -> Vec<Diagnostic> {
    // `check` never signs, but a site with a public key publishes its releases signed: the
    // signature file its verification page links to is then there.
    let signed: &[&str] = if built.config.public_key.is_some() {
        &[crate::signing::SIGNATURE_FILE]
    } else {
        &[]
    };
    let mut problems = links(&built.files, signed, &built.pages);
    problems.extend(audit::site(built, public));
    problems.sort();
    problems.dedup();
    problems
}

/// Broken internal links and anchors of every page; `signed` are files a signed release adds.
fn links(files: &Files, signed: &[&str], pages: &[HtmlPage]) -> Vec<Diagnostic> {
    let read: Vec<PageLinks> = pages.par_iter().map(|p| page_links(&p.html)).collect();
    let ids: HashMap<&str, HashSet<&str>> = pages
        .iter()
        .zip(&read)
        .map(|(p, r)| {
            (
                p.url_path.as_str(),
                r.ids.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    let mut diags = Vec::new();
    for (page, read) in pages.iter().zip(&read) {
        let mut seen = HashSet::new();
        for link in &read.links {
            let link = link.as_str();
            if !seen.insert(link) {
                continue;
            }
            let Some(target) = resolve(&page.url_path, link) else {
                continue; // external, mailto:, data: ...
            };
            let (path, fragment) = match target.split_once('#') {
                Some((p, f)) => (p.to_string(), Some(f)),
                None => (target.clone(), None),
            };
            let path = path.split('?').next().unwrap_or_default().to_string();
            let file = crate::output::file_for_url(&path);
            if !files.contains_key(file.as_str()) && !signed.contains(&file.as_str()) {
                diags.push(
                    Diagnostic::new(&page.source, format!("broken link `{link}` on {}: nothing is published at {path}", page.url_path))
                        .hint("for links to content, write `@/path/to/file.md` so the build checks and resolves them"),
                );
                continue;
            }
            if let Some(fragment) = fragment.filter(|f| !f.is_empty()) {
                let decoded = percent_decode(fragment);
                let has = ids
                    .get(path.as_str())
                    .is_some_and(|set| set.contains(decoded.as_str()));
                if !has && ids.contains_key(path.as_str()) {
                    diags.push(
                        Diagnostic::new(&page.source, format!("broken anchor `{link}` on {}: {path} has no element with id `{decoded}`", page.url_path))
                            .hint("heading ids are the heading text in lowercase with spaces as hyphens"),
                    );
                }
            }
        }
    }
    diags.sort();
    diags.dedup();
    diags
}

/// The site path a link points to, or None for links that leave the site.
fn resolve(page_path: &str, link: &str) -> Option<String> {
    if link.starts_with("//")
        || link.contains("://")
        || link.starts_with("mailto:")
        || link.starts_with("data:")
        || link.starts_with("tel:")
    {
        return None;
    }
    if let Some(fragment) = link.strip_prefix('#') {
        return Some(format!("{page_path}#{fragment}"));
    }
    if link.starts_with('/') {
        return Some(link.to_string());
    }
    // Relative to the page's folder.
    let mut parts: Vec<&str> = page_path.split('/').filter(|s| !s.is_empty()).collect();
    if !page_path.ends_with('/') {
        parts.pop();
    }
    let (rel, suffix) = link.split_at(link.find(['#', '?']).unwrap_or(link.len()));
    let trailing = rel.ends_with('/') || rel.is_empty();
    for seg in rel.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    let mut out = format!("/{}", parts.join("/"));
    if trailing && !out.ends_with('/') {
        out.push('/');
    }
    Some(format!("{out}{suffix}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_links_resolve_against_the_page() {
        assert_eq!(resolve("/a/b/", "../c/").as_deref(), Some("/a/c/"));
        assert_eq!(resolve("/a/b/", "#x").as_deref(), Some("/a/b/#x"));
        assert_eq!(resolve("/a/", "https://x.org/"), None);
        assert_eq!(resolve("/a/", "/z/#q").as_deref(), Some("/z/#q"));
    }
}
