//! `casebook import` holds any sheet in bounded memory and never crashes: each hostile sheet
//! class runs the real binary, whose own peak memory (its `wait4` rusage) must stay within
//! 256 MiB, and whose answer must be a located error or a correct import.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::support::SiteTest;
use crate::support::sheets::{self, case_row, header_row, text_cell};

/// The ceiling issue 27 sets for a sheet up to 10 MB.
const CEILING_KIB: i64 = 256 * 1024;

struct Measured {
    /// The exit code; `None` when a signal ended the import.
    code: Option<i32>,
    stderr: String,
    peak_kib: i64,
}

/// Runs `casebook import FILE` in `site` under GNU time, which reports the peak memory of
/// the import alone (a child's own rusage would count the test process it was forked from).
/// `None` (the test passes, saying why) when GNU time is missing, except under CI.
fn import_measured(site: &SiteTest, file: &str) -> Option<Measured> {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        let why = "the hostile-sheet tests measure memory with GNU time: install it with `apt-get install -y time`";
        assert!(std::env::var_os("CI").is_none(), "{why}");
        eprintln!("skipped: {why}");
        return None;
    }
    let peak_path = site.root().join("peak.txt");
    let out = Command::new(time)
        .arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(&peak_path)
        .arg(env!("CARGO_BIN_EXE_casebook"))
        .args(["import", file])
        .current_dir(site.root())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let peak = std::fs::read_to_string(&peak_path).unwrap();
    // GNU time writes "Command exited with non-zero status N" before the figure.
    let peak_kib = peak
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or_else(|| panic!("GNU time wrote {peak:?}"));
    let code = peak
        .lines()
        .find_map(|l| l.strip_prefix("Command exited with non-zero status "))
        .map_or(0, |c| c.trim().parse().unwrap_or(-1));
    let signalled = peak.contains("Command terminated by signal");
    Some(Measured {
        code: (!signalled).then_some(code),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        peak_kib,
    })
}

#[track_caller]
fn assert_bounded(m: &Measured, class: &str) {
    assert!(
        m.code.is_some(),
        "{class}: killed by a signal, stderr:\n{}",
        m.stderr
    );
    assert!(
        !m.stderr.contains("panicked") && !m.stderr.contains("memory allocation"),
        "{class}: crashed:\n{}",
        m.stderr
    );
    assert!(
        m.peak_kib <= CEILING_KIB,
        "{class}: peak memory {} MiB, over the 256 MiB ceiling",
        m.peak_kib / 1024
    );
}

fn site() -> SiteTest {
    SiteTest::fixture("minimal")
}

fn xlsx_with_rows(
    site: &SiteTest,
    name: &str,
    rows: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
) {
    sheets::xlsx(&site.root().join(name), rows, None).unwrap();
}

#[test]
fn a_cell_in_the_far_corner_is_a_located_error_not_a_512_gib_rectangle() {
    let site = site();
    xlsx_with_rows(&site, "corner.xlsx", &mut |w| {
        write!(w, "{}{}", header_row(), case_row(2, 1))?;
        write!(
            w,
            "<row r=\"1048576\">{}</row>",
            text_cell("XFD1048576", "x")
        )
    });
    let Some(m) = import_measured(&site, "corner.xlsx") else {
        return;
    };
    assert_bounded(&m, "far corner");
    assert_eq!(m.code, Some(1), "{}", m.stderr);
    assert!(
        m.stderr
            .contains("corner.xlsx:Cases:XFD1048576: this column has values but no header"),
        "{}",
        m.stderr
    );
    assert!(
        m.stderr
            .contains("corner.xlsx:Cases:A3: this row and the 1048572 below it are empty"),
        "{}",
        m.stderr
    );
    assert!(!site.root().join("content/cases/h-0000001").exists());
}

#[test]
fn a_million_whitespace_rows_are_one_problem_in_little_memory() {
    let site = site();
    xlsx_with_rows(&site, "blank.xlsx", &mut |w| {
        write!(w, "{}", header_row())?;
        for row in 2..1_000_002 {
            write!(
                w,
                "<row r=\"{row}\">{}</row>",
                text_cell(&format!("B{row}"), "   ")
            )?;
        }
        write!(w, "{}", case_row(1_000_002, 1))
    });
    let Some(m) = import_measured(&site, "blank.xlsx") else {
        return;
    };
    assert_bounded(&m, "a million empty rows");
    assert!(
        m.stderr
            .contains("blank.xlsx:Cases:A2: this row and the 999999 below it are empty"),
        "{}",
        m.stderr
    );
    assert!(m.stderr.contains("1 error found"), "{}", m.stderr);
}

