//! HTML as text: escaping, the site's links (rewritten and extracted) and minification.
//!
//! Links are found by a real HTML tokenizer (lol_html), not by searching for `href="`, so a
//! theme may quote attributes with `'`, `"` or not at all, and text inside `<script>`,
//! `<pre>` or comments is never mistaken for a link. Templates and markdown write
//! root-relative links (`/cases/`); `rewrite_links` makes each relative to its page
//! (`../../cases/`), so one build works at a domain root, under any sub-path and, in
//! portable mode, straight from disk (`../../cases/index.html`).

use std::borrow::Cow;
use std::cell::RefCell;
use std::ops::Range;
use std::sync::LazyLock;

use lol_html::html_content::Element;
use lol_html::{ElementContentHandlers, HandlerResult, HtmlRewriter, Selector, Settings, element};

/// Escapes text for HTML and XML: content and attribute values in either quote style.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// Decodes `%XX` escapes of a URL path (invalid escapes are kept as written).
pub fn percent_decode(s: &str) -> String {
    String::from_utf8_lossy(&percent_decode_bytes(s.as_bytes())).into_owned()
}

/// Decodes `%XX` escapes (two hex digits; anything else is kept as written), byte for byte.
pub(crate) fn percent_decode_bytes(bytes: &[u8]) -> Vec<u8> {
    let hex_digit = |b: u8| (b as char).to_digit(16);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(high), Some(low)) = (hex_digit(bytes[i + 1]), hex_digit(bytes[i + 2])) {
                out.push((high * 16 + low) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

/// A `/`-separated path as a URL path: every byte but the unreserved ones (RFC 3986) and
/// `/` percent-encoded.
pub(crate) fn percent_encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The common character references an attribute value may carry, decoded.
pub(crate) fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    s.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&apos;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// How root-relative links in a page are rewritten.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LinkMode<'a> {
    /// Relative to the page: works at any host path.
    Relative,
    /// Relative, and directory links name `index.html`: works from `file://`.
    Portable,
    /// Prefixed with `base` (the site's base path or its whole base URL); for pages read at
    /// unknown URLs (404.html) or outside the site (feed summaries).
    Absolute(&'a str),
}

/// Attributes whose root-relative values are site links.
const LINK_ATTRIBUTES: &[&str] = &["href", "src", "action", "poster", "data-root", "srcset"];
/// The elements whose attributes can hold a URL. Selecting by element name lets the
/// tokenizer skip every other tag without reading its attributes: twice as fast as
/// selecting by attribute, which at tens of thousands of pages is most of the cost.
const LINK_ELEMENTS: &str = "a, area, base, link, img, source, script, iframe, embed, \
    track, audio, video, input, form, frame, image, use";
/// `data-root` (the site's root, for scripts) may stand on any element: pages that have
/// one are read with this selector too.
const DATA_ROOT: &str = "[data-root]";

/// The selectors, parsed once: parsing them for each of tens of thousands of pages costs
/// more than it should.
static LINK_SELECTOR: LazyLock<Selector> =
    LazyLock::new(|| LINK_ELEMENTS.parse().expect("a valid selector"));
static LINK_OR_DATA_ROOT_SELECTOR: LazyLock<Selector> = LazyLock::new(|| {
    format!("{LINK_ELEMENTS}, {DATA_ROOT}")
        .parse()
        .expect("a valid selector")
});

/// Whether `html` may carry a `data-root` attribute (names are case-insensitive).
fn may_have_data_root(html: &str) -> bool {
    let bytes = html.as_bytes();
    bytes
        .windows(9)
        .any(|w| (w[0] | 0x20) == b'd' && w.eq_ignore_ascii_case(b"data-root"))
}

/// The link attribute whose value starts at byte `value_start` of `html`, read back from the
/// source (`name="`, `name='`, `name=` with optional spaces around `=`), if it is one.
fn attribute_name_before(html: &str, value_start: usize) -> Option<&'static str> {
    let before = &html[..value_start];
    let before = before.strip_suffix(['"', '\'']).unwrap_or(before);
    let before = before.trim_end().strip_suffix('=')?.trim_end();
    let start = before
        .rfind(|c: char| c.is_whitespace() || c == '<' || c == '"' || c == '\'' || c == '/')
        .map_or(0, |i| i + 1);
    let name = &before[start..];
    LINK_ATTRIBUTES
        .iter()
        .copied()
        .find(|a| a.eq_ignore_ascii_case(name))
}

/// Rewrites every root-relative site link of a page served at `url_path`, whatever the
/// attribute's quoting. Only the link values change: the tokenizer says where each value
/// stands, and everything around it is kept byte for byte (an unquoted value gains double
/// quotes only if the new value needs them). HTML the tokenizer cannot read is returned as it was.
pub(crate) fn rewrite_links(html: &str, url_path: &str, mode: LinkMode) -> String {
    apply_link_edits(html, &link_edits(html, url_path, mode)).unwrap_or_else(|| html.to_string())
}

/// One link value to replace: its byte range in the page and the new value.
pub(crate) type LinkEdit = (Range<usize>, String);

/// What `rewrite_links` changes in a page, in order; none when the tokenizer cannot read it.
pub(crate) fn link_edits(html: &str, url_path: &str, mode: LinkMode) -> Vec<LinkEdit> {
    let page_dir: Vec<&str> = url_path
        .rsplit_once('/')
        .map_or("", |(dir, _)| dir)
        .split('/')
        .filter(|s| !s.is_empty())
        .collect();
    let edits: RefCell<Vec<(Range<usize>, String)>> = RefCell::new(Vec::new());
    let find = |el: &mut Element| -> HandlerResult {
        for attr in el.attributes() {
            let Some(range) = attr.value_source_location().map(|l| l.bytes()) else {
                continue;
            };
            // Named from the source text before the value: no allocation per attribute,
            // which matters at tens of thousands of pages.
            let Some(name) = attribute_name_before(html, range.start) else {
                continue;
            };
            let value = &html[range.clone()];
            let new = if name == "srcset" {
                rewrite_srcset(value, &page_dir, mode)
            } else if is_site_link(value) {
                Some(rewrite_one(value, &page_dir, mode))
            } else {
                None
            };
            if let Some(new) = new {
                edits.borrow_mut().push((range, new));
            }
        }
        Ok(())
    };
    let selector: &Selector = if may_have_data_root(html) {
        &LINK_OR_DATA_ROOT_SELECTOR
    } else {
        &LINK_SELECTOR
    };
    let handler = (
        Cow::Borrowed(selector),
        ElementContentHandlers::default().element(find),
    );
    if tokenize(html, handler).is_err() {
        return Vec::new();
    }
    let mut edits = edits.into_inner();
    edits.sort_by_key(|(range, _)| range.start);
    edits
}

/// `html` with `edits` made, each value in its attribute's own quoting; `None` if an edit
/// does not fit the page (ranges out of order, out of bounds or inside a character).
pub(crate) fn apply_link_edits(html: &str, edits: &[LinkEdit]) -> Option<String> {
    let mut out = String::with_capacity(html.len() + html.len() / 16);
    let mut done = 0;
    for (range, new) in edits {
        if range.start < done
            || range.end < range.start
            || !html.is_char_boundary(range.start)
            || !html.is_char_boundary(range.end)
        {
            return None;
        }
        let range = range.clone();
        let quote = html.as_bytes()[..range.start].last().copied();
        out.push_str(&html[done..range.start]);
        match quote {
            Some(b'"') => out.push_str(&new.replace('"', "&quot;")),
            Some(b'\'') => out.push_str(&new.replace('\'', "&#39;")),
            // Unquoted stays unquoted while the value allows it (as minified HTML has it).
            _ if !new.is_empty() && !new.contains(UNQUOTABLE) => out.push_str(new),
            _ => {
                out.push('"');
                out.push_str(&new.replace('"', "&quot;"));
                out.push('"');
            }
        }
        done = range.end;
    }
    out.push_str(&html[done..]);
    Some(out)
}

/// What an unquoted attribute value cannot contain.
const UNQUOTABLE: &[char] = &[' ', '\t', '\n', '\r', '\x0c', '"', '\'', '=', '<', '>', '`'];

/// Runs the tokenizer over `html` with one element handler, discarding its output.
/// Not strict: markup whose parsing browsers disagree on is read the common way instead
/// of refused.
fn tokenize<'h>(
    html: &str,
    handler: (Cow<'static, Selector>, ElementContentHandlers<'h>),
) -> Result<(), lol_html::errors::RewritingError> {
    let settings = Settings::new()
        .append_element_content_handler(handler)
        .with_strict(false);
    let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
    rewriter.write(html.as_bytes())?;
    rewriter.end()
}

