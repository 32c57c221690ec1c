//! `casebook import`: case files from CSV, XLSX and ODS sheets, checked cell by cell.

use std::io::Write as _;

use crate::support::{Run, SiteTest, bundled, tree};

/// The minimal fixture's header, as its `data/cases.csv` has it.
const HEADER: &str = "case_id,number,branch,photographed,indicators,note,synthetic,title";

/// Runs `casebook import ARGS` in the site folder, as a publisher would.
fn import(site: &SiteTest, args: &[&str]) -> Run {
    Run::from(
        std::process::Command::new(env!("CARGO_BIN_EXE_casebook"))
            .arg("import")
            .args(args)
            .current_dir(site.root())
            .output()
            .unwrap(),
    )
}

fn content(site: &SiteTest) -> Vec<(String, Vec<u8>)> {
    tree(&site.root().join("content"))
}

fn case_file(site: &SiteTest, id: &str) -> String {
    std::fs::read_to_string(site.root().join(format!("content/cases/{id}/index.md"))).unwrap()
}

/// A CSV as Excel saves it: byte-order mark, CRLF.
fn excel_csv(lines: &[&str]) -> Vec<u8> {
    let mut out = "\u{feff}".as_bytes().to_vec();
    for line in lines {
        out.extend_from_slice(line.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out
}

#[test]
fn a_csv_with_bom_and_crlf_updates_only_the_sheets_fields_and_adds_cases() {
    let before = std::fs::read_to_string(
        crate::support::repo_root().join("tests/fixtures/minimal/content/cases/c-001/index.md"),
    )
    .unwrap();
    // Labels as headers, in another order and case; the note column is absent.
    let site = SiteTest::fixture("minimal").write_bytes(
        "sheet.csv",
        &excel_csv(&[
            "CASE,Branch,number,Photographed,Indicators,Synthetic,title",
            "c-001,227,101,2011-06-01,starvation; beating,true,Case one",
            "c-010,Branch 215,110,2012-02-03,\"eye-injury;beating\",yes,\"A new case, with a comma\"",
        ]),
    );
    let run = import(&site, &["sheet.csv"]);
    run.success();
    assert!(
        run.stdout
            .contains("changed content/cases/c-001/index.md\n  branch: \"215\" -> \"227\"\n"),
        "{}",
        run.stdout
    );
    run.stdout_has("created content/cases/c-010/index.md");
    assert!(
        run.stdout
            .contains("not in the sheet, left as they are: c-002, c-003, c-004, c-005"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("sheet.csv: 1 created, 1 changed, 0 unchanged, 4 not in the sheet"),
        "{}",
        run.stdout
    );
    // One line changed; the narrative and every other key as they were.
    assert_eq!(
        case_file(&site, "c-001"),
        before.replace("branch = \"215\"", "branch = \"227\"")
    );
    assert_eq!(
        case_file(&site, "c-010"),
        "+++\ntitle = \"A new case, with a comma\"\ncase_id = \"c-010\"\nnumber = 110\nbranch = \"215\"\nphotographed = 2012-02-03\nindicators = [\"eye-injury\", \"beating\"]\nsynthetic = true\n+++\n"
    );
    site.build().success();
    assert!(site.exists("cases/c-010/index.html"));
    let csv = site.file("data/cases.csv");
    assert!(csv.contains("c-001,101,227,"), "{csv}");
}

#[test]
fn a_dry_run_shows_each_change_and_writes_nothing() {
    let site = SiteTest::fixture("minimal").write(
        "sheet.csv",
        &format!("{HEADER}\nc-002,102,235,2012-01-01,,Seen twice,true,Case two\nc-011,111,227,2014-01-01,,,false,\n"),
    );
    let before = content(&site);
    let run = import(&site, &["sheet.csv", "--dry-run"]);
    run.success();
    assert_eq!(content(&site), before);
    assert!(
        run.stdout
            .contains("would create content/cases/c-011/index.md"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("would change content/cases/c-002/index.md"),
        "{}",
        run.stdout
    );
    run.stdout_has(
        "1 to create, 1 to change, 0 unchanged, 4 not in the sheet (dry run: nothing was written)",
    );
    // Every changed field, with its old and new value.
    let c002 = case_file(&site, "c-002");
    assert!(c002.contains("branch"), "{c002}");
    run.stdout_has("  note: (none) -> \"Seen twice\"");
}

#[test]
fn an_empty_cell_clears_an_optional_field() {
    let site = SiteTest::fixture("minimal").write(
        "sheet.csv",
        &format!("{HEADER}\nc-005,105,227,2013-05-06,beating,,true,\n"),
    );
    import(&site, &["sheet.csv"]).success();
    let text = case_file(&site, "c-005");
    assert!(!text.contains("note ="), "{text}");
    // No title cell: the title stays.
    assert!(
        text.contains("title = \"<script>alert(1)</script>\""),
        "{text}"
    );
}

#[test]
fn a_semicolon_sheet_through_a_mapping_file_and_the_mapping_saved_for_next_time() {
    let site = SiteTest::fixture("minimal")
        .write(
            "sheet.csv",
            "Ref;No.;Unit;Date seen;Marks;Sample;Scanned by\nc-012;112;Unit A;14/05/2012;Starvation|Beating;1;someone\n",
        )
        .write(
            "map.toml",
            "list_separator = \"|\"\ndate_format = \"%d/%m/%Y\"\n[columns]\n\"Ref\" = \"case_id\"\n\"No.\" = \"number\"\n\"Unit\" = \"branch\"\n\"Date seen\" = \"photographed\"\n\"Marks\" = \"indicators\"\n\"Sample\" = \"synthetic\"\n\"Scanned by\" = \"\"\n[values.branch]\n\"Unit A\" = \"215\"\n",
        );
    let saved = site.root().join("saved.toml");
    import(
        &site,
        &[
            "sheet.csv",
            "--mapping",
            "map.toml",
            "--save-mapping",
            saved.to_str().unwrap(),
        ],
    )
    .success();
    let text = case_file(&site, "c-012");
    assert!(text.contains("branch = \"215\""), "{text}");
    assert!(text.contains("photographed = 2012-05-14"), "{text}");
    assert!(
        text.contains("indicators = [\"starvation\", \"beating\"]"),
        "{text}"
    );
    assert!(text.contains("title = \"Case c-012\""), "{text}");
    let mapping = std::fs::read_to_string(&saved).unwrap();
    assert!(mapping.contains("\"Scanned by\" = \"\""), "{mapping}");
    assert!(mapping.contains("list_separator = \"|\""), "{mapping}");
    // The saved mapping reads the same sheet to the same files: nothing left to change.
    let run = import(&site, &["sheet.csv", "--mapping", saved.to_str().unwrap()]);
    run.success();
    run.stdout_has("0 created, 0 changed, 1 unchanged");
    site.build().success();
}

#[test]
fn a_mapping_to_no_field_is_reported_in_the_mapping_file() {
    let site = SiteTest::fixture("minimal")
        .write("sheet.csv", &format!("{HEADER}\n"))
        .write(
            "map.toml",
            "[columns]\n\"Unit\" = \"brnach\"\n[values.branch]\n\"Unit A\" = \"999\"\n",
        );
    import(&site, &["sheet.csv", "--mapping", "map.toml"])
        .failure(1)
        .stderr_has("map.toml:2:1: columns: column `Unit` is mapped to `brnach`, which is not a case field")
        .stderr_has("did you mean `branch`?")
        .stderr_has("values.branch: \"Unit A\" is translated to `999`, which is not an allowed value of branch");
}

/// Every kind of bad cell in one sheet: all reported, each at its place, nothing written.
#[test]
fn bad_rows_are_each_reported_at_their_cell_and_nothing_is_written() {
    let site = SiteTest::fixture("minimal").write(
        "sheet.csv",
        &[
            HEADER,
            "c-020,120,215,2012-01-01,beating,,true,Fine",
            "c-021,121,999,2012-01-01,,,true,Bad branch",
            "c-022,122,215,2012-02-30,,,true,Bad date",
            "c-020,123,215,2012-01-01,,,true,Twice",
            "C 24,124,215,2012-01-01,,,true,Not URL-safe",
            ",,,,,,,",
            "c-025,=A2+1,215,2012-01-01,,,true,Formula",
            "c-026,126,215,2012-01-01,beatng,,maybe,Bad list and boolean",
            "",
        ]
        .join("\n"),
    );
    let before = content(&site);
    let run = import(&site, &["sheet.csv"]);
    run.failure(1)
        .stderr_has(
            "sheet.csv:3:3: branch: `999` is not an allowed value (expected one of: 215, 227, 235)",
        )
        .stderr_has("sheet.csv:4:4: photographed: `2012-02-30` is not a date written YYYY-MM-DD")
        .stderr_has(
            "sheet.csv:5:1: case_id: case id `c-020` is in the sheet twice (first on line 2)",
        )
        .stderr_has("sheet.csv:6:1: case_id: case id `C 24` cannot be used in a URL")
        .stderr_has("hint: use lowercase letters, digits, `-` and `_`, e.g. `c-24`")
        .stderr_has("sheet.csv:7:1: this row is empty")
        .stderr_has("sheet.csv:8:2: a formula cell (=A2+1): imports take values only")
        .stderr_has("sheet.csv:9:5: indicators: `beatng` is not an allowed value")
        .stderr_has("did you mean `beating`?")
        .stderr_has("sheet.csv:9:7: synthetic: expected true or false, found `maybe`")
        .stderr_has("8 errors found; nothing was written");
    assert_eq!(content(&site), before);
    assert!(!site.root().join("content/cases/c-020").exists());
}

#[test]
fn unknown_and_missing_columns_are_reported_at_the_header() {
    let site = SiteTest::fixture("minimal").write(
        "sheet.csv",
        "case_id,nuber,branch,photographed,synthetic\nc-030,1,215,2012-01-01,true\n",
    );
    let before = content(&site);
    import(&site, &["sheet.csv"])
        .failure(1)
        .stderr_has("sheet.csv:1:2: unknown column `nuber`")
        .stderr_has("did you mean `number`?");
    let site = site.write(
        "sheet.csv",
        "case_id,branch,photographed,synthetic\nc-030,215,2012-01-01,true\n",
    );
    import(&site, &["sheet.csv"])
        .failure(1)
        .stderr_has("sheet.csv:1: number: required column `number` is missing");
    assert_eq!(content(&site), before);
    // Updating existing cases needs no more than the columns it changes.
    let site = site.write("sheet.csv", "case_id,note\nc-001,Seen\n");
    import(&site, &["sheet.csv"]).success();
    assert!(case_file(&site, "c-001").contains("note = \"Seen\""));
}

/// A workbook with a sheet of notes before the cases, dates and numbers as typed cells.
fn workbook(formula: bool) -> Vec<u8> {
    let mut book = rust_xlsxwriter::Workbook::new();
    let notes = book.add_worksheet();
    notes.set_name("Read me").unwrap();
    notes
        .write_string(0, 0, "Cases are on the next sheet")
        .unwrap();
    let cases = book.add_worksheet();
    cases.set_name("Cases").unwrap();
    for (j, h) in HEADER.split(',').enumerate() {
        cases.write_string(0, j as u16, h).unwrap();
    }
    let date = rust_xlsxwriter::Format::new().set_num_format("dd/mm/yyyy");
    for (i, (id, n)) in [("c-040", 140.0), ("c-001", 101.0)].iter().enumerate() {
        let r = i as u32 + 1;
        cases.write_string(r, 0, *id).unwrap();
        cases.write_number(r, 1, *n).unwrap();
        cases.write_string(r, 2, "215").unwrap();
        let d = rust_xlsxwriter::ExcelDateTime::from_ymd(2011, 6, 1).unwrap();
        cases.write_datetime_with_format(r, 3, &d, &date).unwrap();
        cases.write_string(r, 4, "starvation; beating").unwrap();
        cases.write_boolean(r, 6, true).unwrap();
    }
    cases.write_string(1, 7, "From a workbook").unwrap();
    cases.write_string(2, 7, "Case one").unwrap();
    if formula {
        cases
            .write_formula(
                2,
                1,
                rust_xlsxwriter::Formula::new("=100+1").set_result("101"),
            )
            .unwrap();
    }
    book.save_to_buffer().unwrap()
}

#[test]
fn an_xlsx_sheet_is_read_by_name_with_typed_dates_and_numbers() {
    let site = SiteTest::fixture("minimal").write_bytes("cases.xlsx", &workbook(false));
    // The first sheet is read unless told otherwise: its one column is no case field.
    import(&site, &["cases.xlsx"])
        .failure(1)
        .stderr_has("cases.xlsx:Read me:A1: unknown column `Cases are on the next sheet`");
    import(&site, &["cases.xlsx", "--sheet", "Cses"])
        .failure(1)
        .stderr_has("there is no sheet named `Cses`")
        .stderr_has("did you mean `Cases`?");
    let run = import(&site, &["cases.xlsx", "--sheet", "Cases"]);
    run.success();
    run.stdout_has("1 created, 0 changed, 1 unchanged");
    let text = case_file(&site, "c-040");
    assert!(text.contains("number = 140\n"), "{text}");
    assert!(text.contains("photographed = 2011-06-01\n"), "{text}");
    site.build().success();
}

#[test]
fn an_xlsx_formula_cell_is_named_by_sheet_and_cell() {
    let site = SiteTest::fixture("minimal").write_bytes("cases.xlsx", &workbook(true));
    let before = content(&site);
    import(&site, &["cases.xlsx", "--sheet", "Cases"])
        .failure(1)
        .stderr_has("cases.xlsx:Cases:B3: a formula cell (=100+1): imports take values only");
    assert_eq!(content(&site), before);
}

/// A minimal OpenDocument spreadsheet: what LibreOffice writes, less the styles.
fn ods(rows: &[&[&str]]) -> Vec<u8> {
    let mut table = String::new();
    for row in rows {
        table.push_str("<table:table-row>");
        for cell in *row {
            if let Some(date) = cell.strip_prefix("date:") {
                table.push_str(&format!(
                    "<table:table-cell office:value-type=\"date\" office:date-value=\"{date}\"><text:p>{date}</text:p></table:table-cell>"
                ));
            } else if let Ok(n) = cell.parse::<i64>() {
                table.push_str(&format!(
                    "<table:table-cell office:value-type=\"float\" office:value=\"{n}\"><text:p>{n}</text:p></table:table-cell>"
                ));
            } else {
                table.push_str(&format!(
                    "<table:table-cell office:value-type=\"string\"><text:p>{cell}</text:p></table:table-cell>"
                ));
            }
        }
        table.push_str("</table:table-row>");
    }
    let content = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body><office:spreadsheet><table:table table:name="Sheet1">{table}</table:table></office:spreadsheet></office:body></office:document-content>"#
    );
    let manifest = r#"<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>"#;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    zip.start_file("mimetype", stored).unwrap();
    zip.write_all(b"application/vnd.oasis.opendocument.spreadsheet")
        .unwrap();
    zip.start_file("META-INF/manifest.xml", stored).unwrap();
    zip.write_all(manifest.as_bytes()).unwrap();
    zip.start_file("content.xml", stored).unwrap();
    zip.write_all(content.as_bytes()).unwrap();
    zip.finish().unwrap().into_inner()
}

#[test]
fn an_ods_sheet_is_read_with_typed_dates_and_numbers() {
    let site = SiteTest::fixture("minimal");
    let sheet = ods(&[
        &[
            "case_id",
            "number",
            "branch",
            "photographed",
            "synthetic",
            "bad",
        ],
        &["c-050", "150", "235", "date:2013-03-04", "true", "x"],
        &["c-051", "151", "227", "date:2013-03-05", "false", ""],
    ]);
    let site = site.write_bytes("cases.ods", &sheet);
    import(&site, &["cases.ods"])
        .failure(1)
        .stderr_has("cases.ods:Sheet1:F1: unknown column `bad`");
    let sheet = ods(&[
        &["case_id", "number", "branch", "photographed", "synthetic"],
        &["c-050", "150", "235", "date:2013-03-04", "true"],
        &["c-051", "151", "227", "date:2013-03-05", "false"],
    ]);
    let site = site.write_bytes("cases.ods", &sheet);
    import(&site, &["cases.ods"]).success();
    let text = case_file(&site, "c-050");
    assert!(text.contains("photographed = 2013-03-04"), "{text}");
    assert!(text.contains("number = 150"), "{text}");
    site.build().success();
}

#[test]
fn arabic_labels_name_columns_and_arabic_value_labels_name_values() {
    // The i18n fixture translates the labels: case_id is "رقم الحالة", branch "الفرع", and
    // branch 227 "الفرع 227".
    let site = SiteTest::fixture("i18n").write("sheet.csv", "رقم الحالة,الفرع\nc-1,الفرع 227\n");
    let run = import(&site, &["sheet.csv"]);
    run.success();
    run.stdout_has("  branch: \"215\" -> \"227\"");
    assert!(case_file(&site, "c-1").contains("branch = \"227\""));
    // And the English value label too.
    let site = site.write("sheet.csv", "Case ID,Branch\nc-1,branch 215\n");
    import(&site, &["sheet.csv"]).success();
    assert!(case_file(&site, "c-1").contains("branch = \"215\""));
}

#[test]
fn the_sites_own_export_imported_again_changes_no_file() {
    let site = bundled();
    site.build().success();
    let before = content(&site);
    let exported = site.public().join("data/cases.csv");
    let run = import(&site, &[exported.to_str().unwrap()]);
    run.success();
    assert!(
        run.stdout
            .ends_with("0 created, 0 changed, 24 unchanged, 0 not in the sheet\n"),
        "{}",
        run.stdout
    );
    assert_eq!(content(&site), before);
}

#[test]
fn a_photos_column_copies_checked_photographs_into_the_case_folder() {
    let sheet = format!(
        "{HEADER},photos,photo_alt,photo_sensitivity\n\
         c-060,160,215,2012-01-01,,,true,With photos,a.png; b.png,First generated image; Second generated image,graphic; none\n\
         c-001,101,215,2011-06-01,starvation; beating,,true,Case one,c.png,Third generated image,\n"
    );
    let site = SiteTest::fixture("minimal")
        .write("sheet.csv", &sheet)
        .write_bytes("incoming/a.png", &crate::support::patterned_png(40, 30))
        .write_bytes("incoming/c.png", &crate::support::patterned_png(30, 40))
        .write_bytes("incoming/b.png", b"not an image");
    let photos = site.root().join("incoming");
    let before = content(&site);
    // One unreadable photograph stops the whole import.
    import(&site, &["sheet.csv", "--photos", photos.to_str().unwrap()])
        .failure(1)
        .stderr_has("sheet.csv:2:9: photos: `b.png`: ");
    assert_eq!(content(&site), before);
    import(&site, &["sheet.csv"])
        .failure(1)
        .stderr_has("--photos DIR");
    let site = site.write_bytes("incoming/b.png", &crate::support::patterned_png(20, 20));
    let run = import(&site, &["sheet.csv", "--photos", photos.to_str().unwrap()]);
    run.success();
    run.stdout_has("3 photographs copied");
    run.stdout_has("  photos: (none) -> \"c.png\"");
    let text = case_file(&site, "c-060");
    assert!(
        text.contains("[[photos]]\nfile = \"a.png\"\nalt = \"First generated image\"\nsensitivity = \"graphic\"\n"),
        "{text}"
    );
    assert!(site.root().join("content/cases/c-060/b.png").is_file());
    assert!(case_file(&site, "c-001").contains("file = \"c.png\""));
    site.build().success();
    // Run again: the photographs are there, nothing changes.
    let run = import(&site, &["sheet.csv", "--photos", photos.to_str().unwrap()]);
    run.success();
    run.stdout_has("0 created, 0 changed, 2 unchanged");
}

#[test]
fn templates_are_made_from_the_schema_and_import_cleanly() {
    let site = SiteTest::fixture("minimal");
    let csv = site.root().join("template.csv");
    import(&site, &["--template", csv.to_str().unwrap()]).success();
    let bytes = std::fs::read(&csv).unwrap();
    assert_eq!(
        bytes,
        format!("\u{feff}{HEADER},photos,photo_alt,photo_caption,photo_sensitivity\r\n")
            .into_bytes()
    );
    let xlsx = site.root().join("template.xlsx");
    import(&site, &["--template", xlsx.to_str().unwrap()]).success();
    let mut book = calamine::open_workbook_auto(&xlsx).unwrap();
    use calamine::Reader as _;
    assert_eq!(book.sheet_names(), ["Cases", "Fields"]);
    let fields = book.worksheet_range("Fields").unwrap();
    assert_eq!(
        fields.get((3, 4)).unwrap().to_string(),
        "One of: 215, 227, 235. Required."
    );
    for template in [&csv, &xlsx] {
        let run = import(&site, &[template.to_str().unwrap()]);
        run.success();
        run.stdout_has("0 created, 0 changed, 0 unchanged");
    }
    import(
        &site,
        &["--template", site.root().join("t.txt").to_str().unwrap()],
    )
    .failure(1)
    .stderr_has("a template is written as .csv or .xlsx");
}

#[test]
fn a_file_that_is_no_sheet_is_refused() {
    let site = SiteTest::fixture("minimal").write("notes.md", "hello");
    import(&site, &["notes.md"])
        .failure(1)
        .stderr_has("notes.md: not a spreadsheet casebook can read");
}

#[test]
fn a_new_id_never_overwrites_a_file_that_holds_another_case() {
    // c-001's folder renamed: its file still says c-001, and the sheet adds c-070 there.
    let site = SiteTest::fixture("minimal").write(
        "content/cases/c-070/index.md",
        "+++\ntitle = \"Other\"\ncase_id = \"c-071\"\nnumber = 1\nbranch = \"215\"\nphotographed = 2011-01-01\nsynthetic = true\n+++\n",
    );
    let site = site.write(
        "sheet.csv",
        &format!("{HEADER}\nc-070,170,215,2012-01-01,,,true,New\n"),
    );
    let before = content(&site);
    import(&site, &["sheet.csv"])
        .failure(1)
        .stderr_has("content/cases/c-070/index.md: the sheet adds case `c-070`, but this file is already there with another case_id");
    assert_eq!(content(&site), before);
}

#[test]
fn spaces_around_a_value_and_crlf_inside_a_cell_are_no_change() {
    let site = SiteTest::fixture("minimal").edit(
        "content/cases/c-001/index.md",
        "synthetic = true",
        "synthetic = true\nnote = \"  first line\\nsecond line \"",
    );
    let site = site.write_bytes(
        "sheet.csv",
        &excel_csv(&["case_id,note", "c-001,\"first line\r\nsecond line\""]),
    );
    let run = import(&site, &["sheet.csv"]);
    run.success();
    run.stdout_has("0 changed, 1 unchanged");
    // A real change is written with LF line ends, as the case file has them (toml_edit
    // writes a value with line breaks as a multi-line string).
    let site = site.write_bytes(
        "sheet.csv",
        &excel_csv(&["case_id,note", "c-001,\"first line\r\nthird line\""]),
    );
    import(&site, &["sheet.csv"]).success();
    assert!(
        case_file(&site, "c-001").contains("note = \"\"\"\nfirst line\nthird line\"\"\"\n"),
        "{}",
        case_file(&site, "c-001")
    );
}

#[test]
fn a_mapping_file_names_a_delimiter_no_guess_would_find() {
    // A colon between values, commas and semicolons inside them.
    let site = SiteTest::fixture("minimal")
        .write(
            "sheet.csv",
            "case_id:note\nc-001:seen in 2012, twice; once more\n",
        )
        .write("map.toml", "delimiter = \":\"\n");
    import(&site, &["sheet.csv", "--mapping", "map.toml"]).success();
    assert!(case_file(&site, "c-001").contains("note = \"seen in 2012, twice; once more\""));
    let site = site.write("map.toml", "delimiter = \"::\"\n");
    import(&site, &["sheet.csv", "--mapping", "map.toml"])
        .failure(1)
        .stderr_has("map.toml:1:1: delimiter is not one character");
}

#[test]
fn problems_found_while_checking_and_while_making_files_are_listed_in_row_order() {
    // Rows are checked one after another but made into files in parallel batches of a
    // thousand: the first hundred problems listed must still be the sheet's first hundred,
    // in its order. Every 20th row adds a case whose folder holds another case (found while
    // making its file); every 20th row from the 10th has a bad branch (found while checking).
    let mut site = SiteTest::fixture("minimal");
    let mut lines = vec![HEADER.to_string()];
    let mut expected = Vec::new();
    for i in 1..=3000 {
        let id = format!("c-{i:04}");
        let branch = if i % 20 == 10 { 999 } else { 215 };
        lines.push(format!("{id},{i},{branch},2012-01-01,,,true,Case {i}"));
        if i % 20 == 0 {
            site = site.write(
                &format!("content/cases/{id}/index.md"),
                &format!("+++\ntitle = \"Other\"\ncase_id = \"other-{i:04}\"\n+++\n"),
            );
        }
        if i % 20 == 0 || i % 20 == 10 {
            expected.push(i);
        }
    }
    let site = site.write("sheet.csv", &lines.join("\n"));
    let run = import(&site, &["sheet.csv"]);
    run.failure(1)
        .stderr_has("300 errors found (the first 100 are shown); nothing was written");
    let listed: Vec<usize> = run
        .stderr
        .lines()
        .filter_map(|line| {
            let conflict = line.split("the sheet adds case `c-").nth(1);
            let bad_branch = line.strip_prefix("error: sheet.csv:");
            match (conflict, bad_branch) {
                (Some(rest), _) => rest[..4].parse().ok(),
                // The CSV line of row i is i + 1 (the header is line 1).
                (None, Some(rest)) => rest.split(':').next()?.parse::<usize>().ok().map(|l| l - 1),
                _ => None,
            }
        })
        .collect();
    assert_eq!(listed, expected[..100], "{}", run.stderr);
}

#[test]
fn a_nul_or_other_control_character_in_a_cell_is_a_located_error_and_nothing_is_written() {
    use crate::support::sheets::{self, case_row, header_row};
    let site = SiteTest::fixture("minimal").write_bytes(
        "nul.csv",
        format!("{HEADER}\nc-010,110,215,2012-02-03,beating,a\0b,true,Title\nc-011,111,215,2012-02-03,beating,,true,Esc\u{1b}[2J\n")
            .as_bytes(),
    );
    let before = content(&site);
    import(&site, &["nul.csv"])
        .failure(1)
        .stderr_has("nul.csv:2:6: note: the cell holds the control character \\u{0} (NUL)")
        .stderr_has("nul.csv:3:8: title: the cell holds the control character \\u{1b}")
        .stderr_has("hint: delete the character from the cell");
    assert_eq!(content(&site), before, "nothing is written");

    let site = SiteTest::fixture("minimal");
    let row = case_row(2, 1).replace("note 1", "a_x0000_b");
    sheets::xlsx(
        &site.root().join("nul.xlsx"),
        &mut |w| write!(w, "{}{row}", header_row()),
        None,
    )
    .unwrap();
    import(&site, &["nul.xlsx"])
        .failure(1)
        .stderr_has("nul.xlsx:Cases:F2: note: the cell holds the control character \\u{0} (NUL)");

    let site = SiteTest::fixture("minimal").write_bytes(
        "nul.ods",
        &ods(&[
            &[
                "case_id",
                "number",
                "branch",
                "photographed",
                "indicators",
                "note",
                "synthetic",
            ],
            &[
                "c-010",
                "110",
                "215",
                "date:2012-02-03",
                "beating",
                "a\u{0}b",
                "true",
            ],
        ]),
    );
    import(&site, &["nul.ods"])
        .failure(1)
        .stderr_has("nul.ods:Sheet1:F2: note: the cell holds the control character \\u{0} (NUL)");
    assert_eq!(content(&site), before);
}