#[test]
fn hundreds_of_thousands_of_bad_rows_list_the_first_hundred_and_count_the_rest() {
    let site = site();
    xlsx_with_rows(&site, "bad.xlsx", &mut |w| {
        write!(w, "{}", header_row())?;
        for row in 2..300_002 {
            write!(
                w,
                "<row r=\"{row}\">{}</row>",
                text_cell(&format!("A{row}"), "Bad Id!")
            )?;
        }
        Ok(())
    });
    let Some(m) = import_measured(&site, "bad.xlsx") else {
        return;
    };
    assert_bounded(&m, "bad rows");
    assert_eq!(m.code, Some(1));
    let listed = m
        .stderr
        .lines()
        .filter(|l| l.starts_with("error: "))
        .count();
    assert_eq!(listed, 100, "{}", m.stderr);
    assert!(m.stderr.contains("more errors like these"), "{}", m.stderr);
    assert!(
        m.stderr
            .contains("(the first 100 are shown); nothing was written"),
        "{}",
        m.stderr
    );
    assert!(
        m.stderr
            .contains("bad.xlsx:Cases:A2: case_id: case id `Bad Id!`"),
        "{}",
        m.stderr
    );
}

#[test]
fn shared_strings_that_inflate_a_thousandfold_are_refused_before_they_are_read() {
    let site = site();
    let path = site.root().join("strings.xlsx");
    sheets::xlsx(
        &path,
        &mut |w| write!(w, "{}", header_row()),
        Some(&mut |w| {
            let item = format!("<si><t>{}</t></si>", "a".repeat(1000));
            for _ in 0..40_000 {
                w.write_all(item.as_bytes())?;
            }
            Ok(())
        }),
    )
    .unwrap();
    assert!(std::fs::metadata(&path).unwrap().len() < 1 << 20);
    let Some(m) = import_measured(&site, "strings.xlsx") else {
        return;
    };
    assert_bounded(&m, "shared strings");
    assert!(
        m.stderr
            .contains("the workbook's part `xl/sharedStrings.xml` unpacks to more than 32 MiB"),
        "{}",
        m.stderr
    );
}

#[test]
fn one_cell_of_a_gigabyte_is_refused_as_it_streams() {
    let site = site();
    xlsx_with_rows(&site, "long.xlsx", &mut |w| {
        write!(
            w,
            "{}<row r=\"2\"><c r=\"F2\" t=\"inlineStr\"><is><t>",
            header_row()
        )?;
        let chunk = "x".repeat(1 << 20);
        for _ in 0..64 {
            w.write_all(chunk.as_bytes())?;
        }
        write!(w, "</t></is></c></row>")
    });
    let Some(m) = import_measured(&site, "long.xlsx") else {
        return;
    };
    assert_bounded(&m, "one long cell");
    assert!(m.stderr.contains("MiB of text"), "{}", m.stderr);
}

#[test]
fn ods_rows_and_cells_repeated_to_the_sheets_end_stay_bounded() {
    let site = site();
    sheets::ods(&site.root().join("repeat.ods"), &mut |w| {
        write!(w, "{}", sheets::ods_header())?;
        // A cell repeated four billion columns, then a row repeated to the sheet's last.
        let bad = "<table:table-cell office:value-type=\"string\"><text:p>Bad Id!</text:p></table:table-cell>";
        write!(w, "<table:table-row>{bad}<table:table-cell table:number-columns-repeated=\"7\"/><table:table-cell table:number-columns-repeated=\"4000000000\" office:value-type=\"string\"><text:p>x</text:p></table:table-cell></table:table-row>")?;
        write!(w, "<table:table-row table:number-rows-repeated=\"1048574\">{bad}</table:table-row>")
    })
    .unwrap();
    let Some(m) = import_measured(&site, "repeat.ods") else {
        return;
    };
    assert_bounded(&m, "ODS repeats");
    assert_eq!(m.code, Some(1), "{}", m.stderr);
    assert!(
        m.stderr
            .contains("repeat.ods:Cases:I2: this column has values but no header"),
        "{}",
        m.stderr
    );
    assert!(m.stderr.contains("more errors like these"), "{}", m.stderr);
}

