//! Building a fixture site: structure, ordering, pagination, facets, escaping, atomicity,
//! determinism.

use crate::support::{Run, SiteTest, assert_same_as_fresh, attrs, texts, tree};

#[test]
fn builds_sections_pages_and_cases() {
    let site = SiteTest::fixture("minimal");
    let run = site.build();
    run.success();
    assert!(run.stdout.contains("5 cases"), "{}", run.stdout);
    for file in [
        "index.html",
        "about/index.html",
        "docs/index.html",
        "docs/weighted/index.html",
        "docs/plain-b/index.html",
        "docs/bundle/index.html",
        "cases/index.html",
        "cases/c-001/index.html",
        "404.html",
        "sitemap.xml",
        "robots.txt",
        "atom.xml",
        "casebook.css",
    ] {
        assert!(site.exists(file), "missing {file}");
    }
    let case = site.html("cases/c-001/index.html");
    assert_eq!(texts(&case, "h1"), ["Case one Synthetic"]);
    assert_eq!(attrs(&case, "html", "lang"), ["en"]);
    assert_eq!(attrs(&case, "html", "dir"), ["ltr"]);
}

#[test]
fn pages_without_description_use_the_site_description() {
    let site = SiteTest::fixture("minimal");
    site.build().success();
    let about = site.html("about/index.html");
    assert_eq!(
        attrs(&about, "meta[name=description]", "content"),
        ["A small site for casebook's tests."]
    );
    let plain_b = site.html("docs/plain-b/index.html");
    assert_eq!(
        attrs(&plain_b, "meta[name=description]", "content"),
        ["Written with YAML front matter."]
    );
}

#[test]
fn section_lists_follow_weight_then_date_then_title() {
    let site = SiteTest::fixture("minimal");
    site.build().success();
    let docs = site.html("docs/index.html");
    assert_eq!(
        texts(&docs, ".page-list h2"),
        [
            "Zeta weighted first",
            "Bundle with files",
            "Beta newer",
            "Alpha older",
            "Plain A",
            "Plain B"
        ]
    );
}

#[test]
fn drafts_only_with_the_flag() {
    let site = SiteTest::fixture("minimal");
    site.build().success();
    assert!(!site.exists("docs/draft/index.html"));
    site.run(&["build", "--drafts"]).success();
    assert!(site.exists("docs/draft/index.html"));
}

#[test]
fn case_lists_are_paginated() {
    let site = SiteTest::fixture("minimal");
    site.build().success();
    // paginate_by = 2, five cases: three pages.
    assert!(site.exists("cases/page/2/index.html"));
    assert!(site.exists("cases/page/3/index.html"));
    assert!(!site.exists("cases/page/4/index.html"));
    let first = site.html("cases/index.html");
    assert_eq!(texts(&first, ".case-table tbody th a").len(), 2);
    assert_eq!(attrs(&first, "a[rel=next]", "href"), ["page/2/"]);
    let last = site.html("cases/page/3/index.html");
    assert_eq!(texts(&last, ".case-table tbody th a").len(), 1);
    assert_eq!(attrs(&last, "a[rel=prev]", "href"), ["../2/"]);
    assert!(attrs(&last, "a[rel=next]", "href").is_empty());
    // The docs section sets its own paginate_by = 10.
    assert!(!site.exists("docs/page/2/index.html"));
}

#[test]
fn facet_pages_list_values_with_counts() {
    let site = SiteTest::fixture("minimal");
    site.build().success();
    let index = site.html("cases/branch/index.html");
    // Every declared value is listed, with its count; the label comes from value_labels.
    let cells = texts(&index, ".facet-table tbody td");
    assert_eq!(cells, ["Branch 215", "2", "227", "3", "235", "0"]);
    assert!(site.exists("cases/branch/215/index.html"));
    assert!(
        !site.exists("cases/branch/235/index.html"),
        "no page for an empty value"
    );
    // 3 cases in 227, paginate_by = 2.
    assert!(site.exists("cases/branch/227/page/2/index.html"));
    let b215 = site.html("cases/branch/215/index.html");
    assert_eq!(
        texts(&b215, ".case-table tbody th a"),
        ["Case one", "Case two"]
    );

    // A list field counts a case once per value; a date field facets by year.
    let indicator = site.html("cases/indicator/index.html");
    assert_eq!(
        texts(&indicator, ".facet-table tbody td"),
        ["starvation", "2", "beating", "3", "eye-injury", "1"]
    );
    let year = site.html("cases/year/index.html");
    assert_eq!(
        texts(&year, ".facet-table tbody td"),
        ["2011", "1", "2012", "2", "2013", "2"]
    );
    assert_eq!(texts(&year, "h1"), ["Browse by: Year photographed"]);
    let y2013 = site.html("cases/year/2013/index.html");
    assert_eq!(texts(&y2013, ".case-table tbody th a").len(), 2);
}

