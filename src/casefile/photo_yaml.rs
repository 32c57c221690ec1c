//! One photograph's entry in YAML front matter, edited by its lines: `photos` must be a
//! block sequence of block mappings (one `- file: ...` item per photograph, one key per
//! line), which stays one. Anything else (flow style, anchors) is refused with a message
//! that says so, and the file is left as it was.

use super::super::fields::{json_string, yaml_key_lines};
use super::{Set, Written, region_text};

/// A key of an item: its lines, half-open.
struct Key {
    name: String,
    lines: std::ops::Range<usize>,
}

/// One `- ...` item of the `photos` sequence.
struct Item {
    /// The column its keys start at.
    column: usize,
    keys: Vec<Key>,
    /// The line after its last non-blank line.
    end: usize,
}

const FORM: &str = "casebook edits YAML photographs only in block style: `photos:` then one `- file: ...` item per photograph, one key per line";

/// Why this file's form cannot be kept, and what to do.
fn form(detail: &str) -> String {
    format!(
        "{FORM}{detail}. Nothing was changed: rewrite `photos` in that style, edit the entry by hand, or convert the front matter to TOML (+++), which is edited in any form"
    )
}

pub(super) fn edit(block: &str, file: &str, sets: &[Set], add: bool) -> Result<String, String> {
    let mut lines: Vec<String> = block.lines().map(str::to_string).collect();
    if lines.iter().any(|l| {
        let t = l.trim_start();
        t.starts_with('&') || t.contains(": &") || t.contains(": *") || t.starts_with("- *")
    }) {
        return Err(form(", without anchors or aliases"));
    }
    let range = yaml_key_lines(&lines, "photos");
    if let Some(range) = &range {
        let rest = lines[range.start]["photos".len()..].trim_start()[1..].trim();
        if !(rest.is_empty() || rest.starts_with('#')) {
            return Err(form(&format!("; this file writes `photos: {rest}`")));
        }
    }
    let items = match &range {
        Some(range) => items(&lines, range.clone())?,
        None => Vec::new(),
    };
    let mut found = items.iter().filter(|item| {
        item.keys.iter().any(|k| {
            k.name == "file"
                && scalar(&lines[k.lines.start], item.column, "file").as_deref() == Some(file)
        })
    });
    let item = match (found.next(), found.next()) {
        (Some(_), Some(_)) => {
            return Err(format!("photograph `{file}` is listed more than once"));
        }
        (Some(item), None) => item,
        (None, _) if add => {
            let column = items.first().map_or(4, |i| i.column);
            let mut new = vec![format!(
                "{}- file: {}",
                " ".repeat(column - 2),
                json_string(file)
            )];
            for (key, value) in sets {
                if let Some(value) = value {
                    new.extend(key_lines(key, value, column));
                }
            }
            match &range {
                Some(range) => {
                    let at = items.last().map_or(range.end, |i| i.end);
                    lines.splice(at..at, new);
                }
                None => {
                    lines.push("photos:".into());
                    lines.extend(new);
                }
            }
            return Ok(joined(&lines));
        }
        (None, _) => return Err(format!("no photograph `{file}` in this file's photos")),
    };
    // From the last line up, so earlier ranges stay where they are.
    let mut edits: Vec<(std::ops::Range<usize>, Vec<String>)> = Vec::new();
    let mut appended = Vec::new();
    for (key, value) in sets {
        let new = value
            .as_ref()
            .map(|v| key_lines(key, v, item.column))
            .unwrap_or_default();
        match item.keys.iter().find(|k| k.name == *key) {
            Some(k) => {
                let first = &lines[k.lines.start];
                if first[..item.column].trim_start().starts_with('-') {
                    // The item's first key: its dash stays, and the new first line takes it.
                    if new.is_empty() {
                        return Err(form(&format!(
                            "; `{key}` is the item's first key and cannot be removed"
                        )));
                    }
                    let mut new = new;
                    new[0] = format!("{}{}", &first[..item.column], &new[0][item.column..]);
                    edits.push((k.lines.clone(), new));
                } else {
                    edits.push((k.lines.clone(), new));
                }
            }
            None => appended.extend(new),
        }
    }
    edits.push((item.end..item.end, appended));
    edits.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
    for (range, new) in edits {
        lines.splice(range, new);
    }
    Ok(joined(&lines))
}

