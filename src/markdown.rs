//! Markdown to HTML (pulldown-cmark): tables, footnotes, strikethrough, heading ids, a table
//! of contents, summaries (`<!-- more -->`) and `@/path.md` internal links.
//!
//! Rendering is pure: it takes the text and a link resolver and returns HTML plus every
//! broken link as a located diagnostic, so the caller can report all of them at once.

use std::collections::HashSet;
use std::path::Path;

use pulldown_cmark::{CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use serde::Serialize;

use crate::error::{Diagnostic, line_col};

pub(crate) const SUMMARY_MARKER: &str = "<!-- more -->";

/// Between two footnote references in a row: empty, so the theme picks the mark (a comma,
/// or the Arabic comma in Arabic text).
const FOOTNOTE_SEPARATOR: &str = r#"<sup class="footnote-separator" aria-hidden="true"></sup>"#;

#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Rendered {
    pub(crate) html: String,
    /// HTML of everything before `<!-- more -->`, if the marker is present.
    pub(crate) summary: Option<String>,
    pub(crate) toc: Vec<TocEntry>,
    pub(crate) word_count: usize,
    /// The text without markup, blocks separated by spaces, for the search index.
    #[serde(skip)]
    pub(crate) text: String,
    /// Set on a stand-in for a page's markdown kept from the last build: its `html` and
    /// `text` are left out (empty), and this is the `key` of what they were.
    #[serde(skip)]
    pub(crate) stand_in_for: Option<[u64; 2]>,
}

impl Rendered {
    /// The HTML and summary, for a fingerprint: their bytes hashed as they are (in two
    /// halves: a JSON value holds no number past 64 bits).
    pub(crate) fn key(&self) -> [u64; 2] {
        if let Some(key) = self.stand_in_for {
            return key;
        }
        let mut h = crate::hashing::Hasher::default();
        h.text(&self.html);
        match &self.summary {
            Some(summary) => h.text(summary),
            None => h.number(u64::MAX),
        }
        let key = h.digest();
        [(key >> 64) as u64, key as u64]
    }

    /// Whether this is the whole of the markdown, not a stand-in.
    pub(crate) fn is_whole(&self) -> bool {
        self.stand_in_for.is_none()
    }
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct TocEntry {
    pub(crate) level: u8,
    pub(crate) id: String,
    pub(crate) title: String,
    pub(crate) children: Vec<TocEntry>,
}

const TABLE_SCROLL_OPEN: &str = "<div class=\"table-scroll\" tabindex=\"0\">\n";
const CODE_SCROLL_OPEN: &str = "<div class=\"code-scroll\" tabindex=\"0\">\n";

/// Table columns aligned in Markdown get a class instead of the `style` attribute
/// pulldown-cmark writes, so pages hold under a Content-Security-Policy without
/// `style-src 'unsafe-inline'`.
fn aligned_cells_as_classes(html: String) -> String {
    if !html.contains(" style=\"text-align: ") {
        return html;
    }
    html.replace(" style=\"text-align: left\"", " class=\"align-left\"")
        .replace(" style=\"text-align: center\"", " class=\"align-center\"")
        .replace(" style=\"text-align: right\"", " class=\"align-right\"")
}

/// Where a markdown text came from, so errors point into the right file and line.
pub(crate) struct Source<'a> {
    pub(crate) path: &'a Path,
    /// The file line on which the text starts.
    pub(crate) first_line: usize,
}

