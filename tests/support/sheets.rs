//! Hostile spreadsheets, written straight as zip parts and XML so that each holds exactly
//! what a spreadsheet program would never write: a cell in the far corner, a million empty
//! rows, a shared-strings part that inflates a thousandfold. Used by `tests/import_bounded.rs`
//! and by `examples/hostile-sheets.rs` (for `benches/import-memory.sh`).

#![allow(dead_code, unreachable_pub)]

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use zip::write::SimpleFileOptions;

/// The header of the minimal fixture's case schema.
pub const HEADER: [&str; 7] = [
    "case_id",
    "number",
    "branch",
    "photographed",
    "indicators",
    "note",
    "synthetic",
];

/// An inline-string cell.
pub fn text_cell(reference: &str, text: &str) -> String {
    format!(
        "<c r=\"{reference}\" t=\"inlineStr\"><is><t xml:space=\"preserve\">{text}</t></is></c>"
    )
}

/// The header row, at row 1.
pub fn header_row() -> String {
    let cells: String = HEADER
        .iter()
        .enumerate()
        .map(|(j, h)| text_cell(&format!("{}1", (b'A' + j as u8) as char), h))
        .collect();
    format!("<row r=\"1\">{cells}</row>")
}

/// A valid case row at `row` (1-based) for case `n`.
pub fn case_row(row: usize, n: usize) -> String {
    let values = [
        format!("h-{n:07}"),
        String::new(),
        "215".into(),
        String::new(),
        "beating".into(),
        format!("note {n}"),
        String::new(),
    ];
    let mut cells = String::new();
    for (j, v) in values.iter().enumerate() {
        let r = format!("{}{row}", (b'A' + j as u8) as char);
        cells.push_str(&match j {
            1 => format!("<c r=\"{r}\"><v>{n}</v></c>"),
            3 => format!("<c r=\"{r}\" t=\"inlineStr\"><is><t>2012-05-14</t></is></c>"),
            6 => format!("<c r=\"{r}\" t=\"b\"><v>1</v></c>"),
            _ => text_cell(&r, v),
        });
    }
    format!("<row r=\"{row}\">{cells}</row>")
}

/// Writes part of a workbook's XML.
pub type Writes<'a> = &'a mut dyn FnMut(&mut dyn Write) -> io::Result<()>;

/// Writes an XLSX workbook with one sheet, `Cases`: `rows` writes the sheet's rows, and
/// `strings` (if given) the shared-strings part's `<si>` items.
pub fn xlsx(path: &Path, rows: Writes<'_>, strings: Option<Writes<'_>>) -> io::Result<()> {
    let mut zip = zip::ZipWriter::new(BufWriter::new(File::create(path)?));
    let options = SimpleFileOptions::default().compression_level(Some(9));
    let strings_type = if strings.is_some() {
        "<Override PartName=\"/xl/sharedStrings.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml\"/>"
    } else {
        ""
    };
    let parts = [
        ("[Content_Types].xml", format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\"><Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/><Default Extension=\"xml\" ContentType=\"application/xml\"/><Override PartName=\"/xl/workbook.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml\"/><Override PartName=\"/xl/worksheets/sheet1.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml\"/>{strings_type}</Types>")),
        ("_rels/.rels", "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\"><Relationship Id=\"rId1\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument\" Target=\"xl/workbook.xml\"/></Relationships>".to_string()),
        ("xl/workbook.xml", "<?xml version=\"1.0\" encoding=\"UTF-8\"?><workbook xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\"><sheets><sheet name=\"Cases\" sheetId=\"1\" r:id=\"rId1\"/></sheets></workbook>".to_string()),
        ("xl/_rels/workbook.xml.rels", format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\"><Relationship Id=\"rId1\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet\" Target=\"worksheets/sheet1.xml\"/>{}</Relationships>", if strings.is_some() { "<Relationship Id=\"rId2\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings\" Target=\"sharedStrings.xml\"/>" } else { "" })),
    ];
    for (name, text) in parts {
        zip.start_file(name, options)?;
        zip.write_all(text.as_bytes())?;
    }
    if let Some(strings) = strings {
        zip.start_file("xl/sharedStrings.xml", options)?;
        zip.write_all(b"<?xml version=\"1.0\" encoding=\"UTF-8\"?><sst xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\">")?;
        strings(&mut zip)?;
        zip.write_all(b"</sst>")?;
    }
    zip.start_file("xl/worksheets/sheet1.xml", options)?;
    zip.write_all(b"<?xml version=\"1.0\" encoding=\"UTF-8\"?><worksheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\"><sheetData>")?;
    rows(&mut zip)?;
    zip.write_all(b"</sheetData></worksheet>")?;
    zip.finish()?.flush()
}

