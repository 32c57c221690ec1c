//! The bundled Caesar-report site: it builds, checks clean, and every sample case is
//! marked synthetic in its data and on its page.

use crate::support::{bundled, repo_root, texts};

#[test]
fn bundled_site_checks_clean() {
    let run = bundled().run(&["check"]);
    run.success();
    // Every sample photograph was redacted and reviewed in the workbench, and its review
    // still covers it: a change to a region or a sample image must be reviewed again.
    let all = std::fs::read_dir(repo_root().join("content/cases"))
        .unwrap()
        .map(|e| e.unwrap().path().join("index.md"))
        .filter(|p| p.exists())
        .map(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .matches("[[photos]]")
                .count()
        })
        .sum::<usize>();
    assert!(all >= 50, "{all}");
    let out = format!("{}{}", run.stdout, run.stderr);
    assert!(out.contains("\n0 of "), "{out}");
    assert!(out.contains(" not reviewed"), "{out}");
}

#[test]
fn bundled_site_has_the_promised_pages() {
    let site = bundled();
    site.build().success();
    for page in [
        "report/index.html",
        "authors/desmond-de-silva/index.html",
        "authors/geoffrey-nice/index.html",
        "authors/david-crane/index.html",
        "methodology/index.html",
        "timeline/index.html",
        "sources/index.html",
        "about/index.html",
        "verify/index.html",
        "cases/index.html",
        "cases/branch/s1/index.html",
        "cases/indicator/starvation/index.html",
        "cases/year/2012/index.html",
        "cases/age/index.html",
        "cases/sex/index.html",
        "cases/status/index.html",
    ] {
        assert!(site.exists(page), "missing {page}");
    }
    let home = site.html("index.html");
    assert_eq!(texts(&home, ".content-warning").len(), 1);
}

#[test]
fn every_sample_case_is_synthetic_in_data_and_on_its_page() {
    let site = bundled();
    site.build().success();
    let doc: serde_json::Value = serde_json::from_str(&site.file("data/cases.json")).unwrap();
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() >= 24, "only {} sample cases", cases.len());
    for case in cases {
        assert_eq!(case["synthetic"], true, "{}", case["case_id"]);
        let id = case["case_id"].as_str().unwrap();
        let page = site.html(&format!("cases/{id}/index.html"));
        assert_eq!(
            texts(&page, ".synthetic-notice").len(),
            1,
            "{id} lacks the synthetic notice"
        );
        assert_eq!(
            texts(&page, ".content-warning").len(),
            1,
            "{id} lacks the content warning"
        );
    }
    // Every sample case has one to three synthetic photographs, each with a redaction.
    let manifest: serde_json::Value = serde_json::from_str(&site.file("manifest.json")).unwrap();
    let images = manifest["images"].as_array().unwrap();
    for case in cases {
        let id = case["case_id"].as_str().unwrap();
        let sources: std::collections::BTreeSet<&str> = images
            .iter()
            .filter(|i| {
                i["path"]
                    .as_str()
                    .unwrap()
                    .starts_with(&format!("cases/{id}/"))
            })
            .map(|i| i["source"].as_str().unwrap())
            .collect();
        assert!(
            (1..=3).contains(&sources.len()),
            "{id} has {} photographs",
            sources.len()
        );
    }
    assert!(
        images
            .iter()
            .all(|i| !i["redactions"].as_array().unwrap().is_empty()
                || i["path"].as_str().unwrap().starts_with("methodology"))
    );
    let page = site.html("cases/syn-0001/index.html");
    for alt in crate::support::attrs(&page, "img.photo-image", "alt") {
        assert!(alt.starts_with("Synthetic"), "{alt}");
    }
    site.run(&["verify", &site.public().to_string_lossy()])
        .success();
    // Lists that show sample cases say so too.
    for list in ["cases/index.html", "cases/branch/s1/index.html"] {
        assert_eq!(
            texts(&site.html(list), ".synthetic-notice").len(),
            1,
            "{list}"
        );
    }
}

#[test]
fn the_text_licence_is_declared_in_every_footer_in_the_feeds_and_on_its_page() {
    let site = bundled();
    site.build().success();
    const TERMS: &str = "https://creativecommons.org/licenses/by/4.0/";
    for (page, label) in [
        ("cases/syn-0001/index.html", "Text licence:"),
        ("ar/cases/syn-0001/index.html", "رخصة النصوص:"),
        ("index.html", "Text licence:"),
    ] {
        let html = site.html(page);
        assert_eq!(
            crate::support::attrs(&html, "footer a[rel=license]", "href"),
            [TERMS],
            "{page}"
        );
        let footer = texts(&html, "footer li").join(" ");
        assert!(
            footer.contains(&format!("{label} CC BY 4.0")),
            "{page}: {footer}"
        );
    }
    for feed in ["atom.xml", "ar/atom.xml"] {
        let xml = site.file(feed);
        assert!(
            xml.contains(&format!("<link rel=\"license\" href=\"{TERMS}\"/>"))
                && xml.contains("<rights>CC BY 4.0</rights>"),
            "{feed}"
        );
    }
    for page in ["licence/index.html", "ar/licence/index.html"] {
        let text = texts(&site.html(page), "main").join(" ");
        assert!(text.contains("CC BY 4.0") && text.contains("MIT"), "{page}");
    }
    let licences = ["LICENSE-MIT", "LICENSE-APACHE"].map(|f| repo_root().join(f));
    assert!(licences.iter().all(|f| f.is_file()), "{licences:?}");
    let cargo = std::fs::read_to_string(repo_root().join("Cargo.toml")).unwrap();
    assert!(cargo.contains("\nlicense = \"MIT OR Apache-2.0\"\n"));
}
