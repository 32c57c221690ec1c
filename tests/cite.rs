//! "Cite this" (issue 44, item 2): a case page's citation is read by the tools researchers
//! and search engines use. The CSL-JSON renders in two styles with citeproc-py, the BibTeX
//! and RIS parse (bibtexparser, rispy), and extruct finds the JSON-LD and Dublin Core tags
//! (`tests/cite/check.py`; `.ci/run` installs the tools into `target/pycite`).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{SiteTest, attrs, bundled, json_printed_by, repo_root, texts};

/// Where the Python tools are, or `None` with how to get them.
fn tools() -> Option<PathBuf> {
    let dir = std::env::var_os("CASEBOOK_PYCITE")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target/pycite"));
    if !dir.join("citeproc").is_dir() || !dir.join("extruct").is_dir() {
        crate::support::missing_tool(&format!(
            "citeproc-py, bibtexparser, rispy and extruct not found in {}: python3 -m pip install --target target/pycite citeproc-py==0.8.2 bibtexparser==1.4.3 rispy==0.9.0 extruct==0.18.0 (or set CASEBOOK_PYCITE)",
            dir.display()
        ));
        return None;
    }
    Some(dir)
}

/// The citation of a built page as the tools read it from its downloads and its HTML.
fn read(site: &SiteTest, page: &str, tools: &Path) -> serde_json::Value {
    let html = site.html(page);
    let dir = site.root().join("cite-check");
    std::fs::create_dir_all(&dir).unwrap();
    let hrefs = attrs(&html, ".citation-downloads a", "href");
    assert_eq!(hrefs.len(), 3, "{page}: {hrefs:?}");
    let mut files = Vec::new();
    for (name, href) in ["c.json", "c.bib", "c.ris"].into_iter().zip(&hrefs) {
        use base64::Engine as _;
        let data = href
            .split_once(";base64,")
            .expect("a base64 data: address")
            .1;
        let download = base64::engine::general_purpose::STANDARD
            .decode(data)
            .unwrap();
        let file = dir.join(name);
        std::fs::write(&file, download).unwrap();
        files.push(file);
    }
    json_printed_by(
        Command::new("python3")
            .arg(repo_root().join("tests/cite/check.py"))
            .arg(site.public().join(page))
            .args(&files)
            .arg(repo_root().join("tests/cite/plain-note.csl"))
            .env("PYTHONPATH", tools)
            .env("PYTHONWARNINGS", "ignore"),
        "tests/cite/check.py",
    )
}

#[test]
fn a_case_and_the_archive_cite_themselves_in_every_format_the_tools_read() {
    let Some(tools) = tools() else { return };
    let site = bundled();
    site.build().success();
    let url = "https://example.org/caesar/cases/syn-0001/";
    let title = "Sample case SYN-0001 (synthetic)";
    let got = read(&site, "cases/syn-0001/index.html", &tools);
    for style in ["harvard1", "note"] {
        let text = got[style][0].as_str().unwrap();
        assert!(
            text.contains(title) && text.contains(url) && text.contains("The casebook maintainers"),
            "{style}: {text}"
        );
    }
    let note = got["note"][0].as_str().unwrap();
    assert!(note.contains("The Caesar Files, syn-0001, "), "{note}");
    let bib = &got["bibtex"][0];
    assert_eq!(bib["ID"], "casebook-syn-0001");
    assert_eq!(bib["ENTRYTYPE"], "misc");
    assert_eq!(bib["number"], "syn-0001");
    assert_eq!(bib["url"], url);
    let ris = &got["ris"][0];
    assert_eq!(ris["type_of_reference"], "GEN");
    assert_eq!(ris["title"], title);
    assert_eq!(ris["secondary_title"], "The Caesar Files");
    assert_eq!(ris["urls"][0], url);
    let ld = &got["json_ld"][0];
    assert_eq!(ld["@type"], "ArchiveComponent");
    assert_eq!(ld["identifier"], "syn-0001");
    assert_eq!(ld["url"], url);
    assert_eq!(ld["isPartOf"]["@type"], "Dataset");
    assert_eq!(
        ld["license"],
        "https://creativecommons.org/licenses/by/4.0/"
    );
    let dc = got["dublincore"][0]["elements"].as_array().unwrap();
    let dc_value = |name: &str| -> Vec<String> {
        dc.iter()
            .filter(|e| e["name"] == name)
            .map(|e| e["content"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(dc_value("DC.title"), [title]);
    assert_eq!(dc_value("DC.identifier"), [url, "syn-0001"]);
    assert_eq!(got["highwire"]["citation_title"][0], title);
    assert_eq!(got["highwire"]["citation_public_url"][0], url);
    assert!(got["highwire"]["citation_date"][0].is_string());

    // The archive's own, on its home page: a Dataset with its exports.
    let home = read(&site, "index.html", &tools);
    let ld = &home["json_ld"][0];
    assert_eq!(ld["@type"], "Dataset");
    assert_eq!(ld["name"], "The Caesar Files");
    let formats: Vec<&str> = ld["distribution"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["encodingFormat"].as_str().unwrap())
        .collect();
    assert_eq!(formats, ["application/json", "text/csv"]);
    assert_eq!(home["ris"][0]["type_of_reference"], "DATA");
    assert!(
        home["harvard1"][0]
            .as_str()
            .unwrap()
            .contains("The Caesar Files")
    );

    // The Arabic edition cites in Arabic where the site translates.
    let ar = read(&site, "ar/cases/syn-0001/index.html", &tools);
    let page = site.html("ar/cases/syn-0001/index.html");
    assert_eq!(texts(&page, "#cite-title"), ["استشهد بهذه الحالة"]);
    let text = texts(&page, ".citation-text").join("");
    assert!(
        text.starts_with("القائمون على casebook. «") && text.contains("(الحالة syn-0001)"),
        "{text}"
    );
    assert_eq!(
        ar["json_ld"][0]["publisher"]["name"],
        "القائمون على casebook"
    );
    assert_eq!(ar["ris"][0]["language"], "ar");
    assert_eq!(ar["json_ld"][0]["inLanguage"], "ar");
    assert_eq!(
        ar["json_ld"][0]["url"],
        "https://example.org/caesar/ar/cases/syn-0001/"
    );
    assert_eq!(ar["bibtex"][0]["language"], "ar");
}

/// A case's citation carries the release's date, the newest of any page's: a one-shot
/// build after another page's `updated` moves it must cite the new date on every case page,
/// as a build from scratch does (a page's fingerprint stands for its citation).
#[test]
fn a_newer_release_date_reaches_every_case_citation_in_a_one_shot_build() {
    let (from, to) = ("updated = 2026-12-06", "updated = 2027-01-02");
    let site = bundled();
    site.build().success();
    let before = site.file("cases/syn-0001/index.html");
    assert!(before.contains("2026-12-06") && !before.contains("2027-01-02"));
    let site = site.edit("content/licence.md", from, to);
    site.build().success();
    let after = site.file("cases/syn-0001/index.html");
    assert!(
        after.contains("2027-01-02"),
        "the case page cites the new date"
    );
    crate::support::assert_same_as_fresh(&site, bundled().edit("content/licence.md", from, to));
}
