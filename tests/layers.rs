//! The house keeps its shape: every `crate::` path in `src/` points to a lower floor of the
//! table in CONTRIBUTING.md (section "Layers"), and no file there passes 750 lines. A failure
//! names the file (and the line of an import).

use std::collections::BTreeMap;
use std::path::Path;

use crate::support::repo_root;

/// Module name -> floor, from the table between the markers in CONTRIBUTING.md.
fn floors(contributing: &str) -> BTreeMap<String, u32> {
    let start = contributing
        .find("<!-- layers:")
        .expect("CONTRIBUTING.md has the layers table");
    let end = contributing[start..]
        .find("<!-- /layers -->")
        .expect("the layers table ends")
        + start;
    let mut floors = BTreeMap::new();
    for row in contributing[start..end].lines() {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let Some(floor) = cells.get(1).and_then(|c| c.parse::<u32>().ok()) else {
            continue;
        };
        for module in cells[2].split(',') {
            let module = module.trim().trim_matches('`');
            assert!(
                floors.insert(module.to_string(), floor).is_none(),
                "CONTRIBUTING.md places `{module}` twice"
            );
        }
    }
    floors
}

/// The line without its comment (`//`, `///`, `//!`) and without the text of its string
/// literals, which may mention paths without importing them.
fn code_of(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' if in_string => {
                chars.next();
            }
            '"' => in_string = !in_string,
            '/' if !in_string && chars.peek() == Some(&'/') => break,
            _ if in_string => {}
            _ => out.push(c),
        }
    }
    out
}

/// The top-level modules a line of code names through `crate::`, grouped imports included
/// (`crate::{a::X, b}`).
fn named_modules(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let after = &rest[at + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            let mut depth = 0;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        found.push(std::mem::take(&mut item));
                        continue;
                    }
                    _ => {}
                }
                if depth == 0 && c != '}' {
                    item.push(c);
                }
            }
            found.push(item);
        } else {
            found.push(after.to_string());
        }
        rest = after;
    }
    found
        .into_iter()
        .map(|s| {
            s.trim()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect::<String>()
        })
        .filter(|m| !m.is_empty() && m != "self")
        .collect()
}

/// Every import of `files` (path relative to `src/`, text) that breaks the floors.
fn violations(floors: &BTreeMap<String, u32>, files: &[(String, String)]) -> Vec<String> {
    let mut problems = Vec::new();
    for (path, text) in files {
        let module = path
            .split('/')
            .next()
            .unwrap_or_default()
            .trim_end_matches(".rs")
            .to_string();
        let Some(&own) = floors.get(&module) else {
            problems.push(format!(
                "src/{path}: module `{module}` is not placed in the layers table of CONTRIBUTING.md"
            ));
            continue;
        };
        let mut in_block_comment = false;
        for (i, line) in text.lines().enumerate() {
            if in_block_comment || line.trim_start().starts_with("/*") {
                in_block_comment = !line.contains("*/");
                continue;
            }
            for used in named_modules(&code_of(line)) {
                if used == module {
                    continue;
                }
                match floors.get(&used) {
                    None => problems.push(format!(
                        "src/{path}:{}: `crate::{used}` is not placed in the layers table of CONTRIBUTING.md",
                        i + 1
                    )),
                    Some(&floor) if floor >= own => problems.push(format!(
                        "src/{path}:{}: `{module}` (floor {own}) uses `crate::{used}` (floor {floor}): a module may use only lower floors; move what it needs down",
                        i + 1
                    )),
                    Some(_) => {}
                }
            }
        }
    }
    problems
}

fn sources(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
        .map(|e| {
            let rel = e.path().strip_prefix(dir).unwrap();
            let rel = rel.to_string_lossy().replace('\\', "/");
            (rel, std::fs::read_to_string(e.path()).unwrap())
        })
        .collect();
    files.sort();
    files
}