fn joined(lines: &[String]) -> String {
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// The items of the `photos` sequence on `range` (the key's own line first).
fn items(lines: &[String], range: std::ops::Range<usize>) -> Result<Vec<Item>, String> {
    let mut items: Vec<Item> = Vec::new();
    let mut dash = None;
    for i in range.start + 1..range.end {
        let line = &lines[i];
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let at = indent(line);
        let rest = &line[at..];
        let is_dash = rest == "-" || rest.starts_with("- ");
        if is_dash && dash.is_none_or(|d| d == at) {
            dash = Some(at);
            let after = rest[1..].trim_start();
            if after.starts_with('{') || after.starts_with('[') {
                return Err(form(&format!(
                    "; this file writes a photograph as `{after}`"
                )));
            }
            let column = if after.is_empty() {
                // `-` alone: the keys start on the next line.
                match lines[i + 1..range.end]
                    .iter()
                    .find(|l| !l.trim().is_empty())
                {
                    Some(next) => indent(next),
                    None => return Err(form("; an item is empty")),
                }
            } else {
                line.len() - after.len()
            };
            items.push(Item {
                column,
                keys: Vec::new(),
                end: i + 1,
            });
            if !after.is_empty() {
                start_key(&mut items, after, i)?;
            }
            continue;
        }
        let Some(item) = items.last_mut() else {
            return Err(form("; `photos` does not start with a `- ` item"));
        };
        if at == item.column && !rest.starts_with("- ") {
            start_key(&mut items, rest, i)?;
        } else if at > item.column || (at == item.column && rest.starts_with("- ")) {
            // A key's value on more lines: its block sequence or text.
            let item = items.last_mut().expect("checked");
            if let Some(key) = item.keys.last_mut() {
                key.lines.end = i + 1;
            }
            item.end = i + 1;
        } else {
            return Err(form(&format!("; line `{}` is out of place", line.trim())));
        }
    }
    Ok(items)
}

/// Records the key that `text` (a line from its key on) starts at line `i`.
fn start_key(items: &mut [Item], text: &str, i: usize) -> Result<(), String> {
    let item = items.last_mut().expect("an item");
    let Some((name, _)) = text.split_once(':') else {
        return Err(form(&format!("; `{text}` is not a `key: value` line")));
    };
    let name = name.trim().trim_matches(['"', '\'']).to_string();
    if name.contains(['{', '[', ',']) {
        return Err(form(&format!("; `{text}` is not a `key: value` line")));
    }
    item.keys.push(Key {
        name,
        lines: i..i + 1,
    });
    item.end = i + 1;
    Ok(())
}

/// The string value of `key` on `line` (its key at `column`), as YAML reads it.
fn scalar(line: &str, column: usize, key: &str) -> Option<String> {
    let text = line.get(column..)?;
    let (_, value) = text.split_once(':')?;
    let parsed: serde_yaml_ng::Value = serde_yaml_ng::from_str(&format!("{key}:{value}")).ok()?;
    parsed.get(key)?.as_str().map(|s| s.trim().to_string())
}

/// `key`'s lines with `value`, its key at `column`.
fn key_lines(key: &str, value: &Written, column: usize) -> Vec<String> {
    let pad = " ".repeat(column);
    match value {
        Written::Text(text) => vec![format!("{pad}{key}: {}", json_string(text))],
        Written::Word(word) => vec![format!("{pad}{key}: {word}")],
        Written::Regions(regions) => std::iter::once(format!("{pad}{key}:"))
            .chain(
                regions
                    .iter()
                    .map(|r| format!("{pad}  - {}", region_text(r, ":"))),
            )
            .collect(),
        Written::Review(r) => vec![
            format!("{pad}{key}:"),
            format!("{pad}  by: {}", json_string(&r.by)),
            format!("{pad}  on: {}", r.on),
            format!("{pad}  covers: {}", json_string(&r.covers)),
        ],
    }
}