#[test]
fn titles_are_escaped_everywhere() {
    let site = SiteTest::fixture("minimal");
    site.build().success();
    // No page carries a script element: the title stays text in the DOM.
    for file in [
        "cases/c-005/index.html",
        "cases/index.html",
        "cases/branch/227/index.html",
    ] {
        let html = site.html(file);
        assert!(
            texts(&html, "script:not([type=\"application/ld+json\"])").is_empty(),
            "{file} has a script element"
        );
        // In the JSON-LD the title is a JSON string, its `</` escaped: it cannot end the
        // data block and start markup.
        for block in texts(&html, "script[type=\"application/ld+json\"]") {
            let ld: serde_json::Value = serde_json::from_str(&block).unwrap();
            if file == "cases/c-005/index.html" {
                assert_eq!(ld["name"], "<script>alert(1)</script>", "{block}");
            }
        }
        assert!(
            texts(&html, "body")
                .join(" ")
                .contains("<script>alert(1)</script>"),
            "{file}"
        );
    }
    for file in ["sitemap.xml", "atom.xml"] {
        assert!(
            !site.file(file).contains("<script>"),
            "{file} carries the raw script"
        );
    }
    // Data exports carry the title as data, exactly as written.
    let doc: serde_json::Value = serde_json::from_str(&site.file("data/cases.json")).unwrap();
    assert_eq!(doc["cases"][4]["title"], "<script>alert(1)</script>");
    let page = site.html("cases/c-005/index.html");
    assert_eq!(
        texts(&page, "title"),
        ["<script>alert(1)</script> · Fixture archive"]
    );
    assert!(texts(&page, "h1")[0].starts_with("<script>alert(1)</script>"));
}

#[test]
fn images_in_content_are_never_copied() {
    let site = SiteTest::fixture("minimal");
    site.build().success();
    assert_eq!(site.file("docs/bundle/notes.txt"), "attached notes\n");
    assert!(!site.exists("docs/bundle/photo.jpg"));
    assert!(
        !site.exists("docs/bundle/diagram.svg"),
        "SVG can embed photographs"
    );
    let images = tree(&site.public())
        .into_iter()
        .filter(|(p, _)| p.ends_with(".jpg"))
        .count();
    assert_eq!(images, 0);
}

#[test]
fn two_builds_are_byte_identical() {
    let a = SiteTest::fixture("minimal");
    let b = SiteTest::fixture("minimal");
    a.build().success();
    b.build().success();
    let (ta, tb) = (tree(&a.public()), tree(&b.public()));
    assert!(ta.len() > 30);
    assert_eq!(
        ta.iter().map(|t| &t.0).collect::<Vec<_>>(),
        tb.iter().map(|t| &t.0).collect::<Vec<_>>()
    );
    for ((path, x), (_, y)) in ta.iter().zip(&tb) {
        assert!(x == y, "{path} differs between two builds");
    }
}

#[test]
fn rebuilds_with_the_link_cache_present_or_damaged_are_byte_identical() {
    let site = SiteTest::fixture("minimal");
    site.build().success();
    let first = tree(&site.public());
    let cache = site.root().join(".casebook-cache/links.bin");
    assert!(
        cache.is_file(),
        "a build keeps its link rewrites for the next"
    );
    site.build().success();
    assert!(
        tree(&site.public()) == first,
        "a warm build changed the output"
    );
    // A damaged cache (a truncated file, another page's rewrites) is not trusted.
    let bytes = std::fs::read(&cache).unwrap();
    std::fs::write(&cache, &bytes[..bytes.len() / 2]).unwrap();
    site.build().success();
    assert!(
        tree(&site.public()) == first,
        "a damaged cache changed the output"
    );
    let mut flipped = std::fs::read(&cache).unwrap();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x20;
    std::fs::write(&cache, flipped).unwrap();
    site.build().success();
    assert!(
        tree(&site.public()) == first,
        "a damaged cache changed the output"
    );
}