/// Renders `text`; `resolve` maps an `@/` target (without the fragment) to a URL path.
pub(crate) fn render(
    text: &str,
    source: &Source,
    resolve: &dyn Fn(&str) -> Option<String>,
    diags: &mut Vec<Diagnostic>,
) -> Rendered {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_SMART_PUNCTUATION;
    let mut events: Vec<Event> = Vec::new();
    let mut summary_at = None;
    let mut used_ids = HashSet::new();
    let mut headings: Vec<(u8, String, String)> = Vec::new();
    let mut heading_start: Option<usize> = None;
    let mut word_count = 0;
    let mut plain = String::with_capacity(text.len());

    for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
        match event {
            Event::Html(ref h) | Event::InlineHtml(ref h)
                if summary_at.is_none() && h.trim() == SUMMARY_MARKER =>
            {
                summary_at = Some(events.len());
            }
            Event::Start(Tag::Heading { .. }) => {
                heading_start = Some(events.len());
                events.push(event);
            }
            Event::End(TagEnd::Heading(level)) => {
                plain.push(' ');
                if let Some(start) = heading_start.take() {
                    let title = plain_text(&events[start + 1..]);
                    if let Event::Start(Tag::Heading { id, .. }) = &mut events[start] {
                        let wanted = match id {
                            Some(explicit) => explicit.to_string(),
                            None => slugify_heading(&title),
                        };
                        let unique = unique_id(&wanted, &mut used_ids);
                        *id = Some(CowStr::from(unique.clone()));
                        headings.push((level_number(level), unique, title));
                    }
                }
                events.push(event);
            }
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) if dest_url.starts_with("@/") => {
                let (target, fragment) = match dest_url[2..].split_once('#') {
                    Some((t, f)) => (t.to_string(), Some(f.to_string())),
                    None => (dest_url[2..].to_string(), None),
                };
                let url = match resolve(&target) {
                    Some(path) => match fragment {
                        Some(f) => format!("{path}#{f}"),
                        None => path,
                    },
                    None => {
                        let (line, column) = line_col(text, range.start);
                        diags.push(
                            Diagnostic::new(source.path, format!("broken internal link `{dest_url}`: no content file `content/{target}`"))
                                .at(line + source.first_line - 1, column)
                                .hint("internal links name a file below content/, e.g. `@/report/_index.md` or `@/authors/geoffrey-nice.md`"),
                        );
                        "#".to_string()
                    }
                };
                events.push(Event::Start(Tag::Link {
                    link_type,
                    dest_url: url.into(),
                    title,
                    id,
                }));
            }
            Event::Start(Tag::Image { ref dest_url, .. })
                if !dest_url.contains(':')
                    && !dest_url.starts_with('/')
                    && !dest_url.starts_with('#') =>
            {
                // A local image in Markdown would skip redaction and metadata stripping.
                let (line, column) = line_col(text, range.start);
                diags.push(
                    Diagnostic::new(source.path, format!("the Markdown image `{dest_url}` would be published without redaction or metadata removal"))
                        .at(line + source.first_line - 1, column)
                        .hint("list the file in [[photos]] in the front matter instead; the theme shows it after the text"),
                );
                events.push(event);
            }
            Event::Text(ref t) => {
                word_count += t.split_whitespace().count();
                plain.push_str(t);
                events.push(event);
            }
            Event::Code(ref t) => {
                plain.push_str(t);
                events.push(event);
            }
            // Notes cited together read as 1,2 rather than 12; the theme draws the mark.
            Event::FootnoteReference(_)
                if matches!(events.last(), Some(Event::FootnoteReference(_))) =>
            {
                events.push(Event::InlineHtml(CowStr::Borrowed(FOOTNOTE_SEPARATOR)));
                events.push(event);
            }
            // Tables and code blocks scroll sideways in a box of their own, which the keyboard
            // can reach (so a phone never scrolls the whole page, and no content is mouse-only).
            Event::Start(Tag::Table(_)) => {
                events.push(Event::Html(CowStr::Borrowed(TABLE_SCROLL_OPEN)));
                events.push(event);
            }
            Event::Start(Tag::CodeBlock(_)) => {
                events.push(Event::Html(CowStr::Borrowed(CODE_SCROLL_OPEN)));
                events.push(event);
            }
            Event::End(TagEnd::Table | TagEnd::CodeBlock) => {
                if !plain.ends_with(' ') {
                    plain.push(' ');
                }
                events.push(event);
                events.push(Event::Html(CowStr::Borrowed("</div>\n")));
            }
            Event::End(ref end)
                if !matches!(
                    end,
                    TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough | TagEnd::Link
                ) =>
            {
                if !plain.ends_with(' ') {
                    plain.push(' ');
                }
                events.push(event);
            }
            Event::SoftBreak | Event::HardBreak => {
                if !plain.ends_with(' ') {
                    plain.push(' ');
                }
                events.push(event);
            }
            other => events.push(other),
        }
    }

    let mut html = String::with_capacity(text.len() * 3 / 2);
    let summary = match summary_at {
        Some(at) => {
            pulldown_cmark::html::push_html(&mut html, events[..at].iter().cloned());
            let summary = html.clone();
            pulldown_cmark::html::push_html(&mut html, events[at..].iter().cloned());
            Some(summary)
        }
        None => {
            pulldown_cmark::html::push_html(&mut html, events.into_iter());
            None
        }
    };
    let html = aligned_cells_as_classes(html);
    let summary = summary.map(aligned_cells_as_classes);
    Rendered {
        html,
        summary,
        toc: nest(headings),
        word_count,
        text: plain.trim_end().to_string(),
        stand_in_for: None,
    }
}

