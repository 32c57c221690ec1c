//! Writes the hostile spreadsheet classes `benches/import-memory.sh` measures, each up to about
//! 10 MB on disk, into a folder: `hostile-sheets DIR [ROWS]` (ROWS: the valid sheets' cases,
//! default 100,000).

#[path = "../tests/support/sheets.rs"]
mod sheets;

use std::io::Write;
use std::path::Path;

use sheets::{case_row, header_row, text_cell};

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().expect("usage: hostile-sheets DIR [ROWS]");
    let rows: usize = args
        .next()
        .map_or(100_000, |r| r.parse().expect("ROWS is a number"));
    let dir = Path::new(&dir);
    std::fs::create_dir_all(dir)?;
    sheets::xlsx(
        &dir.join("far-corner.xlsx"),
        &mut |w| {
            write!(w, "{}{}", header_row(), case_row(2, 1))?;
            write!(
                w,
                "<row r=\"1048576\">{}</row>",
                text_cell("XFD1048576", "x")
            )
        },
        None,
    )?;
    sheets::xlsx(
        &dir.join("empty-rows.xlsx"),
        &mut |w| {
            write!(w, "{}", header_row())?;
            for row in 2..1_000_002 {
                write!(
                    w,
                    "<row r=\"{row}\">{}</row>",
                    text_cell(&format!("B{row}"), " ")
                )?;
            }
            write!(w, "{}", case_row(1_000_002, 1))
        },
        None,
    )?;
    sheets::xlsx(
        &dir.join("bad-rows.xlsx"),
        &mut |w| {
            write!(w, "{}", header_row())?;
            for row in 2..2_000_002 {
                write!(
                    w,
                    "<row r=\"{row}\">{}</row>",
                    text_cell(&format!("A{row}"), "Bad Id!")
                )?;
            }
            Ok(())
        },
        None,
    )?;
    // Distinct, valid ids with every other cell missing: each id is remembered (a later row
    // may repeat it) although the row is refused.
    sheets::xlsx(
        &dir.join("distinct-ids.xlsx"),
        &mut |w| {
            write!(w, "{}", header_row())?;
            for row in 2..1_250_002 {
                write!(
                    w,
                    "<row r=\"{row}\">{}</row>",
                    text_cell(&format!("A{row}"), &format!("x{row}"))
                )?;
            }
            Ok(())
        },
        None,
    )?;
    sheets::xlsx(
        &dir.join("shared-strings.xlsx"),
        &mut |w| write!(w, "{}{}", header_row(), case_row(2, 1)),
        Some(&mut |w| {
            for n in 0..1_600_000 {
                write!(w, "<si><t>{n}</t></si>")?;
            }
            Ok(())
        }),
    )?;
    sheets::xlsx(
        &dir.join("strings-bomb.xlsx"),
        &mut |w| write!(w, "{}", header_row()),
        Some(&mut |w| {
            let item = format!("<si><t>{}</t></si>", "a".repeat(10_000));
            for _ in 0..100_000 {
                w.write_all(item.as_bytes())?;
            }
            Ok(())
        }),
    )?;
    // Valid cases whose note is one shared string of 1 MiB: the kept text grows by 1 MiB a row.
    sheets::xlsx(
        &dir.join("repeated-string.xlsx"),
        &mut |w| {
            write!(w, "{}", header_row())?;
            for n in 1..=1000 {
                let row = case_row(n + 1, n);
                let note = text_cell(&format!("F{}", n + 1), &format!("note {n}"));
                let shared = format!("<c r=\"F{}\" t=\"s\"><v>0</v></c>", n + 1);
                write!(w, "{}", row.replace(&note, &shared))?;
            }
            Ok(())
        },
        Some(&mut |w| write!(w, "<si><t>{}</t></si>", "n".repeat(1 << 20))),
    )?;
    sheets::xlsx(
        &dir.join("whitespace.xlsx"),
        &mut |w| {
            write!(w, "{}", header_row())?;
            let blank = " ".repeat(200);
            for row in 2..200_002 {
                for col in ['A', 'B', 'C', 'D', 'E', 'F', 'G'] {
                    write!(w, "{}", text_cell(&format!("{col}{row}"), &blank))?;
                }
            }
            write!(w, "{}", case_row(200_002, 1))
        },
        None,
    )?;
    sheets::xlsx(
        &dir.join("long-cell.xlsx"),
        &mut |w| {
            write!(
                w,
                "{}<row r=\"2\"><c r=\"F2\" t=\"inlineStr\"><is><t>",
                header_row()
            )?;
            let chunk = "x".repeat(1 << 20);
            for _ in 0..1024 {
                w.write_all(chunk.as_bytes())?;
            }
            write!(w, "</t></is></c></row>")
        },
        None,
    )?;
    sheets::ods(&dir.join("repeats.ods"), &mut |w| {
        write!(w, "{}", sheets::ods_header())?;
        let bad = "<table:table-cell office:value-type=\"string\"><text:p>Bad Id!</text:p></table:table-cell>";
        write!(
            w,
            "<table:table-row>{bad}<table:table-cell table:number-columns-repeated=\"4000000000\" office:value-type=\"string\"><text:p>x</text:p></table:table-cell></table:table-row>"
        )?;
        write!(
            w,
            "<table:table-row table:number-rows-repeated=\"1048574\">{bad}</table:table-row>"
        )
    })?;
    sheets::xls_far_corner(&dir.join("far-corner.xls"))?;
    let mut csv = std::io::BufWriter::new(std::fs::File::create(dir.join("bad-rows.csv"))?);
    writeln!(csv, "{}", sheets::HEADER.join(","))?;
    for _ in 0..290_000 {
        writeln!(csv, "Bad Id!,x,999,never,nothing,,maybe")?;
    }
    csv.flush()?;
    // The valid sheets: ROWS distinct cases, as CSV and as XLSX.
    let mut csv = std::io::BufWriter::new(std::fs::File::create(dir.join("cases.csv"))?);
    writeln!(csv, "{}", sheets::HEADER.join(","))?;
    for n in 1..=rows {
        writeln!(csv, "h-{n:07},{n},215,2012-05-14,beating,note {n},true")?;
    }
    csv.flush()?;
    sheets::xlsx(
        &dir.join("cases.xlsx"),
        &mut |w| {
            write!(w, "{}", header_row())?;
            for n in 1..=rows {
                write!(w, "{}", case_row(n + 1, n))?;
            }
            Ok(())
        },
        None,
    )?;
    Ok(())
}
