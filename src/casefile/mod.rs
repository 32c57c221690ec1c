//! Editing case files in place, for `import` and the workbench of `casebook serve`: only the
//! keys asked for change, and every other byte of the file (comments, key order, spacing,
//! the body, CRLF line ends, a byte-order mark) stays as it was.
//!
//! `fields.rs` changes top-level keys and adds photographs (import); `photo.rs` edits one
//! photograph's entry (the workbench: regions, sensitivity, alt text, caption, review) and
//! its translated alt text and caption; `write.rs` saves a file only if nobody changed it
//! since it was read.

mod fields;
mod photo;
mod write;

pub(crate) use fields::{Change, NewPhoto, apply, new_file};
pub(crate) use photo::{PhotoEdit, edit_photo, edit_translated_photo};
pub(crate) use write::{WriteError, write_if_unchanged};

/// The front matter's language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// `+++`
    Toml,
    /// `---`
    Yaml,
}

/// A content file cut around its front matter.
struct Parts<'a> {
    /// The byte-order mark and the opening delimiter's line, as written.
    head: String,
    /// The front matter between the delimiters, with `\n` line ends.
    block: String,
    /// The closing delimiter's line and the body, as written.
    tail: &'a str,
    crlf: bool,
    form: Form,
}

/// Cuts `text` around its front matter.
fn split(text: &str) -> Result<Parts<'_>, String> {
    let (bom, text) = match text.strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", text),
    };
    let first_end = text.find('\n').map_or(text.len(), |i| i + 1);
    let delimiter = text[..first_end].trim_end();
    let form = match delimiter {
        "+++" => Form::Toml,
        "---" => Form::Yaml,
        _ => return Err("the file does not start with front matter".into()),
    };
    let crlf = text[..first_end].ends_with("\r\n");
    let mut close = None;
    let mut offset = first_end;
    for line in text[first_end..].split_inclusive('\n') {
        if line.trim_end() == delimiter {
            close = Some(offset);
            break;
        }
        offset += line.len();
    }
    let close = close.ok_or("the front matter is not closed")?;
    Ok(Parts {
        head: format!("{bom}{}", &text[..first_end]),
        block: text[first_end..close].replace("\r\n", "\n"),
        tail: &text[close..],
        crlf,
        form,
    })
}

impl Parts<'_> {
    /// The file again, with `block` (`\n` line ends) as its front matter.
    fn join(&self, block: &str) -> String {
        let block = if self.crlf {
            block.replace('\n', "\r\n")
        } else {
            block.to_string()
        };
        format!("{}{block}{}", self.head, self.tail)
    }
}