/// A root-relative link: `/x`, not `//host/x`.
fn is_site_link(value: &str) -> bool {
    value.starts_with('/') && !value.starts_with("//")
}

/// `url 400w, url 1200w`: each candidate's URL is a link. Only the URLs change; commas and
/// spaces stay as written.
fn rewrite_srcset(value: &str, page_dir: &[&str], mode: LinkMode) -> Option<String> {
    let mut out = String::with_capacity(value.len() + 16);
    let mut changed = false;
    for (i, candidate) in value.split(',').enumerate() {
        if i > 0 {
            out.push(',');
        }
        let start = candidate.len() - candidate.trim_start().len();
        let rest = &candidate[start..];
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let url = &rest[..end];
        out.push_str(&candidate[..start]);
        if is_site_link(url) {
            out.push_str(&rewrite_one(url, page_dir, mode));
            changed = true;
        } else {
            out.push_str(url);
        }
        out.push_str(&rest[end..]);
    }
    changed.then_some(out)
}

/// One root-relative link, made relative to the folder `page_dir` (its segments).
fn rewrite_one(value: &str, page_dir: &[&str], mode: LinkMode) -> String {
    let split = value.find(['#', '?']).unwrap_or(value.len());
    let (path, suffix) = value.split_at(split);
    let path = path.trim_start_matches('/');
    if let LinkMode::Absolute(base) = mode {
        return format!("{base}{path}{suffix}");
    }
    // Shortest relative path: climb out of what the two paths do not share.
    let (target_dir, file) = path.rsplit_once('/').unwrap_or(("", path));
    let target: Vec<&str> = target_dir.split('/').filter(|s| !s.is_empty()).collect();
    let common = page_dir
        .iter()
        .zip(&target)
        .take_while(|(a, b)| a == b)
        .count();
    let mut rel = "../".repeat(page_dir.len() - common);
    for seg in &target[common..] {
        rel.push_str(seg);
        rel.push('/');
    }
    rel.push_str(file);
    if mode == LinkMode::Portable && file.is_empty() {
        rel.push_str("index.html");
    }
    // `a:b` would read as a URL scheme (`javascript:`, `mailto:`), not as a path, and URL
    // parsers strip leading spaces and control characters.
    let first = rel.split('/').next().unwrap_or_default();
    let stripped = rel.starts_with(|c: char| c.is_ascii_whitespace() || c.is_ascii_control());
    if rel.is_empty() || first.contains(':') || stripped {
        rel.insert_str(0, "./");
    }
    format!("{rel}{suffix}")
}