#[test]
fn a_failed_build_leaves_the_previous_output_untouched() {
    let site = SiteTest::fixture("minimal");
    site.build().success();
    let before = tree(&site.public());
    // A broken template, then broken front matter: both fail without touching public/.
    let site = site.write(
        "templates/page.html",
        "{% extends \"base.html\" %}{% block content %}{{ page.nope }}{% endblock content %}",
    );
    site.build()
        .failure(1)
        .stderr_has("content/about.md")
        .stderr_has("nothing was written");
    assert_eq!(tree(&site.public()), before);
    let site = site.remove("templates/page.html").edit(
        "content/about.md",
        "weight = 9",
        "weight = \"nine\"",
    );
    site.build().failure(1);
    assert_eq!(tree(&site.public()), before);
    assert!(!site.root().join(".public.casebook-staging").exists());
    // Every page rendered again (a new title): those done before the error were written
    // beside the output, and are gone with the failed build.
    let site = site
        .edit("content/about.md", "weight = \"nine\"", "weight = 9")
        .edit("casebook.toml", "Fixture archive", "Fixture archive, again")
        .write(
            "templates/page.html",
            "{% extends \"base.html\" %}{% block content %}{{ page.nope }}{% endblock content %}",
        );
    site.build().failure(1).stderr_has("content/about.md");
    assert_eq!(tree(&site.public()), before);
    assert!(!site.root().join(".public.casebook-pending").exists());
}

#[test]
fn a_failed_first_build_publishes_none_of_the_pages_it_already_wrote() {
    // A new output folder gets each page as soon as it is rendered. This build fails only
    // after every page is done (two outputs for one path, found with the whole-site
    // files), so its pages were written: neither the folder nor its staging copy remains.
    let site = SiteTest::fixture("minimal")
        .write("content/search.md", "+++\ntitle = \"Search\"\n+++\nText.\n");
    site.build()
        .failure(1)
        .stderr_has("two outputs would be written to `search/index.html`");
    assert!(!site.public().exists());
    assert!(!site.root().join(".public.casebook-staging").exists());
    // A template error part-way through the pages, too.
    let site = site.remove("content/search.md").write(
        "templates/page.html",
        "{% extends \"base.html\" %}{% block content %}{{ page.nope }}{% endblock content %}",
    );
    site.build().failure(1).stderr_has("content/about.md");
    assert!(!site.public().exists());
    assert!(!site.root().join(".public.casebook-staging").exists());
    let site = site.remove("templates/page.html");
    site.build().success();
    assert_same_as_fresh(&site, SiteTest::fixture("minimal"));
}

#[test]
fn pages_written_as_they_render_are_the_bytes_an_update_writes() {
    // A new folder's pages are written from the renderer (output::Stage), an existing
    // folder's from memory by the write stage: with the record of the first build gone,
    // the second renders every page again and compares it with what is there.
    let site = SiteTest::fixture("minimal");
    site.build().success();
    let first = tree(&site.public());
    std::fs::remove_dir_all(site.root().join(".casebook-cache")).unwrap();
    site.build().success().stdout_has(", 0 files changed)");
    assert!(tree(&site.public()) == first);
}

#[test]
fn site_templates_override_the_theme() {
    let site = SiteTest::fixture("minimal").write(
        "templates/page.html",
        "{% extends \"base.html\" %}{% block content %}<p class=\"custom\">{{ page.title }}</p>{% endblock content %}",
    );
    site.build().success();
    assert_eq!(texts(&site.html("about/index.html"), "p.custom"), ["About"]);
}

#[test]
fn minify_can_be_turned_off() {
    let site =
        SiteTest::fixture("minimal").edit("casebook.toml", "minify = true", "minify = false");
    site.build().success();
    assert!(
        site.file("index.html")
            .contains("<html lang=\"en\" dir=\"ltr\">")
    );
    let minified = SiteTest::fixture("minimal");
    minified.build().success();
    assert!(minified.file("index.html").len() < site.file("index.html").len());
}

