//! Links: `@/` internal links, relative output links that work at a domain root, under a
//! sub-path and from disk (`--portable`), and `casebook check`.

use std::path::Path;

use crate::support::{SiteTest, attrs, tree};

/// Resolves every relative href/src of every HTML file against the file's location on disk,
/// as a browser opening the files would, and returns the ones that lead nowhere.
fn dead_links(public: &Path, portable: bool) -> Vec<String> {
    let mut dead = Vec::new();
    for (rel, bytes) in tree(public)
        .into_iter()
        .filter(|(p, _)| p.ends_with(".html") && p != "404.html")
    {
        let html = scraper::Html::parse_document(&String::from_utf8(bytes).unwrap());
        let dir = public.join(&rel).parent().unwrap().to_path_buf();
        let links = attrs(&html, "a[href], link[href]", "href")
            .into_iter()
            .chain(attrs(&html, "[src]", "src"));
        for link in links {
            if link.contains("://")
                || link.starts_with('#')
                || link.starts_with("mailto:")
                || link.starts_with("data:")
            {
                continue;
            }
            assert!(
                !link.starts_with('/'),
                "{rel}: root-relative link {link} breaks under a sub-path"
            );
            let path = link.split(['#', '?']).next().unwrap();
            let target = dir.join(path);
            let ok = if portable {
                // From file:// a folder link shows a listing, not the page: links must name files.
                target.is_file()
            } else {
                target.is_file() || target.join("index.html").is_file()
            };
            if !ok {
                dead.push(format!("{rel}: {link}"));
            }
        }
    }
    dead
}

#[test]
fn internal_links_resolve_to_relative_urls() {
    let site = SiteTest::fixture("minimal");
    site.build().success();
    let home = site.html("index.html");
    let hrefs = attrs(&home, ".prose a", "href");
    assert_eq!(hrefs, ["docs/", "about/#contact", "cases/c-001/"]);
    let case = site.html("cases/c-001/index.html");
    assert_eq!(attrs(&case, ".prose a", "href"), ["../../about/"]);
}

#[test]
fn every_link_works_at_any_path() {
    let site = SiteTest::fixture("minimal");
    site.build().success();
    assert_eq!(dead_links(&site.public(), false), Vec::<String>::new());
}

#[test]
fn sub_path_base_url_makes_absolute_urls_carry_it() {
    let site = SiteTest::fixture("minimal");
    site.run(&["build", "--base-url", "https://example.org/caesar"])
        .success();
    let case = site.html("cases/c-001/index.html");
    assert_eq!(
        attrs(&case, "link[rel=canonical]", "href"),
        ["https://example.org/caesar/cases/c-001/"]
    );
    assert!(
        site.file("sitemap.xml")
            .contains("<loc>https://example.org/caesar/cases/c-001/</loc>")
    );
    assert!(
        site.file("robots.txt")
            .contains("Sitemap: https://example.org/caesar/sitemap.xml")
    );
    assert!(
        site.file("atom.xml")
            .contains("href=\"https://example.org/caesar/about/\"")
    );
    // The 404 page is served at any URL, so its links are absolute paths under the sub-path.
    let not_found = site.html("404.html");
    assert!(attrs(&not_found, "a", "href").contains(&"/caesar/".to_string()));
    assert_eq!(
        attrs(&not_found, "link[rel=stylesheet]", "href"),
        ["/caesar/casebook.css"]
    );
    assert_eq!(dead_links(&site.public(), false), Vec::<String>::new());
}

#[test]
fn portable_builds_work_from_disk() {
    let site = SiteTest::fixture("minimal");
    site.run(&["build", "--portable"]).success();
    let home = site.html("index.html");
    assert_eq!(
        attrs(&home, ".prose a", "href"),
        [
            "docs/index.html",
            "about/index.html#contact",
            "cases/c-001/index.html"
        ]
    );
    assert_eq!(dead_links(&site.public(), true), Vec::<String>::new());
}

#[test]
fn bad_base_url_is_rejected() {
    let site = SiteTest::fixture("minimal");
    site.run(&["build", "--base-url", "example.org"])
        .failure(1)
        .stderr_has("--base-url");
    let site = site.edit("casebook.toml", "https://example.org/", "/relative/");
    site.build()
        .failure(1)
        .stderr_has("casebook.toml:3:12: base_url:");
}

#[test]
fn check_passes_on_a_clean_site_and_writes_nothing() {
    let site = SiteTest::fixture("minimal");
    site.run(&["check"]).success();
    assert!(!site.public().exists());
}

#[test]
fn check_reports_every_broken_link_and_anchor() {
    let site = SiteTest::fixture("minimal")
        .edit(
            "content/docs/plain-a.md",
            "Plain A.",
            "Plain A, see [gone](/nowhere/) and [bad anchor](/about/#nope).",
        )
        .edit(
            "content/docs/older.md",
            "Older.",
            "Older, see [missing](../missing-page/).",
        );
    let run = site.run(&["check"]);
    run.failure(1)
        .stderr_has("content/docs/plain-a.md: broken link `/nowhere/`")
        .stderr_has("content/docs/plain-a.md: broken anchor `/about/#nope`")
        .stderr_has("content/docs/older.md: broken link `../missing-page/`")
        .stderr_has("3 errors found");
}

/// A site template written with single-quoted and unquoted attributes, and a script whose
/// text looks like a link (issue 13: links are read by an HTML tokenizer).
const ODD_QUOTING: &str = "<!doctype html><html lang=en><head><meta charset=utf-8>\
<title>{{ page.title }}</title><link rel=stylesheet href=/casebook.css></head><body>\
<a id=single href='/cases/'>cases</a> <a id=bare href=/about/#contact>about</a>\
<script>var notALink = '<a href=\"/not-a-link\">';</script>{{ page.content | safe }}</body></html>";

#[test]
fn single_quoted_and_unquoted_template_links_work_at_any_path() {
    let site = SiteTest::fixture("minimal").write("templates/page.html", ODD_QUOTING);
    let expect = |site: &SiteTest, cases: &str, about: &str, css: &str| {
        let page = site.html("docs/plain-a/index.html");
        assert_eq!(attrs(&page, "#single", "href"), [cases]);
        assert_eq!(attrs(&page, "#bare", "href"), [about]);
        assert_eq!(attrs(&page, "link[rel=stylesheet]", "href"), [css]);
        assert!(
            site.file("docs/plain-a/index.html").contains("/not-a-link"),
            "text inside a script is not a link"
        );
    };
    site.build().success();
    expect(
        &site,
        "../../cases/",
        "../../about/#contact",
        "../../casebook.css",
    );
    assert_eq!(dead_links(&site.public(), false), Vec::<String>::new());

    site.run(&["build", "--base-url", "https://example.org/caesar"])
        .success();
    expect(
        &site,
        "../../cases/",
        "../../about/#contact",
        "../../casebook.css",
    );
    assert_eq!(dead_links(&site.public(), false), Vec::<String>::new());

    site.run(&["build", "--portable"]).success();
    expect(
        &site,
        "../../cases/index.html",
        "../../about/index.html#contact",
        "../../casebook.css",
    );
    assert_eq!(dead_links(&site.public(), true), Vec::<String>::new());
}

#[test]
fn check_reports_a_broken_single_quoted_template_link() {
    let broken = ODD_QUOTING.replace("href='/cases/'", "href='/nowhere/'");
    let site = SiteTest::fixture("minimal").write("templates/page.html", &broken);
    site.run(&["check"])
        .failure(1)
        .stderr_has("broken link `/nowhere/`");
}
