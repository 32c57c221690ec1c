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

#[test]
fn schema_labels_and_values_are_translated() {
    let site = SiteTest::fixture("i18n");
    site.build().success();
    let ar = site.html("ar/cases/c-1/index.html");
    assert!(texts(&ar, ".case-fields dt").contains(&"الفرع".to_string()));
    assert!(texts(&ar, ".case-fields dd").contains(&"الفرع 215".to_string()));
    let en = site.html("cases/c-1/index.html");
    assert!(texts(&en, ".case-fields dt").contains(&"branch".to_string()));
    assert!(texts(&en, ".case-fields dd").contains(&"Branch 215".to_string()));
    // Facet pages take the translated facet heading and value labels; URLs stay ASCII.
    let facet = site.html("ar/cases/branch/index.html");
    assert!(texts(&facet, "h1")[0].ends_with("الفروع"));
    assert_eq!(
        texts(&facet, ".facet-table td a"),
        ["الفرع 215", "الفرع 227"]
    );
    assert_eq!(
        texts(&site.html("cases/branch/index.html"), "h1"),
        ["Browse by: Branches"]
    );
}

#[test]
fn a_missing_schema_label_is_an_error_naming_the_key() {
    let site =
        SiteTest::fixture("i18n").edit("casebook.toml", "\"branch.227\" = \"الفرع 227\"\n", "");
    site.build()
        .failure(1)
        .stderr_has("casebook.toml:")
        .stderr_has("translations.ar: missing `branch.227` for language `ar`")
        .stderr_has("(en: \"Branch 227\")");
}

#[test]
fn an_unknown_schema_label_is_an_error_with_a_suggestion() {
    let site = SiteTest::fixture("i18n").edit(
        "casebook.toml",
        "\"branch.227\" = \"الفرع 227\"",
        "\"branch.227\" = \"الفرع 227\"\n\"branch.228\" = \"الفرع 228\"",
    );
    site.build()
        .failure(1)
        .stderr_has("`branch.228` is not a translatable text of the site")
        .stderr_has("branch.227");
}

#[test]
fn the_switcher_leads_to_the_other_home_when_a_page_is_untranslated() {
    let site = SiteTest::fixture("i18n").write(
        "content/notes.md",
        "+++\ntitle = \"Notes\"\n+++\nOnly in English.\n",
    );
    site.build().success();
    let notes = site.html("notes/index.html");
    assert_eq!(attrs(&notes, ".language-switcher a", "href"), ["../ar/"]);
    assert_eq!(
        texts(&notes, ".language-switcher .switcher-note"),
        ["(not translated: its home page)"]
    );
    // Only real translations are alternates.
    assert!(attrs(&notes, "link[rel=alternate][hreflang]", "hreflang").is_empty());
    // A translated page links its translation, without a note.
    let about = site.html("about/index.html");
    assert_eq!(
        attrs(&about, ".language-switcher a", "href"),
        ["../ar/about/"]
    );
    assert!(texts(&about, ".switcher-note").is_empty());
}

#[test]
fn digits_follow_the_configuration() {
    let site = SiteTest::fixture("i18n")
        .edit(
            "casebook.toml",
            "[translations.ar]",
            "[digits]\nar = \"arabic-indic\"\n\n[translations.ar]",
        )
        .edit(
            "content/about.ar.md",
            "title = ",
            "date = 2012-05-14\ntitle = ",
        );
    site.build().success();
    let facet = site.html("ar/cases/branch/index.html");
    assert_eq!(texts(&facet, ".facet-table td.num"), ["١", "١"]);
    assert_eq!(
        texts(&site.html("cases/branch/index.html"), ".facet-table td.num"),
        ["1", "1"]
    );
    assert_eq!(
        texts(&site.html("ar/about/index.html"), ".meta time"),
        ["١٤ أيار ٢٠١٢"]
    );
    // Labels and identifiers keep their digits.
    assert_eq!(
        texts(&facet, ".facet-table td a"),
        ["الفرع 215", "الفرع 227"]
    );
    let bad = SiteTest::fixture("i18n").edit(
        "casebook.toml",
        "[translations.ar]",
        "[digits]\nar = \"roman\"\n\n[translations.ar]",
    );
    bad.build()
        .failure(1)
        .stderr_has("digits.ar: unknown digits `roman`")
        .stderr_has("latin, arabic-indic");
}