/// What a page links to and offers to be linked to, read by the tokenizer.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct PageLinks {
    /// Every `href` and `src` value, decoded, in document order.
    pub(crate) links: Vec<String>,
    /// Every `id` (and `<a name>`), decoded.
    pub(crate) ids: Vec<String>,
    /// How many `<img>` elements have no `alt` attribute.
    pub(crate) images_without_alt: usize,
}

/// Reads the links, ids and images of a page. HTML the tokenizer cannot read yields what
/// was read before the fault.
pub(crate) fn page_links(html: &str) -> PageLinks {
    let found = RefCell::new(PageLinks::default());
    let read = |el: &mut Element| -> HandlerResult {
        let mut found = found.borrow_mut();
        for attr in el.attributes() {
            match attr.name().as_str() {
                "href" | "src" => found.links.push(decode_entities(&attr.value())),
                "id" => found.ids.push(decode_entities(&attr.value())),
                "name" if el.tag_name() == "a" => found.ids.push(decode_entities(&attr.value())),
                _ => {}
            }
        }
        if el.tag_name() == "img" && !el.has_attribute("alt") {
            found.images_without_alt += 1;
        }
        Ok(())
    };
    let _ = tokenize(html, element!("*", read));
    found.into_inner()
}

/// Minifies HTML with settings that keep it valid for every browser and for our checks.
pub(crate) fn minify(html: &[u8]) -> Vec<u8> {
    let mut cfg = minify_html::Cfg::new();
    cfg.keep_closing_tags = true;
    cfg.keep_html_and_head_opening_tags = true;
    cfg.minify_css = false;
    cfg.minify_doctype = false;
    cfg.keep_comments = false;
    minify_html::minify(html, &cfg)
}