#[test]
fn every_module_uses_only_lower_floors() {
    let contributing = std::fs::read_to_string(repo_root().join("CONTRIBUTING.md")).unwrap();
    let floors = floors(&contributing);
    let problems = violations(&floors, &sources(&repo_root().join("src")));
    assert!(
        problems.is_empty(),
        "{} import(s) break the layers:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn the_check_catches_upward_sideways_and_unplaced_imports() {
    let floors: BTreeMap<String, u32> = [("error", 0), ("output", 1), ("config", 1), ("site", 7)]
        .into_iter()
        .map(|(m, f)| (m.to_string(), f))
        .collect();
    let file = |path: &str, text: &str| (path.to_string(), text.to_string());
    let problems = violations(
        &floors,
        &[
            file(
                "output/write.rs",
                "//! uses crate::site in a comment\nuse crate::error::Error;\nuse crate::site::Stopwatch;\nlet s = \"crate::site\";\n",
            ),
            file(
                "config/mod.rs",
                "use crate::{error::Error, output::{Data, Output}};\n",
            ),
            file(
                "site/mod.rs",
                "use crate::config::Config;\nuse crate::output;\n",
            ),
            file("newcomer.rs", "use crate::error::Error;\n"),
            file("error.rs", "fn f() -> crate::nowhere::X {}\n"),
        ],
    );
    assert_eq!(
        problems,
        [
            "src/output/write.rs:3: `output` (floor 1) uses `crate::site` (floor 7): a module may use only lower floors; move what it needs down",
            "src/config/mod.rs:1: `config` (floor 1) uses `crate::output` (floor 1): a module may use only lower floors; move what it needs down",
            "src/newcomer.rs: module `newcomer` is not placed in the layers table of CONTRIBUTING.md",
            "src/error.rs:1: `crate::nowhere` is not placed in the layers table of CONTRIBUTING.md",
        ]
    );
}

/// A room a reader can take in at one sitting: no file of `src/` over this many lines.
const MAX_LINES: usize = 750;

/// Each file over `MAX_LINES`, with its count and what to do.
fn oversized(files: &[(String, String)]) -> Vec<String> {
    files
        .iter()
        .filter(|(_, text)| text.lines().count() > MAX_LINES)
        .map(|(path, text)| {
            format!(
                "src/{path}: {} lines, over {MAX_LINES}: split it by responsibility (a module of its own, or a `_tests.rs` beside it)",
                text.lines().count()
            )
        })
        .collect()
}

#[test]
fn no_source_file_passes_750_lines() {
    let problems = oversized(&sources(&repo_root().join("src")));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_size_check_names_a_file_one_line_over() {
    let at_limit = "x\n".repeat(MAX_LINES);
    let over = "x\n".repeat(MAX_LINES + 1);
    let files = [
        ("site/mod.rs".to_string(), at_limit),
        ("search/mod.rs".to_string(), over),
    ];
    assert_eq!(
        oversized(&files),
        [
            "src/search/mod.rs: 751 lines, over 750: split it by responsibility (a module of its own, or a `_tests.rs` beside it)"
        ]
    );
}

// ---- no circles inside a folder ------------------------------------------------------

/// The names a line of code takes from `prefix` (`super::`, `crate::output::`), grouped
/// imports included (`super::{a::X, b}` names `a` and `b`).
fn names_after(code: &str, prefix: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in code.match_indices(prefix) {
        let after = &code[at + prefix.len()..];
        // A path's root only: not the second `super::` of `super::super::x`, not `mysuper::`.
        let before = &code[..at];
        if before.ends_with("::")
            || before
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            continue;
        }
        // Only the first level of a group: `{a::{X, Y}, b}` names `a` and `b`.
        let items: Vec<&str> = match after.strip_prefix('{') {
            Some(group) => {
                let (mut depth, mut start, mut items) = (0, 0, Vec::new());
                for (i, c) in group.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => {
                            items.push(&group[start..i]);
                            break;
                        }
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            items.push(&group[start..i]);
                            start = i + 1;
                        }
                        _ => {}
                    }
                }
                items
            }
            None => vec![after],
        };
        for item in items {
            let name: String = item
                .trim()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                found.push(name);
            }
        }
    }
    found
}

/// The code of `text`, line by line, without comments and string literals.
fn code_lines(text: &str) -> String {
    text.lines().map(code_of).collect::<Vec<_>>().join("\n")
}