#[test]
fn pages_make_no_request_to_another_host_and_run_no_inline_script() {
    let site = SiteTest::fixture("minimal");
    site.build().success();
    for (path, bytes) in tree(&site.public())
        .into_iter()
        .filter(|(p, _)| p.ends_with(".html"))
    {
        let html = scraper::Html::parse_document(&String::from_utf8(bytes).unwrap());
        for src in attrs(&html, "script, img, iframe, audio, video, source", "src") {
            assert!(!src.contains("//"), "{path}: external src {src}");
        }
        for href in attrs(
            &html,
            "link[rel=stylesheet], link[rel=preload], link[rel=icon]",
            "href",
        ) {
            assert!(!href.contains("//"), "{path}: external resource {href}");
        }
        // JSON-LD is a data block the browser never runs; it must still be data.
        assert!(
            texts(
                &html,
                "script:not([src]):not([type=\"application/ld+json\"])"
            )
            .is_empty(),
            "{path}: inline script"
        );
        for block in texts(&html, "script[type=\"application/ld+json\"]") {
            serde_json::from_str::<serde_json::Value>(&block)
                .unwrap_or_else(|e| panic!("{path}: JSON-LD that is not JSON ({e})"));
        }
        let sel = scraper::Selector::parse("*").unwrap();
        for el in html.select(&sel) {
            for (name, _) in el.value().attrs() {
                assert!(!name.starts_with("on"), "{path}: inline handler {name}");
            }
        }
        assert!(
            texts(&html, "style").is_empty(),
            "{path}: inline style element"
        );
    }
}

#[test]
fn refuses_to_build_over_its_own_sources() {
    let site = SiteTest::fixture("minimal");
    let root = site.root().to_string_lossy().into_owned();
    site.run(&["build", "--output", &root])
        .failure(1)
        .stderr_has("refusing to build into this folder");
    assert!(site.root().join("content/about.md").exists());
}

#[test]
fn usage_errors_exit_2() {
    let site = SiteTest::fixture("minimal");
    assert_eq!(site.run(&["build", "--no-such-flag"]).code, 2);
    assert_eq!(site.run(&["frobnicate"]).code, 2);
    site.run(&["build", "--help"]).success();
}

#[test]
fn init_creates_a_site_that_builds_and_checks() {
    let dir = SiteTest::empty();
    let target = dir.root().join("new-site");
    let target_str = target.to_string_lossy().into_owned();
    dir.run(&["init", &target_str]).success();
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_casebook"))
        .args(["build", "--root", &target_str])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(target.join("public/cases/example-0001/index.html").exists());
    assert!(
        target
            .join("public/cases/location/north/index.html")
            .exists()
    );
    let check = std::process::Command::new(env!("CARGO_BIN_EXE_casebook"))
        .args(["check", "--root", &target_str])
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    // A second init refuses to overwrite.
    assert_eq!(dir.run(&["init", &target_str]).code, 1);
}