/// Minifies a classic script with oxc (compress and mangle, no comments). A script that does
/// not parse, or does not get smaller, is published as written.
pub(crate) fn minify_js(code: &[u8]) -> Vec<u8> {
    use oxc_minifier::{CompressOptions, MangleOptions, Minifier, MinifierOptions};
    let Ok(source) = std::str::from_utf8(code) else {
        return code.to_vec();
    };
    let allocator = oxc_allocator::Allocator::default();
    let parsed = oxc_parser::Parser::new(&allocator, source, oxc_span::SourceType::cjs()).parse();
    if !parsed.errors.is_empty() || parsed.panicked {
        return code.to_vec();
    }
    let mut program = parsed.program;
    let minified = Minifier::new(MinifierOptions {
        mangle: Some(MangleOptions::default()),
        compress: Some(CompressOptions::safest()),
    })
    .minify(&allocator, &mut program);
    let out = oxc_codegen::Codegen::new()
        .with_options(oxc_codegen::CodegenOptions::minify())
        .with_scoping(minified.scoping)
        .build(&program)
        .code;
    if out.is_empty() || out.len() >= code.len() {
        return code.to_vec();
    }
    out.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    mod properties {
        use super::*;
        use proptest::prelude::*;

        /// A path segment as sites write them, with the odd character that URLs treat
        /// specially (`:`, `.`, `%`, spaces).
        fn segment() -> impl Strategy<Value = String> {
            prop_oneof![
                "[a-z0-9_-]{1,6}",
                Just("..".to_string()),
                Just(".".to_string()),
                "[a-z]{1,4}:[a-z]{0,3}",
                "[a-z%. ]{1,5}",
            ]
        }

        fn page_path() -> impl Strategy<Value = String> {
            proptest::collection::vec("[a-z0-9-]{1,5}", 0..4)
                .prop_map(|s| s.iter().map(|x| format!("/{x}")).collect::<String>() + "/")
        }

        fn link() -> impl Strategy<Value = String> {
            (
                proptest::collection::vec(segment(), 0..4),
                any::<bool>(),
                prop_oneof![Just(""), Just("#top"), Just("?q=1")],
            )
                .prop_map(|(segs, dir, suffix)| {
                    let mut path = format!("/{}", segs.join("/"));
                    if dir && !path.ends_with('/') {
                        path.push('/');
                    }
                    format!("{path}{suffix}")
                })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(512))]

            /// A root-relative link, made relative to its page, still leads where it did.
            #[test]
            fn relative_links_lead_where_root_relative_ones_did(page in page_path(), to in link()) {
                let html = format!("<p><a href=\"{}\">x</a></p>", escape(&to));
                let out = rewrite_links(&html, &page, LinkMode::Relative);
                let href = page_links(&out).links.into_iter().next().expect("one link");
                let base = url::Url::parse("https://example.org").unwrap();
                let want = base.join(&to).unwrap();
                let got = base.join(&page).unwrap().join(&href).unwrap();
                prop_assert_eq!(got.as_str(), want.as_str(), "{} on {} became {}", to, page, href);
            }

            /// Any text goes through the rewriter without a panic; text with no
            /// root-relative link in it comes out as it went in.
            #[test]
            fn any_text_survives_rewriting(html in "\\PC{0,80}", page in page_path()) {
                let out = rewrite_links(&html, &page, LinkMode::Portable);
                if !html.contains('/') {
                    prop_assert_eq!(out, html);
                }
            }
        }
    }

    #[test]
    fn scripts_are_minified_with_names_mangled_and_broken_ones_kept() {
        let code = b"// a comment\n(function (window) {\n  var longLocalName = 1;\n  window.answer = longLocalName + 41;\n})(this);\n";
        let out = String::from_utf8(minify_js(code)).unwrap();
        assert!(
            !out.contains("longLocalName") && !out.contains("comment"),
            "{out}"
        );
        assert!(out.contains("answer"), "{out}");
        let broken = b"function (";
        assert_eq!(minify_js(broken), broken);
    }

    #[test]
    fn links_become_relative_to_the_page() {
        let html = r#"<a href="/cases/">x</a><a href="/">h</a><link href="/casebook.css"><a href="https://x.org/">e</a><a href="//cdn">c</a><p title="/not-a-link">"#;
        let out = rewrite_links(html, "/cases/syn-1/", LinkMode::Relative);
        assert_eq!(
            out,
            r#"<a href="../">x</a><a href="../../">h</a><link href="../../casebook.css"><a href="https://x.org/">e</a><a href="//cdn">c</a><p title="/not-a-link">"#
        );
        assert_eq!(
            rewrite_links(r#"<a href="/">h</a>"#, "/", LinkMode::Relative),
            r#"<a href="./">h</a>"#
        );
    }

    #[test]
    fn single_quoted_and_unquoted_links_are_rewritten() {
        let html =
            "<a href='/cases/'>x</a><img src=/p/a.jpg alt=''><a class=x href=/report/#f>r</a>";
        let out = rewrite_links(html, "/authors/", LinkMode::Relative);
        assert_eq!(
            out,
            "<a href='../cases/'>x</a><img src=../p/a.jpg alt=''><a class=x href=../report/#f>r</a>"
        );
        // An unquoted value that needs quotes once rewritten gets them.
        assert_eq!(
            rewrite_links("<a href=/x/?q=1>", "/a/", LinkMode::Relative),
            r#"<a href="../x/?q=1">"#
        );
        let portable = rewrite_links(html, "/authors/", LinkMode::Portable);
        assert!(
            portable.contains("href='../cases/index.html'"),
            "{portable}"
        );
        let absolute = rewrite_links(html, "/404.html", LinkMode::Absolute("/sub/"));
        assert!(absolute.contains("href='/sub/cases/'"), "{absolute}");
        assert!(absolute.contains("src=/sub/p/a.jpg"), "{absolute}");
    }

    #[test]
    fn text_that_only_looks_like_a_link_is_left_alone() {
        let html = r#"<script>var a = '<a href="/x">'; el.href="/y";</script><!-- <a href="/c"> --><pre>href="/p"</pre><textarea><a href="/t"></textarea>"#;
        assert_eq!(rewrite_links(html, "/a/b/", LinkMode::Relative), html);
    }

    #[test]
    fn data_root_is_rewritten_on_any_element() {
        let out = rewrite_links(
            r#"<article DATA-ROOT="/" class=x><p data-root='/a/'>"#,
            "/search/",
            LinkMode::Relative,
        );
        assert_eq!(
            out,
            r#"<article DATA-ROOT="../" class=x><p data-root='../a/'>"#
        );
        assert!(!may_have_data_root("<a href=/x>"));
    }

    #[test]
    fn srcset_candidates_are_each_rewritten() {
        let out = rewrite_links(
            r#"<img srcset="/i/a.jpg 400w, /i/b.jpg 1200w" src='/i/b.jpg' alt="">"#,
            "/cases/x/",
            LinkMode::Relative,
        );
        assert_eq!(
            out,
            r#"<img srcset="../../i/a.jpg 400w, ../../i/b.jpg 1200w" src='../../i/b.jpg' alt="">"#
        );
    }

    #[test]
    fn portable_links_name_index_html() {
        let out = rewrite_links(
            r##"<a href="/report/#findings">r</a><a href="/">h</a><a href="/data/cases.csv">d</a>"##,
            "/authors/",
            LinkMode::Portable,
        );
        assert_eq!(
            out,
            r##"<a href="../report/index.html#findings">r</a><a href="../index.html">h</a><a href="../data/cases.csv">d</a>"##
        );
    }

    #[test]
    fn absolute_mode_uses_the_base_path() {
        let out = rewrite_links(
            r#"<a href="/cases/">x</a>"#,
            "/404.html",
            LinkMode::Absolute("/caesar/"),
        );
        assert_eq!(out, r#"<a href="/caesar/cases/">x</a>"#);
    }

    #[test]
    fn page_links_read_every_quoting_style() {
        let found = page_links(
            r##"<a href='/a/?x=1&amp;y=2' id=top>a</a><img src=/i.jpg><a name="n" href="#top">t</a><script>x='<a href="/no">'</script>"##,
        );
        assert_eq!(found.links, ["/a/?x=1&y=2", "/i.jpg", "#top"]);
        assert_eq!(found.ids, ["top", "n"]);
        assert_eq!(found.images_without_alt, 1);
    }

    #[test]
    fn attribute_names_are_read_back_from_the_source() {
        let html = r#"<a class="x" HREF = '/a/' data-root=/r/ title="/t/">"#;
        let at = |needle: &str| html.find(needle).unwrap();
        assert_eq!(attribute_name_before(html, at("/a/")), Some("href"));
        assert_eq!(attribute_name_before(html, at("/r/")), Some("data-root"));
        assert_eq!(attribute_name_before(html, at("/t/")), None);
        assert_eq!(attribute_name_before(html, at("x\"")), None);
    }

    #[test]
    fn escaping_and_decoding() {
        assert_eq!(
            escape(r#"<a href="x">'&'"#),
            "&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;"
        );
        assert_eq!(percent_decode("a%20b"), "a b");
        assert_eq!(percent_decode("%D8%A7"), "ا");
        assert_eq!(decode_entities("a&amp;b&quot;"), "a&b\"");
    }
}