/// Writes an ODS workbook with one sheet, `Cases`, whose `<table:table>` body `rows` writes.
pub fn ods(path: &Path, rows: Writes<'_>) -> io::Result<()> {
    let mut zip = zip::ZipWriter::new(BufWriter::new(File::create(path)?));
    let stored = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    zip.start_file("mimetype", stored)?;
    zip.write_all(b"application/vnd.oasis.opendocument.spreadsheet")?;
    let options = SimpleFileOptions::default().compression_level(Some(9));
    zip.start_file("META-INF/manifest.xml", options)?;
    zip.write_all(b"<?xml version=\"1.0\" encoding=\"UTF-8\"?><manifest:manifest xmlns:manifest=\"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0\" manifest:version=\"1.2\"><manifest:file-entry manifest:full-path=\"/\" manifest:media-type=\"application/vnd.oasis.opendocument.spreadsheet\"/><manifest:file-entry manifest:full-path=\"content.xml\" manifest:media-type=\"text/xml\"/></manifest:manifest>")?;
    zip.start_file("content.xml", options)?;
    zip.write_all(b"<?xml version=\"1.0\" encoding=\"UTF-8\"?><office:document-content xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" xmlns:table=\"urn:oasis:names:tc:opendocument:xmlns:table:1.0\" xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\" office:version=\"1.2\"><office:body><office:spreadsheet><table:table table:name=\"Cases\">")?;
    rows(&mut zip)?;
    zip.write_all(b"</table:table></office:spreadsheet></office:body></office:document-content>")?;
    zip.finish()?.flush()
}

/// An ODS header row.
pub fn ods_header() -> String {
    let cells: String = HEADER
        .iter()
        .map(|h| format!("<table:table-cell office:value-type=\"string\"><text:p>{h}</text:p></table:table-cell>"))
        .collect();
    format!("<table:table-row>{cells}</table:table-row>")
}

/// Writes an old Excel (BIFF8) workbook whose one sheet has a number at A1 and at the far
/// corner (IV65536): the rectangle a whole-sheet reader would fill is 16 million cells.
pub fn xls_far_corner(path: &Path) -> io::Result<()> {
    fn record(out: &mut Vec<u8>, kind: u16, data: &[u8]) {
        out.extend_from_slice(&kind.to_le_bytes());
        out.extend_from_slice(&(data.len() as u16).to_le_bytes());
        out.extend_from_slice(data);
    }
    fn bof(kind: u16) -> Vec<u8> {
        let mut d = vec![0x00, 0x06];
        d.extend_from_slice(&kind.to_le_bytes());
        d.extend_from_slice(&[0; 12]);
        d
    }
    fn number(row: u16, col: u16, value: f64) -> Vec<u8> {
        let mut d = Vec::new();
        d.extend_from_slice(&row.to_le_bytes());
        d.extend_from_slice(&col.to_le_bytes());
        d.extend_from_slice(&0u16.to_le_bytes());
        d.extend_from_slice(&value.to_le_bytes());
        d
    }
    let name = b"Cases";
    let mut globals = Vec::new();
    record(&mut globals, 0x0809, &bof(0x0005));
    let sheet_record_len = 4 + 4 + 2 + 2 + name.len();
    let sheet_offset = globals.len() + sheet_record_len + 4;
    let mut bound = (sheet_offset as u32).to_le_bytes().to_vec();
    bound.extend_from_slice(&[0, 0, name.len() as u8, 0]);
    bound.extend_from_slice(name);
    record(&mut globals, 0x0085, &bound);
    record(&mut globals, 0x000A, &[]);
    let mut stream = globals;
    record(&mut stream, 0x0809, &bof(0x0010));
    record(&mut stream, 0x0203, &number(0, 0, 1.0));
    record(&mut stream, 0x0203, &number(65_535, 255, 2.0));
    record(&mut stream, 0x000A, &[]);
    let mut file = cfb::create(path)?;
    let mut workbook = file.create_stream("/Workbook")?;
    workbook.write_all(&stream)?;
    workbook.flush()?;
    drop(workbook);
    file.flush()
}