/// The bundled site is a complete Arabic edition: every page that is not a case has an
/// Arabic version, at least a third of the sample narratives are translated, and both
/// editions name each other.
#[test]
fn the_bundled_site_has_a_complete_arabic_edition() {
    let site = crate::support::bundled();
    site.build().success();
    let arabic = |s: &str| s.chars().any(|c| ('\u{0600}'..='\u{06FF}').contains(&c));
    for page in [
        "",
        "about/",
        "methodology/",
        "report/",
        "authors/",
        "authors/desmond-de-silva/",
        "authors/geoffrey-nice/",
        "authors/david-crane/",
        "timeline/",
        "sources/",
        "verify/",
        "cases/",
    ] {
        let ar = site.html(&format!("ar/{page}index.html"));
        assert_eq!(attrs(&ar, "html", "dir"), ["rtl"], "{page}");
        let h1 = texts(&ar, "h1").join(" ");
        assert!(arabic(&h1), "ar/{page} has no Arabic title: {h1}");
        assert!(
            texts(&ar, ".fallback-notice").is_empty(),
            "ar/{page} is not translated"
        );
        let en = site.html(&format!("{page}index.html"));
        assert_eq!(
            attrs(&en, "link[rel=alternate][hreflang=ar]", "href"),
            [format!("https://example.org/caesar/ar/{page}")],
            "{page}"
        );
        assert_eq!(
            attrs(&ar, "link[rel=alternate][hreflang=en]", "href"),
            [format!("https://example.org/caesar/{page}")],
            "{page}"
        );
    }
    let cases: Vec<String> = std::fs::read_dir(site.root().join("content/cases"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let translated = cases
        .iter()
        .filter(|c| {
            texts(
                &site.html(&format!("ar/cases/{c}/index.html")),
                ".fallback-notice",
            )
            .is_empty()
        })
        .count();
    assert!(
        translated * 3 >= cases.len(),
        "{translated} of {} narratives translated",
        cases.len()
    );
    // Every Arabic case page says it is synthetic, translated or not.
    for c in &cases {
        let page = site.html(&format!("ar/cases/{c}/index.html"));
        assert_eq!(texts(&page, ".badge-synthetic"), ["مصطنع"], "{c}");
    }
    assert!(site.exists("ar/atom.xml"));
    assert!(
        site.file("sitemap.xml")
            .contains("https://example.org/caesar/ar/cases/syn-0001/")
    );
}

/// Both editions in Chromium: direction, the switcher, and an Arabic search with
/// diacritics; screenshots of both homes and one case page for review.
#[test]
fn browser_both_editions_render_in_their_direction() {
    use crate::support::browser::{Browser, serve};
    let Some(mut b) = Browser::launch("browser_both_editions_render_in_their_direction") else {
        return;
    };
    let site = crate::support::bundled();
    site.build().success();
    let base = serve(&site.public());
    let shots = repo_root().join("target/test-screenshots");
    for (path, dir, shot) in [
        ("", "ltr", "edition-en-home"),
        ("ar/", "rtl", "edition-ar-home"),
        ("cases/syn-0001/", "ltr", "edition-en-case"),
        ("ar/cases/syn-0001/", "rtl", "edition-ar-case"),
    ] {
        b.goto(&format!("{base}{path}"));
        assert_eq!(
            b.eval("getComputedStyle(document.body).direction"),
            dir,
            "{path}"
        );
        b.screenshot(&shots.join(format!("{shot}.png")));
    }
    // On the Arabic case page, identifiers read left to right inside right-to-left text.
    assert_eq!(
        b.eval("getComputedStyle(document.querySelector('.case-fields bdi')).unicodeBidi"),
        "isolate"
    );
    // "تَجْوِيع" (starvation) with harakat finds the cases of that indicator, in Arabic,
    // and the count uses the Arabic plural form for its number.
    b.goto(&format!(
        "{base}ar/search/?q=%D8%AA%D9%8E%D8%AC%D9%92%D9%88%D9%90%D9%8A%D8%B9"
    ));
    b.wait_for("document.querySelectorAll('#search-results h2 a').length > 0");
    let status = b.eval("document.getElementById('search-status').textContent");
    let status = status.as_str().unwrap();
    let n: usize = status
        .split_whitespace()
        .find_map(|w| w.parse().ok())
        .unwrap_or(1);
    let form = match n {
        1 => "نتيجة واحدة",
        2 => "نتيجتان",
        3..=10 => "نتائج",
        _ => "نتيجة",
    };
    assert!(status.contains(form), "{status}");
    assert_eq!(
        b.eval("getComputedStyle(document.getElementById('search-results')).direction"),
        "rtl"
    );
    b.screenshot(&shots.join("edition-ar-search.png"));
    // "المَنْهَجِيَّة" with harakat and shadda finds the page titled "المنهجية".
    b.goto(&format!(
        "{base}ar/search/?q=%D8%A7%D9%84%D9%85%D9%8E%D9%86%D9%92%D9%87%D9%8E%D8%AC%D9%90%D9%8A%D9%8E%D9%91%D8%A9"
    ));
    b.wait_for("document.querySelectorAll('#search-results h2 a').length > 0");
    let titles = b.eval(
        "Array.from(document.querySelectorAll('#search-results h2 a')).map(a => a.textContent)",
    );
    assert!(
        titles.as_array().unwrap().iter().any(|t| t == "المنهجية"),
        "{titles}"
    );
    // A detainee number typed in Arabic-Indic digits (٩٠٤١٧) finds its case first.
    b.goto(&format!(
        "{base}ar/search/?q=%D9%A9%D9%A0%D9%A4%D9%A1%D9%A7"
    ));
    b.wait_for("document.querySelectorAll('#search-results h2 a').length > 0");
    let first = b.eval("document.querySelector('#search-results h2 a').textContent");
    assert!(first.as_str().unwrap().contains("SYN-0001"), "{first}");
}

/// Every edition lists cases in one order: an untranslated case (its title still in
/// English) no longer sorts apart from the translated ones in the Arabic list.
#[test]
fn the_arabic_case_list_keeps_the_english_order() {
    let site = SiteTest::fixture("i18n");
    site.build().success();
    let en = attrs(
        &site.html("cases/index.html"),
        ".case-table a[href^='c-']",
        "href",
    );
    let ar = attrs(
        &site.html("ar/cases/index.html"),
        ".case-table a[href^='c-']",
        "href",
    );
    assert_eq!(en, ["c-1/", "c-2/"]);
    assert_eq!(ar, en);
}

/// Text a translated edition shows untranslated carries its own language, wherever it is
/// shown: the title (in `<title>`, `<h1>`, lists and search results), the narrative, and
/// each photograph's alt text and caption that the translation does not translate.
#[test]
fn untranslated_text_in_a_translated_edition_says_its_language() {
    let site = SiteTest::fixture("i18n");
    for (case, file) in [("c-1", "p.jpg"), ("c-1", "q.jpg"), ("c-2", "p.jpg")] {
        std::fs::copy(
            repo_root().join("tests/fixtures/photos-real/xmp/no_exif.jpg"),
            site.root().join(format!("content/cases/{case}/{file}")),
        )
        .unwrap();
    }
    let photo = |file: &str| {
        format!(
            "[[photos]]\nfile = \"{file}\"\nalt = \"English alt {file}\"\ncaption = \"English caption {file}\"\nsensitivity = \"none\"\n"
        )
    };
    let site = site
        .edit(
            "content/cases/c-1/index.md",
            "branch = \"215\"",
            &format!("branch = \"215\"\n{}{}", photo("p.jpg"), photo("q.jpg")),
        )
        // The translation translates p.jpg's alt text, not its caption, and not q.jpg.
        .edit(
            "content/cases/c-1/index.ar.md",
            "title = \"الحالة الأولى\"",
            "title = \"الحالة الأولى\"\n[[photos]]\nfile = \"p.jpg\"\nalt = \"نص بديل\"",
        )
        .edit(
            "content/cases/c-2/index.md",
            "branch = \"227\"",
            &format!("branch = \"227\"\n{}", photo("p.jpg")),
        )
        .edit(
            "content/cases/c-2/index.md",
            "title = \"Case two\"",
            "title = \"Case two\"\ndescription = \"English description two.\"",
        );
    site.build().success();

    let untranslated = site.html("ar/cases/c-2/index.html");
    assert_eq!(attrs(&untranslated, "title", "lang"), ["en"]);
    assert_eq!(texts(&untranslated, "title"), ["Case two"]);
    assert_eq!(texts(&untranslated, "h1 [lang=en]"), ["Case two"]);
    assert_eq!(attrs(&untranslated, ".case-narrative", "lang"), ["en"]);
    assert_eq!(
        attrs(&untranslated, "meta[name=description]", "lang"),
        ["en"]
    );
    assert_eq!(attrs(&untranslated, "img.photo-image", "lang"), ["en"]);
    assert_eq!(
        texts(&untranslated, "figcaption [lang=en]"),
        ["English alt p.jpg", "English caption p.jpg"]
    );

    let translated = site.html("ar/cases/c-1/index.html");
    assert!(attrs(&translated, "title", "lang").is_empty());
    assert!(attrs(&translated, "meta[name=description]", "lang").is_empty());
    assert!(texts(&translated, "h1 [lang]").is_empty());
    assert_eq!(
        attrs(&translated, "img.photo-image", "alt"),
        ["نص بديل", "English alt q.jpg"]
    );
    assert_eq!(
        attrs(&translated, "img.photo-image[lang=en]", "alt"),
        ["English alt q.jpg"]
    );
    assert_eq!(
        texts(&translated, "figcaption [lang=en]"),
        [
            "English caption p.jpg",
            "English alt q.jpg",
            "English caption q.jpg"
        ]
    );

    let list = site.html("ar/cases/index.html");
    assert_eq!(texts(&list, "a[href='c-2/'][lang=en]"), ["Case two"]);
    assert!(texts(&list, "a[href='c-1/'][lang]").is_empty());
    // The default edition marks nothing: its text is all in its own language.
    for page in ["cases/c-2/index.html", "cases/index.html"] {
        assert!(
            texts(&site.html(page), "main [lang=en]").is_empty(),
            "{page}"
        );
    }

    // Search results: the Arabic index gives the language of an untranslated title and
    // summary, which the client puts on the result (tests/search.rs checks it in a browser).
    let records: Vec<serde_json::Value> = std::fs::read_dir(site.public().join("search/ar"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with('d') && name.as_bytes()[1].is_ascii_digit()
        })
        .flat_map(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            let json = &text[text.find('[').unwrap()..=text.rfind(']').unwrap()];
            serde_json::from_str::<Vec<serde_json::Value>>(json).unwrap()
        })
        .collect();
    let record = |path: &str| records.iter().find(|r| r[0] == path).unwrap().clone();
    assert_eq!(record("ar/cases/c-2/")[6], "en");
    assert_eq!(record("ar/cases/c-2/")[7], "en");
    assert_eq!(record("ar/cases/c-1/").as_array().unwrap().len(), 6);
}

#[test]
fn every_language_has_its_own_not_found_page() {
    let site = SiteTest::fixture("i18n");
    site.build().success();
    let ar = site.html("ar/404.html");
    assert_eq!(attrs(&ar, "html", "lang"), ["ar"]);
    assert_eq!(attrs(&ar, "html", "dir"), ["rtl"]);
    let en = site.html("404.html");
    assert_eq!(attrs(&en, "html", "lang"), ["en"]);
    assert_ne!(texts(&ar, "h1"), texts(&en, "h1"));
    // Served at any address, so its links do not depend on where it is shown.
    assert!(
        attrs(&ar, "main a", "href")
            .iter()
            .all(|h| h.starts_with('/')),
        "{:?}",
        attrs(&ar, "main a", "href")
    );
    assert!(!site.file("sitemap.xml").contains("404.html"));
}