fn level_number(level: HeadingLevel) -> u8 {
    level as u8
}

fn plain_text(events: &[Event]) -> String {
    let mut out = String::new();
    for e in events {
        if let Event::Text(t) | Event::Code(t) = e {
            out.push_str(t);
        }
    }
    out
}

/// Heading ids keep non-Latin scripts readable (Arabic headings stay Arabic), lowercase,
/// with spaces turned into hyphens and punctuation dropped.
pub(crate) fn slugify_heading(title: &str) -> String {
    let mut out = String::new();
    for c in title.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if (c.is_whitespace() || c == '-' || c == '_') && !out.ends_with('-') {
            out.push('-');
        }
    }
    let trimmed = out.trim_matches('-');
    if trimmed.is_empty() {
        "section".into()
    } else {
        trimmed.to_string()
    }
}

fn unique_id(wanted: &str, used: &mut HashSet<String>) -> String {
    let mut id = wanted.to_string();
    let mut n = 1;
    while !used.insert(id.clone()) {
        id = format!("{wanted}-{n}");
        n += 1;
    }
    id
}

/// Turns a flat list of headings into a tree by level.
fn nest(headings: Vec<(u8, String, String)>) -> Vec<TocEntry> {
    let mut root: Vec<TocEntry> = Vec::new();
    for (level, id, title) in headings {
        let entry = TocEntry {
            level,
            id,
            title,
            children: Vec::new(),
        };
        let mut siblings = &mut root;
        while siblings.last().is_some_and(|last| last.level < level) {
            siblings = &mut siblings.last_mut().expect("checked").children;
        }
        siblings.push(entry);
    }
    root
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md(text: &str) -> (Rendered, Vec<Diagnostic>) {
        let mut diags = Vec::new();
        let resolve = |t: &str| (t == "report/_index.md").then(|| "/report/".to_string());
        let r = render(
            text,
            &Source {
                path: Path::new("content/a.md"),
                first_line: 5,
            },
            &resolve,
            &mut diags,
        );
        (r, diags)
    }

    #[test]
    fn internal_links_resolve_with_fragments() {
        let (r, d) = md("See [the report](@/report/_index.md#findings).");
        assert!(d.is_empty());
        assert!(r.html.contains(r#"href="/report/#findings""#), "{}", r.html);
    }

    #[test]
    fn broken_internal_link_is_located() {
        let (_, d) = md("line one\n\nSee [x](@/nope.md).");
        assert_eq!(d.len(), 1);
        assert_eq!((d[0].line, d[0].column), (7, 5));
        assert!(d[0].message.contains("@/nope.md"));
    }

    #[test]
    fn headings_get_unique_ids_and_a_nested_toc() {
        let (r, _) = md("## Findings\n### Eye injuries\n## Findings\n## Custom {#mine}\n");
        assert!(r.html.contains(r#"<h2 id="findings">"#));
        assert!(r.html.contains(r#"<h2 id="findings-1">"#));
        assert!(r.html.contains(r#"<h2 id="mine">"#));
        assert_eq!(r.toc.len(), 3);
        assert_eq!(r.toc[0].children[0].id, "eye-injuries");
    }

    #[test]
    fn summary_stops_at_the_marker() {
        let (r, _) = md("First.\n\n<!-- more -->\n\nSecond.");
        assert_eq!(r.summary.as_deref(), Some("<p>First.</p>\n"));
        assert!(r.html.contains("Second."));
    }

    #[test]
    fn tables_footnotes_strikethrough() {
        let (r, _) = md("| a |\n|---|\n| b |\n\n~~x~~ y[^1]\n\n[^1]: note\n");
        assert!(r.html.contains("<table>"));
        assert!(r.html.contains("<del>x</del>"));
        assert!(r.html.contains("footnote"));
    }

    #[test]
    fn notes_cited_together_are_separated_and_single_notes_are_not() {
        let (r, _) = md("One.[^a][^b] Two.[^a]\n\n[^a]: A.\n\n[^b]: B.\n");
        assert_eq!(
            r.html.matches("footnote-separator").count(),
            1,
            "{}",
            r.html
        );
        assert!(
            r.html.contains(&format!(
                "</a></sup>{FOOTNOTE_SEPARATOR}<sup class=\"footnote-reference\">"
            )),
            "{}",
            r.html
        );
    }

    #[test]
    fn arabic_headings_keep_their_script() {
        assert_eq!(slugify_heading("النتائج الرئيسية"), "النتائج-الرئيسية");
    }
}
