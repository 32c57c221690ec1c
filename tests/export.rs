//! The open-data export: `data/cases.json` and `data/cases.csv`.

use crate::support::{Edit, EditedFixture, SiteTest, assert_same_as_fresh, settle};

#[test]
fn json_has_every_case_with_fields_and_url() {
    let site = SiteTest::fixture("minimal");
    site.build().success();
    let doc: serde_json::Value = serde_json::from_str(&site.file("data/cases.json")).unwrap();
    assert_eq!(doc["count"], 5);
    let cases = doc["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 5);
    let first = &cases[0];
    assert_eq!(first["case_id"], "c-001");
    assert_eq!(first["number"], 101);
    assert_eq!(first["branch"], "215");
    assert_eq!(first["photographed"], "2011-06-01");
    assert_eq!(
        first["indicators"],
        serde_json::json!(["starvation", "beating"])
    );
    assert_eq!(first["synthetic"], true);
    assert_eq!(first["note"], serde_json::Value::Null);
    assert_eq!(first["url"], "https://example.org/cases/c-001/");
    assert_eq!(doc["fields"].as_array().unwrap().len(), 7);
}

#[test]
fn csv_opens_cleanly_in_a_spreadsheet() {
    let site = SiteTest::fixture("minimal");
    site.build().success();
    let bytes = std::fs::read(site.public().join("data/cases.csv")).unwrap();
    assert!(
        bytes.starts_with("\u{feff}".as_bytes()),
        "UTF-8 byte-order mark for Excel"
    );
    let text = String::from_utf8(bytes).unwrap();
    let lines: Vec<&str> = text.trim_start_matches('\u{feff}').split("\r\n").collect();
    assert_eq!(
        lines[0],
        "case_id,number,branch,photographed,indicators,note,synthetic,title,url"
    );
    assert_eq!(
        lines[1],
        "c-001,101,215,2011-06-01,starvation; beating,,true,Case one,https://example.org/cases/c-001/"
    );
    assert_eq!(lines.len(), 7, "header, five rows, final CRLF");
    // A cell a spreadsheet would run as a formula is neutralised.
    assert!(
        lines[5].contains("\"'=HYPERLINK(\"\"x\"\")\""),
        "{}",
        lines[5]
    );
    let mut reader = csv::Reader::from_reader(text.trim_start_matches('\u{feff}').as_bytes());
    assert_eq!(reader.records().count(), 5);
}

#[test]
fn formula_like_titles_and_values_round_trip_through_import() {
    // Each would run as a formula in a spreadsheet; the export escapes them with `'` as
    // import expects, so importing the site's own export changes nothing.
    let titles = [
        ("c-001", "Case one", r#" =1+1"#),
        ("c-002", "Case two", r#"\t=x"#),
        ("c-003", "Case three", "@x"),
        ("c-004", "Case four", "-x"),
        ("c-005", "<script>alert(1)</script>", "+x"),
    ];
    let mut site = SiteTest::fixture("minimal");
    for (id, from, to) in titles {
        site = site.edit(
            &format!("content/cases/{id}/index.md"),
            &format!("title = \"{from}\""),
            &format!("title = \"{to}\""),
        );
    }
    let site = site.edit(
        "content/cases/c-001/index.md",
        "synthetic = true",
        "synthetic = true\nnote = \"'=quoted already\"",
    );
    site.build().success();
    let csv = site.file("data/cases.csv");
    for cell in ["' =1+1", "'\t=x", "'@x", "'-x", "'+x", "''=quoted already"] {
        assert!(
            csv.contains(&format!(",{cell},")) || csv.contains(&format!(",{cell}\r")),
            "{cell:?} in {csv}"
        );
    }
    let before = crate::support::tree(&site.root().join("content"));
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_casebook"))
        .args(["import", "public/data/cases.csv"])
        .current_dir(site.root())
        .output()
        .unwrap();
    let run = crate::support::Run::from(run);
    run.success();
    assert!(
        run.stdout
            .ends_with("0 created, 0 changed, 5 unchanged, 0 not in the sheet\n"),
        "{}",
        run.stdout
    );
    assert_eq!(before, crate::support::tree(&site.root().join("content")));
}

/// A one-shot build into an existing output takes the export as published while nothing it
/// shows changed (issue 43): each edit below, built into the same output, must give what a
/// build from nothing gives, the export included.
#[test]
fn an_export_taken_as_published_is_made_again_when_what_it_shows_changes() {
    const C2: &str = "content/cases/c-002/index.md";
    const CONFIG: &str = "casebook.toml";
    let edits: [(&str, Edit); 6] = [
        ("a case's narrative (not in the export)", |s| {
            s.edit(C2, "Narrative of c-002.", "Narrative of c-002, edited.")
        }),
        ("a case's value", |s| {
            s.edit(C2, "number = 102", "number = 112")
        }),
        ("a case's list value", |s| {
            s.edit(
                C2,
                "indicators = [\"beating\"]",
                "indicators = [\"starvation\"]",
            )
        }),
        ("a case's title", |s| {
            s.edit(C2, "title = \"Case two\"", "title = \"Case two, retitled\"")
        }),
        ("a field's label", |s| {
            s.edit(CONFIG, "label = \"Number\"", "label = \"Detainee number\"")
        }),
        // Every case's URL.
        ("the site's address", |s| {
            s.edit(
                CONFIG,
                "https://example.org/",
                "https://example.net/archive/",
            )
        }),
    ];
    let mut site = SiteTest::fixture("minimal");
    site.build().success();
    let mut edited = EditedFixture::new("minimal");
    for (i, (what, edit)) in edits.into_iter().enumerate() {
        settle();
        let before = site.file("data/cases.json");
        site = edited.build_after(site, what, edit);
        // Only the narrative is not in the export.
        let changed = site.file("data/cases.json") != before;
        assert_eq!(changed, i > 0, "{what}: export changed: {changed}");
    }
    // Changed by hand in the output: not taken as published, but made again.
    settle();
    std::fs::write(site.public().join("data/cases.csv"), "changed by hand").unwrap();
    site.build().success();
    assert_same_as_fresh(&site, edited.fresh());
}
