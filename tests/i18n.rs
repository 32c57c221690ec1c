//! Languages: translations under `/<lang>/`, `lang`/`dir`, hreflang, the switcher, case
//! fallback, and UI strings that must exist in every language.

use crate::support::{SiteTest, attrs, copy_tree, repo_root, texts};

#[test]
fn translations_live_under_their_language() {
    let site = SiteTest::fixture("i18n");
    site.build().success();
    let ar = site.html("ar/about/index.html");
    assert_eq!(attrs(&ar, "html", "lang"), ["ar"]);
    assert_eq!(attrs(&ar, "html", "dir"), ["rtl"]);
    assert_eq!(texts(&ar, "h1"), ["عن الأرشيف"]);
    // Arabic headings keep Arabic ids.
    assert_eq!(attrs(&ar, ".prose h2", "id"), ["النتائج-الرئيسية"]);
    // Links between Arabic pages stay in Arabic.
    let home = site.html("ar/index.html");
    assert_eq!(attrs(&home, ".prose a", "href"), ["about/"]);
    assert!(site.exists("ar/atom.xml"));
}

#[test]
fn both_editions_point_at_each_other() {
    let site = SiteTest::fixture("i18n");
    site.build().success();
    let en = site.html("about/index.html");
    assert_eq!(
        attrs(&en, "link[rel=alternate][hreflang]", "hreflang"),
        ["ar"]
    );
    assert_eq!(
        attrs(&en, "link[rel=alternate][hreflang]", "href"),
        ["https://example.org/ar/about/"]
    );
    assert_eq!(attrs(&en, ".language-switcher a", "href"), ["../ar/about/"]);
    assert_eq!(texts(&en, ".language-switcher a"), ["العربية"]);
    let ar = site.html("ar/about/index.html");
    assert_eq!(
        attrs(&ar, "link[rel=alternate][hreflang]", "href"),
        ["https://example.org/about/"]
    );
}

#[test]
fn cases_are_shared_and_fall_back_with_a_note() {
    let site = SiteTest::fixture("i18n");
    site.build().success();
    let translated = site.html("ar/cases/c-1/index.html");
    assert_eq!(texts(&translated, "h1"), ["الحالة الأولى"]);
    assert!(texts(&translated, ".fallback-notice").is_empty());
    let fallback = site.html("ar/cases/c-2/index.html");
    assert_eq!(texts(&fallback, "h1"), ["Case two"]);
    assert_eq!(texts(&fallback, ".fallback-notice").len(), 1);
    assert_eq!(attrs(&fallback, ".case-narrative", "lang"), ["en"]);
    // Facet URLs are identical across languages.
    assert!(site.exists("ar/cases/branch/215/index.html"));
    assert!(site.exists("cases/branch/215/index.html"));
    // The export lists each case once.
    let doc: serde_json::Value = serde_json::from_str(&site.file("data/cases.json")).unwrap();
    assert_eq!(doc["count"], 2);
}

#[test]
fn case_fields_belong_in_the_default_language_file() {
    let site = SiteTest::fixture("i18n").edit(
        "content/cases/c-1/index.ar.md",
        "title = ",
        "branch = \"227\"\ntitle = ",
    );
    site.build()
        .failure(1)
        .stderr_has("content/cases/c-1/index.ar.md:2:1: branch: case fields are written once, in the default-language file");
}

#[test]
fn unknown_language_suffix_is_an_error() {
    let site =
        SiteTest::fixture("i18n").write("content/about.fr.md", "+++\ntitle = \"À propos\"\n+++\n");
    site.build()
        .failure(1)
        .stderr_has("content/about.fr.md: `fr` is not one of the site's languages")
        .stderr_has("add \"fr\" to `languages`");
}

#[test]
fn a_missing_ui_string_is_a_build_error() {
    let site = SiteTest::fixture("i18n");
    copy_tree(
        &repo_root().join("themes/default"),
        &site.root().join("themes/default"),
    );
    let site = site.edit("themes/default/i18n/ar.toml", "next = \"التالي\"\n", "");
    site.build().failure(1).stderr_has(
        "themes/default/i18n/ar.toml: next: missing UI string `next` for language `ar`",
    );
}

#[test]
fn translated_cases_translate_photo_alt_text() {
    let site = SiteTest::fixture("i18n");
    std::fs::copy(
        repo_root().join("tests/fixtures/photos-real/xmp/no_exif.jpg"),
        site.root().join("content/cases/c-1/p.jpg"),
    )
    .unwrap();
    let site = site
        .edit("content/cases/c-1/index.md", "branch = \"215\"", "branch = \"215\"\n[[photos]]\nfile = \"p.jpg\"\nalt = \"English alt\"\nsensitivity = \"none\"")
        .edit("content/cases/c-1/index.ar.md", "title = \"الحالة الأولى\"", "title = \"الحالة الأولى\"\n[[photos]]\nfile = \"p.jpg\"\nalt = \"نص بديل\"");
    site.build().success();
    assert_eq!(
        attrs(
            &site.html("ar/cases/c-1/index.html"),
            "img.photo-image",
            "alt"
        ),
        ["نص بديل"]
    );
    assert_eq!(
        attrs(&site.html("cases/c-1/index.html"), "img.photo-image", "alt"),
        ["English alt"]
    );
}
