//! Machine-readable outputs: `sitemap.xml`, `robots.txt` and one Atom feed per language.
//!
//! Written directly rather than through templates: their shape is fixed by standards, and
//! every URL in them must be absolute (built from `base_url`).

use crate::config::Config;
use crate::content::Corpus;
use crate::html::{self, LinkMode, escape};
use crate::markdown::Rendered;
use crate::output::Output;

/// Every HTML page except the 404 pages, sorted by URL.
pub(super) fn sitemap(config: &Config, corpus: &Corpus, url_paths: &[String]) -> Option<Output> {
    let mut lastmod = std::collections::HashMap::new();
    for m in corpus.metas() {
        if let Some(d) = m.updated.or(m.date) {
            lastmod.insert(m.path.as_str(), d.format("%Y-%m-%d").to_string());
        }
    }
    // Tombstones stay reachable at their old addresses but are not offered to crawlers.
    let tombstones: std::collections::HashSet<&str> = corpus
        .withdrawn
        .iter()
        .map(|p| p.meta.path.as_str())
        .collect();
    let mut urls: Vec<&str> = url_paths
        .iter()
        .map(String::as_str)
        .filter(|p| !p.ends_with("/404.html") && !tombstones.contains(p))
        .collect();
    urls.sort();
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for url in urls {
        xml.push_str("  <url>\n    <loc>");
        xml.push_str(&escape(&config.permalink(url)));
        xml.push_str("</loc>\n");
        if let Some(d) = lastmod.get(url) {
            xml.push_str(&format!("    <lastmod>{d}</lastmod>\n"));
        }
        xml.push_str("  </url>\n");
    }
    xml.push_str("</urlset>\n");
    Some(Output::bytes("sitemap.xml", xml))
}

pub(super) fn robots(config: &Config) -> Output {
    Output::bytes(
        "robots.txt",
        format!(
            "User-agent: *\nAllow: /\nSitemap: {}\n",
            config.permalink("/sitemap.xml")
        ),
    )
}

/// One Atom feed per language: dated pages, newest first, at most `feed_limit`.
pub(super) fn atom(
    config: &Config,
    corpus: &Corpus,
    rendered: &[std::sync::Arc<Rendered>],
) -> Vec<Output> {
    let mut out = Vec::new();
    for lang in &config.languages {
        let mut dated: Vec<usize> = (0..corpus.pages.len())
            .filter(|&i| {
                corpus.pages[i].meta.lang == lang.code && corpus.pages[i].meta.date.is_some()
            })
            .collect();
        dated.sort_by(|&a, &b| {
            let (ma, mb) = (&corpus.pages[a].meta, &corpus.pages[b].meta);
            mb.date.cmp(&ma.date).then_with(|| ma.path.cmp(&mb.path))
        });
        dated.truncate(config.feed_limit);
        let prefix = config.language_prefix(&lang.code);
        let feed_url = config.permalink(&format!("{prefix}atom.xml"));
        let updated = dated
            .iter()
            .filter_map(|&i| {
                let m = &corpus.pages[i].meta;
                m.updated.or(m.date)
            })
            .max()
            .map_or_else(
                || "1970-01-01T00:00:00+00:00".to_string(),
                |d| d.to_rfc3339(),
            );
        let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        xml.push_str(&format!(
            "<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"{}\">\n  <title>{}</title>\n  <link rel=\"self\" type=\"application/atom+xml\" href=\"{}\"/>\n  <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>\n  <id>{}</id>\n  <updated>{updated}</updated>\n  <generator>casebook</generator>\n",
            lang.code,
            escape(config.title_in(&lang.code)),
            escape(&feed_url),
            escape(&config.permalink(&prefix)),
            escape(&feed_url),
        ));
        // The licence of the site's text (RFC 4946's link, and Atom's own `rights`).
        if let Some(license) = &config.license {
            xml.push_str(&format!(
                "  <link rel=\"license\" href=\"{}\"/>\n  <rights>{}</rights>\n",
                escape(&license.url),
                escape(&license.name),
            ));
        }
        for &i in &dated {
            let m = &corpus.pages[i].meta;
            let url = config.permalink(&m.path);
            let date = m.date.map(|d| d.to_rfc3339()).unwrap_or_default();
            let updated = m.updated.map_or_else(|| date.clone(), |d| d.to_rfc3339());
            let summary = rendered[i]
                .summary
                .as_deref()
                .map(str::to_string)
                .or_else(|| m.description.clone())
                .unwrap_or_default();
            xml.push_str(&format!(
                "  <entry xml:lang=\"{}\">\n    <title>{}</title>\n    <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>\n    <id>{}</id>\n    <published>{date}</published>\n    <updated>{updated}</updated>\n    <summary type=\"html\">{}</summary>\n  </entry>\n",
                m.lang,
                escape(&m.title),
                escape(&url),
                escape(&url),
                escape(&absolute_links(config, &summary)),
            ));
        }
        xml.push_str("</feed>\n");
        out.push(Output::bytes(
            format!("{}atom.xml", prefix.trim_start_matches('/')),
            xml,
        ));
    }
    out
}

/// Feed readers show summaries out of the site's context: links must be absolute.
fn absolute_links(config: &Config, html: &str) -> String {
    html::rewrite_links(html, "/", LinkMode::Absolute(&config.base_url))
}