#[test]
fn rebuilds_update_changed_files_remove_stale_ones_and_keep_the_rest() {
    let site = SiteTest::fixture("minimal");
    site.build().success();
    let about_mtime = std::fs::metadata(site.public().join("about/index.html"))
        .unwrap()
        .modified()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let site = site.remove("content/docs/plain-a.md").edit(
        "content/docs/plain-b.md",
        "Plain B.",
        "Plain B, edited.",
    );
    site.build().success();
    site.build().success(); // the staging copy now holds the previous build: sync it again
    assert!(
        !site.exists("docs/plain-a/index.html"),
        "a removed page disappears"
    );
    assert!(
        site.file("docs/plain-b/index.html")
            .contains("Plain B, edited.")
    );
    let after = std::fs::metadata(site.public().join("about/index.html"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(about_mtime, after, "an unchanged page is not rewritten");
    // The result equals a fresh build of the same input.
    let fresh = SiteTest::fixture("minimal")
        .remove("content/docs/plain-a.md")
        .edit("content/docs/plain-b.md", "Plain B.", "Plain B, edited.");
    assert_same_as_fresh(&site, fresh);
}

#[test]
fn refuses_to_replace_a_folder_that_is_not_a_build() {
    let site = SiteTest::fixture("minimal").write("elsewhere/notes.txt", "keep me");
    let out = site.root().join("elsewhere").to_string_lossy().into_owned();
    site.run(&["build", "--output", &out])
        .failure(1)
        .stderr_has("does not look like a casebook build");
    assert_eq!(
        std::fs::read_to_string(site.root().join("elsewhere/notes.txt")).unwrap(),
        "keep me"
    );
}

/// The `(N pages rendered, M files changed)` counts of a build's summary line.
fn rendered_and_changed(run: &Run) -> (usize, usize) {
    let counts = run
        .stdout
        .rsplit_once('(')
        .map(|(_, tail)| tail.to_string())
        .unwrap_or_default();
    let numbers: Vec<usize> = counts
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect();
    // (Then a count of photographs derived, if any.)
    assert!(numbers.len() >= 2, "no counts in {:?}", run.stdout);
    (numbers[0], numbers[1])
}

#[test]
fn a_rebuild_renders_and_writes_only_what_its_changes_touch() {
    let site = SiteTest::fixture("minimal");
    let first = site.build();
    first.success();
    let (rendered, changed) = rendered_and_changed(&first);
    assert!(
        rendered > 20 && changed > 20,
        "a first build makes everything: {}",
        first.stdout
    );
    // What the next build reuses: the record of what was published, and the search index
    // with each document's terms (used again only for the same inputs: the fresh-build
    // comparison below covers it). Those two are sealed with the key beside the output
    // folder, which does not exist until the first build writes it: they are sealed then.
    let cache = site.root().join(".casebook-cache");
    assert!(cache.join("published.bin").exists());
    for kept in ["search.bin", "terms.bin"] {
        let sealed = std::fs::read(cache.join(kept)).unwrap();
        let body = sealed[..sealed.len() - 32].to_vec();
        assert!(
            crate::support::seal_journal(&site.public(), body) == sealed,
            "{kept}"
        );
        assert!(!cache.join(format!("{kept}.unsealed")).exists());
    }
    // Nothing changed: nothing is rendered or written.
    let again = site.build();
    assert_eq!(
        rendered_and_changed(again.success()),
        (0, 0),
        "{}",
        again.stdout
    );

    // One case's narrative: its page, and the whole-site files that list it.
    let site = site.edit(
        "content/cases/c-002/index.md",
        "Narrative of c-002.",
        "Narrative of c-002, corrected.",
    );
    let edited = site.build();
    let (rendered, changed) = rendered_and_changed(edited.success());
    assert!((1..6).contains(&rendered), "{}", edited.stdout);
    // (In a site this small, every proof shares the one Merkle chunk; search files are
    // named by volumes of 16, so a changed term shard renames the shards of its volume, with
    // their positions files, and a changed record the record chunks of its volume.)
    assert!((1..30).contains(&changed), "{}", edited.stdout);
    assert!(site.file("cases/c-002/index.html").contains("corrected"));
    let fresh = SiteTest::fixture("minimal").edit(
        "content/cases/c-002/index.md",
        "Narrative of c-002.",
        "Narrative of c-002, corrected.",
    );
    assert_same_as_fresh(&site, fresh);

    // A template: every page that uses it. Another base URL: every page.
    let site = site.write(
        "templates/page.html",
        "{% extends \"base.html\" %}{% block content %}<p class=\"custom\">{{ page.title }}</p>{% endblock content %}",
    );
    let (rendered, _) = rendered_and_changed(site.build().success());
    assert!(rendered > 20);
    assert_eq!(texts(&site.html("about/index.html"), "p.custom"), ["About"]);
    let moved = site.run(&["build", "--base-url", "https://mirror.example.org/archive/"]);
    assert!(rendered_and_changed(moved.success()).0 > 20);
    assert!(
        site.file("about/index.html")
            .contains("https://mirror.example.org/archive/")
    );
}

#[test]
fn a_listed_title_edit_renders_every_list_that_shows_it_again() {
    // A list page's fingerprint takes each listed case's item by its hash: a change to the
    // item must still reach every list that shows it (its section, each facet value).
    let site = SiteTest::fixture("minimal");
    site.build().success();
    let lists = [
        "cases/page/3/index.html",
        "cases/branch/215/index.html",
        "cases/indicator/beating/page/2/index.html",
        "cases/year/2012/index.html",
        "cases/year/2012/03/index.html",
    ];
    for list in lists {
        assert!(site.file(list).contains("Case two"), "{list}");
    }
    let site = site.edit(
        "content/cases/c-002/index.md",
        "title = \"Case two\"",
        "title = \"Case two, retitled\"",
    );
    let edited = site.build();
    let (rendered, _) = rendered_and_changed(edited.success());
    // The case page and each list.
    assert!(rendered > lists.len(), "{}", edited.stdout);
    for list in lists {
        assert!(site.file(list).contains("Case two, retitled"), "{list}");
    }
    let fresh = SiteTest::fixture("minimal").edit(
        "content/cases/c-002/index.md",
        "title = \"Case two\"",
        "title = \"Case two, retitled\"",
    );
    assert_same_as_fresh(&site, fresh);
}

#[test]
fn a_case_value_edit_reaches_its_page_in_a_one_shot_build() {
    // A page's fingerprint takes a case's values as parsed (not their labels, dates and
    // facet links): a changed value, a changed date and a new list entry must each render
    // the case page again, as a build from scratch does.
    let edits = [
        ("number = 102", "number = 1020"),
        ("photographed = 2012-03-04", "photographed = 2012-03-05"),
        (
            "indicators = [\"beating\"]",
            "indicators = [\"beating\", \"eye-injury\"]",
        ),
    ];
    let mut site = SiteTest::fixture("minimal");
    site.build().success();
    let mut done: Vec<(&str, &str)> = Vec::new();
    for (from, to) in edits {
        site = site.edit("content/cases/c-002/index.md", from, to);
        done.push((from, to));
        let edited = site.build();
        let (rendered, _) = rendered_and_changed(edited.success());
        assert!(rendered >= 1, "{to}: {}", edited.stdout);
        // After each edit: a list showing the case's columns must follow too (the date's
        // year and month stay, so no facet count moves to render the lists again).
        let fresh = (done.iter()).fold(SiteTest::fixture("minimal"), |fresh, (from, to)| {
            fresh.edit("content/cases/c-002/index.md", from, to)
        });
        assert_same_as_fresh(&site, fresh);
    }
    let page = site.file("cases/c-002/index.html");
    assert!(
        page.contains("1020") && page.contains("5 March 2012"),
        "{page}"
    );
    assert!(
        site.file("cases/page/3/index.html")
            .contains("5 March 2012")
    );
}

#[test]
fn a_one_case_edit_rewrites_only_the_proofs_that_share_its_merkle_chunks() {
    // Enough cases for several chunks of 64 leaves: a proof stops at its chunks, so an edit
    // elsewhere leaves it as it was, while the root and the chunk list move.
    let mut site = SiteTest::fixture("minimal");
    for n in 0..300 {
        site = site.write(
            &format!("content/cases/m-{n:03}/index.md"),
            &format!(
                "+++\ntitle = \"Case m-{n:03}\"\ncase_id = \"m-{n:03}\"\nnumber = {}\nbranch = \"215\"\nphotographed = 2012-03-04\nindicators = [\"beating\"]\nsynthetic = true\n+++\n\nNarrative of m-{n:03}.\n",
                1000 + n
            ),
        );
    }
    let build = |site: &SiteTest| site.run(&["build", "--proofs"]);
    build(&site).success();
    // Case -> (the shard holding its proof, the proof); and each shard's bytes.
    type Proofs = std::collections::BTreeMap<String, (String, serde_json::Value)>;
    let proofs = |site: &SiteTest| -> (Proofs, Vec<(String, Vec<u8>)>) {
        let shards: Vec<(String, Vec<u8>)> = tree(&site.public().join("verify/proofs"))
            .into_iter()
            .filter(|(path, _)| path != "index.json")
            .collect();
        let mut by_case = Proofs::new();
        for (path, bytes) in &shards {
            let shard: serde_json::Value = serde_json::from_slice(bytes).unwrap();
            for proof in shard["proofs"].as_array().unwrap() {
                let case = proof["case"].as_str().unwrap().to_string();
                by_case.insert(case, (path.clone(), proof.clone()));
            }
        }
        (by_case, shards)
    };
    let leaves = |site: &SiteTest| -> Vec<serde_json::Value> {
        let manifest: serde_json::Value =
            serde_json::from_str(&site.file("manifest.json")).unwrap();
        manifest["files"].as_array().unwrap().clone()
    };
    let ((proofs_before, shards_before), leaves_before) = (proofs(&site), leaves(&site));
    let chunks_before = site.file("verify/chunks.json");
    let site = site.edit(
        "content/cases/m-200/index.md",
        "Narrative of m-200.",
        "Narrative of m-200, corrected.",
    );
    let edited = build(&site);
    let (_, changed) = rendered_and_changed(edited.success());
    let ((proofs_after, shards_after), leaves_after) = (proofs(&site), leaves(&site));
    assert_eq!(leaves_before.len(), leaves_after.len());
    assert_ne!(site.file("verify/chunks.json"), chunks_before);
    // Exactly the proofs with a leaf in a chunk where a file changed are made again.
    let touched: std::collections::BTreeSet<u64> = leaves_before
        .iter()
        .zip(&leaves_after)
        .enumerate()
        .filter(|(_, (b, a))| b != a)
        .map(|(i, _)| i as u64 / 64)
        .collect();
    assert!(!touched.is_empty());
    assert_eq!(proofs_before.len(), proofs_after.len());
    let (mut rewritten, mut proofs_changed) = (std::collections::BTreeSet::new(), 0);
    for ((case, before), (_, after)) in proofs_before.iter().zip(&proofs_after) {
        let proof = &after.1;
        let mut indices: Vec<u64> = proof["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["index"].as_u64().unwrap())
            .collect();
        indices.push(proof["case_index"].as_u64().unwrap());
        let shares = indices.iter().any(|i| touched.contains(&(i / 64)));
        assert_eq!(before.1 != after.1, shares, "{case}");
        if shares {
            rewritten.insert(after.0.clone());
            proofs_changed += 1;
        }
    }
    // Only the shards holding such a proof are written again.
    assert_eq!(shards_before.len(), shards_after.len());
    let shards_changed: std::collections::BTreeSet<String> = shards_before
        .iter()
        .zip(&shards_after)
        .filter(|(b, a)| b != a)
        .map(|(_, a)| a.0.clone())
        .collect();
    assert_eq!(shards_changed, rewritten);
    assert!(
        proofs_changed < proofs_before.len() / 2,
        "{proofs_changed} of {} proofs changed",
        proofs_before.len()
    );
    // The pages, whole-site files and search files the edit touches, and the shards. Search
    // files are named by volumes of 16: the edit renames a volume of term shards, its
    // positions files and a volume of record chunks (at most 48), whatever the archive's size.
    assert!(
        changed < 17 + 48 + rewritten.len(),
        "{} shards: {}",
        rewritten.len(),
        edited.stdout
    );
    // The untouched proofs still lead to the new root: the whole folder verifies.
    site.run(&["verify", &site.public().to_string_lossy()])
        .success();
}

#[test]
fn files_changed_by_hand_are_put_right_and_a_lost_cache_only_costs_time() {
    let site = SiteTest::fixture("minimal");
    site.build().success();
    let good = tree(&site.public());
    // A page edited, one deleted, a stray file added, all behind casebook's back.
    std::fs::write(site.public().join("about/index.html"), "defaced").unwrap();
    std::fs::remove_file(site.public().join("cases/c-001/index.html")).unwrap();
    std::fs::write(site.public().join("cases/stray.html"), "stray").unwrap();
    // The manifest, which a build leaves as it is when nothing in it changed.
    std::fs::write(site.public().join("manifest.json"), "{}").unwrap();
    let repaired = site.build();
    assert_eq!(rendered_and_changed(repaired.success()), (2, 4));
    assert!(tree(&site.public()) == good, "the output is put right");
    // Without the record, files are compared with what is there: nothing is rewritten.
    std::fs::remove_dir_all(site.root().join(".casebook-cache")).unwrap();
    let uncached = site.build();
    let (rendered, changed) = rendered_and_changed(uncached.success());
    assert!(rendered > 20);
    assert_eq!(changed, 0);
    assert!(tree(&site.public()) == good);
}

#[test]
fn a_build_stopped_after_its_commit_is_completed_by_the_next() {
    let site = SiteTest::fixture("minimal");
    site.build().success();
    let before = tree(&site.public());
    // What a stopped update leaves: pending files, and a journal naming them. Simulated by
    // hand, since the real window is a few milliseconds.
    let pending = site.root().join(".public.casebook-pending");
    std::fs::create_dir_all(&pending).unwrap();
    std::fs::write(pending.join("0"), "<p>half-way</p>").unwrap();
    // Its layout: a magic line, `V` (a file that replaces one), the pending name and the
    // output path (each after its length), then a checksum of all that, then the seal of
    // this output on this machine.
    let mut journal = b"casebook-journal-4\nV".to_vec();
    for field in ["0", "about/index.html"] {
        journal.extend_from_slice(&(field.len() as u32).to_le_bytes());
        journal.extend_from_slice(field.as_bytes());
    }
    let sum = xxhash_rust::xxh3::xxh3_128(&journal);
    journal.extend_from_slice(&sum.to_le_bytes());
    let journal = crate::support::seal_journal(&site.public(), journal);
    std::fs::write(pending.join("journal"), journal).unwrap();
    // Even a failing build completes it first, then fails without writing.
    let site = site.edit("content/about.md", "weight = 9", "weight = \"nine\"");
    site.build().failure(1);
    assert_eq!(site.file("about/index.html"), "<p>half-way</p>");
    assert!(!pending.exists());
    // The next good build puts the page right.
    let site = site.edit("content/about.md", "weight = \"nine\"", "weight = 9");
    site.build().success();
    assert!(tree(&site.public()) == before);
}

#[test]
fn timings_show_the_disk_apart() {
    let site = SiteTest::fixture("minimal");
    let first = site.run(&["build", "--timings"]);
    // The sources' walk, before anything is loaded, is timed too.
    first
        .success()
        .stderr_has("sources walked")
        .stderr_has("render pages");
    first.stderr_has("write: files").stderr_has("write: commit");
    // A rebuild scans the output first, and only compares when nothing changed.
    let again = site.run(&["build", "--timings"]);
    again
        .success()
        .stderr_has("scan output")
        .stderr_has("write: compare");
    assert!(!again.stderr.contains("write: files"), "{}", again.stderr);
}

#[cfg(unix)]
#[test]
fn the_output_and_the_cache_are_checked_where_links_lead() {
    use std::os::unix::fs::symlink;
    let site = SiteTest::fixture("minimal");
    // An --output through a link to the content folder: the text says elsewhere.
    let elsewhere = tempfile::tempdir().unwrap();
    let link = elsewhere.path().join("site-content");
    symlink(site.root().join("content"), &link).unwrap();
    let out = link.join("public");
    site.run(&["build", "--output", out.to_str().unwrap()])
        .failure(1)
        .stderr_has("refusing to build into this folder (resolved through links to")
        .stderr_has("inside the site's content/ folder");
    assert!(!site.root().join("content/public").exists());
    // `..` that climbs back into the site.
    let dotted = site.root().join("public/../static/out");
    site.run(&["build", "--output", dotted.to_str().unwrap()])
        .failure(1)
        .stderr_has("inside the site's static/ folder");
    // An output that would hold the cache, or sit inside it.
    let cache = site.root().join(".casebook-cache");
    site.run(&["build", "--output", cache.join("out").to_str().unwrap()])
        .failure(1)
        .stderr_has("inside the cache folder");
    // A cache inside content/ (its index holds this machine's paths) is refused, even
    // through a link.
    let config = std::fs::read_to_string(site.root().join("casebook.toml")).unwrap();
    let cached_in_content = site.write(
        "casebook.toml",
        &format!("{config}\n[images]\ncache_dir = \"content/.cache\"\n"),
    );
    for command in ["build", "check"] {
        cached_in_content
            .run(&[command])
            .failure(1)
            .stderr_has("images.cache_dir: the cache folder `content/.cache` is inside content/");
    }
    let site = cached_in_content;
    symlink(
        site.root().join("static-real"),
        site.root().join("cache-link"),
    )
    .unwrap();
    std::fs::create_dir_all(site.root().join("static-real")).unwrap();
    let site = site.write(
        "casebook.toml",
        &format!("{config}\n[images]\ncache_dir = \"cache-link\"\n"),
    );
    site.build().success();
    // Linked into static/, the cache would be published: refused.
    std::fs::remove_file(site.root().join("cache-link")).unwrap();
    std::fs::create_dir_all(site.root().join("static")).unwrap();
    symlink(site.root().join("static"), site.root().join("cache-link")).unwrap();
    site.build().failure(1).stderr_has("is inside static/");
    let published: Vec<String> = tree(&site.public()).into_iter().map(|(p, _)| p).collect();
    assert!(
        published.iter().all(|p| !p.ends_with(".bin")),
        "nothing of the cache is published: {published:?}"
    );
}

#[cfg(unix)]
#[test]
fn symbolic_links_in_content_are_left_out_with_a_warning() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "not for publication").unwrap();
    let site = SiteTest::fixture("minimal");
    std::fs::create_dir_all(site.root().join("content/docs")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        site.root().join("content/docs/notes.txt"),
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path(), site.root().join("content/elsewhere")).unwrap();
    std::fs::create_dir_all(site.root().join("static")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        site.root().join("static/notes.txt"),
    )
    .unwrap();
    let run = site.build();
    run.success()
        .stderr_has("warning: content/docs/notes.txt: a symbolic link: left out of the site")
        .stderr_has("warning: content/elsewhere: a symbolic link")
        .stderr_has("warning: static/notes.txt: a symbolic link: left out of the site");
    assert!(!site.exists("notes.txt"));
    for (path, bytes) in tree(&site.public()) {
        assert!(
            !String::from_utf8_lossy(&bytes).contains("not for publication"),
            "{path} carries the linked file"
        );
    }
    site.run(&["check"])
        .success()
        .stderr_has("warning: content/docs/notes.txt");
}
