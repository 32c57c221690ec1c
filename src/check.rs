//! Checks over a rendered site: every internal link and anchor must lead somewhere.
//!
//! Runs on the in-memory rendering (root-relative links, before minification), collects
//! every problem, and reports them sorted, like a compiler.

use std::collections::{HashMap, HashSet};

use crate::error::Diagnostic;
use crate::render::Rendering;

/// Broken internal links and anchors of every page.
pub fn links(rendering: &Rendering) -> Vec<Diagnostic> {
    let files: HashSet<&str> = rendering.outputs.iter().map(|o| o.path.as_str()).collect();
    let ids: HashMap<&str, HashSet<&str>> = rendering
        .pages
        .iter()
        .map(|p| {
            (
                p.url_path.as_str(),
                attribute_values(&p.html, "id").collect(),
            )
        })
        .collect();
    let mut diags = Vec::new();
    for page in &rendering.pages {
        let mut seen = HashSet::new();
        for link in attribute_values(&page.html, "href").chain(attribute_values(&page.html, "src"))
        {
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
            if !files.contains(file.as_str()) {
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
    let link = decode_entities(link);
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
        return Some(link);
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

fn decode_entities(s: &str) -> String {
    s.replace("&amp;", "&")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
}

/// Decodes `%XX` escapes of a URL path (invalid escapes are kept as written).
pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Some(b) = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Values of `name="..."` attributes in HTML written with double quotes (as all of ours is).
fn attribute_values<'a>(html: &'a str, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    let needle = format!(" {name}=\"");
    let mut rest = html;
    std::iter::from_fn(move || {
        let i = rest.find(&needle)?;
        let start = i + needle.len();
        let end = rest[start..].find('"')? + start;
        let value = &rest[start..end];
        rest = &rest[end..];
        Some(value)
    })
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

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("a%20b"), "a b");
        assert_eq!(percent_decode("%D8%A7"), "ا");
    }
}