#[test]
fn an_old_xls_sheet_spanning_sixteen_million_cells_is_refused_before_it_is_read() {
    let site = site();
    sheets::xls_far_corner(&site.root().join("corner.xls")).unwrap();
    let Some(m) = import_measured(&site, "corner.xls") else {
        return;
    };
    assert_bounded(&m, "XLS far corner");
    assert!(
        m.stderr.contains("spans 65536 rows and 256 columns"),
        "{}",
        m.stderr
    );
}

#[test]
fn a_line_of_plus_signs_in_a_cell_is_written_so_that_it_reads_back() {
    let site = site().write(
        "plus.csv",
        &format!(
            "{}\nc-020,120,215,2012-01-01,beating,\"first\n+++\nlast\",true\n",
            sheets::HEADER.join(",")
        ),
    );
    let Some(m) = import_measured(&site, "plus.csv") else {
        return;
    };
    assert_eq!(m.code, Some(0), "{}", m.stderr);
    site.build().success();
    // Read back by the next import: nothing changes.
    let again = Command::new(env!("CARGO_BIN_EXE_casebook"))
        .args(["import", "plus.csv", "--dry-run"])
        .current_dir(site.root())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&again.stdout);
    assert!(
        said.contains("0 to create, 0 to change, 1 unchanged"),
        "{said}"
    );
    let json = site.file("data/cases.json");
    assert!(json.contains("first\\n+++\\nlast"), "{json}");
}

#[test]
fn a_formula_hidden_behind_spaces_or_control_characters_is_refused() {
    let site = site().write(
        "hidden.csv",
        &format!(
            "{}\nc-020,120,215,2012-01-01,beating,\" =HYPERLINK(\"\"http://x\"\")\",true\n",
            sheets::HEADER.join(",")
        ),
    );
    let Some(m) = import_measured(&site, "hidden.csv") else {
        return;
    };
    assert_eq!(m.code, Some(1), "{}", m.stderr);
    assert!(
        m.stderr
            .contains("hidden.csv:2:6: a formula cell (=HYPERLINK"),
        "{}",
        m.stderr
    );

    let site = SiteTest::fixture("minimal");
    xlsx_with_rows(&site, "hidden.xlsx", &mut |w| {
        let row = case_row(2, 1).replace("note 1", "\t\u{7}=1+1".replace('\u{7}', "&#7;").as_str());
        write!(w, "{}{row}", header_row())
    });
    let Some(m) = import_measured(&site, "hidden.xlsx") else {
        return;
    };
    assert_eq!(m.code, Some(1), "{}", m.stderr);
    assert!(
        m.stderr
            .contains("hidden.xlsx:Cases:F2: a formula cell (=1+1)"),
        "{}",
        m.stderr
    );
}

#[test]
fn a_valid_workbook_written_by_hand_imports_every_case() {
    let site = site();
    xlsx_with_rows(&site, "good.xlsx", &mut |w| {
        write!(w, "{}", header_row())?;
        for n in 1..=50 {
            write!(w, "{}", case_row(n + 1, n))?;
        }
        Ok(())
    });
    let Some(m) = import_measured(&site, "good.xlsx") else {
        return;
    };
    assert_eq!(m.code, Some(0), "{}", m.stderr);
    assert!(Path::new(&site.root().join("content/cases/h-0000050/index.md")).exists());
    site.build().success();
}

#[test]
fn a_csv_cell_over_the_row_limit_is_a_located_error_in_bounded_memory() {
    for megabytes in [17, 48] {
        let site = site();
        let mut sheet =
            std::io::BufWriter::new(std::fs::File::create(site.root().join("big.csv")).unwrap());
        writeln!(sheet, "{}", sheets::HEADER.join(",")).unwrap();
        write!(sheet, "c-020,120,215,2012-01-01,beating,").unwrap();
        let chunk = "x".repeat(1 << 20);
        for _ in 0..megabytes {
            sheet.write_all(chunk.as_bytes()).unwrap();
        }
        writeln!(sheet, ",true").unwrap();
        sheet.flush().unwrap();
        drop(sheet);
        let before = crate::support::tree(&site.root().join("content"));
        let Some(m) = import_measured(&site, "big.csv") else {
            return;
        };
        assert_bounded(&m, "one big CSV cell");
        assert_eq!(m.code, Some(1), "{megabytes} MB: {}", m.stderr);
        assert!(
            m.stderr
                .contains("big.csv:2:6: note: the row holds more than 16 MiB of text by this cell"),
            "{megabytes} MB: {}",
            m.stderr
        );
        assert_eq!(before, crate::support::tree(&site.root().join("content")));
    }
}
