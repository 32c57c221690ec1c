//! The open-data export: `data/cases.json` and `data/cases.csv`.

use crate::support::SiteTest;

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