/// Within each folder of `files` (paths relative to `src/`) that has a `mod.rs`: which of
/// its files and subfolders name each other in a circle, through `super::`, the folder's
/// `crate::` path, or a name `mod.rs` re-exports from one of them. `mod.rs` itself is the
/// folder's front and takes no part; `*_tests.rs` files are tests of one module.
fn folder_circles(files: &[(String, String)]) -> Vec<String> {
    let mut folders: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (path, text) in files {
        let (folder, file) = path.rsplit_once('/').unwrap_or(("", path));
        folders
            .entry(folder.to_string())
            .or_default()
            .insert(file.to_string(), text.clone());
    }
    let mut problems = Vec::new();
    for (folder, members) in &folders {
        let Some(front) = members.get("mod.rs") else {
            continue;
        };
        let mut modules: BTreeMap<String, String> = members
            .iter()
            .filter(|(f, _)| *f != "mod.rs" && !f.ends_with("_tests.rs"))
            .filter_map(|(f, t)| Some((f.strip_suffix(".rs")?.to_string(), t.clone())))
            .collect();
        let sub = format!("{folder}/");
        for (path, text) in files {
            if let Some(child) = path
                .strip_prefix(&sub)
                .and_then(|p| p.strip_suffix("/mod.rs"))
            {
                if !child.contains('/') {
                    modules.insert(child.to_string(), text.clone());
                }
            }
        }
        // `pub(crate) use photos::Region;` in mod.rs: `super::Region` reaches `photos`.
        let front = code_lines(front);
        let mut reexported: BTreeMap<String, String> = BTreeMap::new();
        for module in modules.keys() {
            for prefix in [format!("use {module}::"), format!("use self::{module}::")] {
                for name in names_after(&front, &prefix) {
                    reexported.insert(name, module.clone());
                }
            }
        }
        let own_path = format!("crate::{}::", folder.replace('/', "::"));
        let mut uses: BTreeMap<&str, std::collections::BTreeSet<&str>> = BTreeMap::new();
        for (module, text) in &modules {
            let code = code_lines(text);
            let names = names_after(&code, "super::")
                .into_iter()
                .chain(names_after(&code, &own_path));
            let entry = uses.entry(module.as_str()).or_default();
            for name in names {
                let target = match modules.get_key_value(&name) {
                    Some((m, _)) => Some(m.as_str()),
                    None => reexported.get(&name).map(String::as_str),
                };
                if let Some(target) = target.filter(|t| *t != module) {
                    entry.insert(target);
                }
            }
        }
        // A circle through `start`: a path of uses that comes back to it.
        let mut reported: std::collections::BTreeSet<Vec<&str>> = Default::default();
        for start in uses.keys() {
            let mut stack = vec![vec![*start]];
            let mut seen = std::collections::BTreeSet::new();
            while let Some(path) = stack.pop() {
                let last = *path.last().unwrap();
                for next in uses.get(last).into_iter().flatten() {
                    if *next == *start {
                        let mut members = path.clone();
                        members.sort();
                        if reported.insert(members) {
                            problems.push(format!(
                                "src/{folder}/: {} -> {start} import each other in a circle: move what they share to mod.rs or a module of its own",
                                path.join(" -> ")
                            ));
                        }
                    } else if seen.insert(*next) {
                        let mut longer = path.clone();
                        longer.push(next);
                        stack.push(longer);
                    }
                }
            }
        }
    }
    problems
}

#[test]
fn no_files_of_one_folder_import_each_other_in_a_circle() {
    let problems = folder_circles(&sources(&repo_root().join("src")));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_circle_check_finds_direct_grouped_and_re_exported_circles() {
    let file = |path: &str, text: &str| (path.to_string(), text.to_string());
    let files = [
        file(
            "a/mod.rs",
            "mod fill;\nmod pipeline;\npub(crate) use pipeline::Rect;\n",
        ),
        // Through a name mod.rs re-exports, and through the folder's crate path.
        file("a/fill.rs", "use super::Rect;\n"),
        file("a/pipeline.rs", "fn f() { crate::a::fill::check(); }\n"),
        file("b/mod.rs", "mod x;\nmod y;\nmod z;\nmod y_tests;\n"),
        // Grouped, and only in a comment or a string: the comment and string are no use.
        file("b/x.rs", "use super::{y::Y, other};\n// super::z\n"),
        file(
            "b/y.rs",
            "use super::z::Z;\nconst S: &str = \"super::x\";\n",
        ),
        file("b/z.rs", "use super::{x};\n"),
        file("b/y_tests.rs", "use super::x;\n"),
        // No circle: one way only.
        file("c/mod.rs", "mod p;\nmod q;\n"),
        file("c/p.rs", "use super::q::Q;\n"),
        file("c/q.rs", "use super::super::p;\n"),
    ];
    assert_eq!(
        folder_circles(&files),
        [
            "src/a/: fill -> pipeline -> fill import each other in a circle: move what they share to mod.rs or a module of its own",
            "src/b/: x -> y -> z -> x import each other in a circle: move what they share to mod.rs or a module of its own",
        ]
    );
}
