//! The bundled site's facts hold up to a check (issue 32): every footnote reference in
//! `content/` resolves to a definition in the same file, every definition cites an entry of
//! the same language's sources page (`@/sources.md#id`, an `### Title {#id}` heading there),
//! and every entry there is cited at least once. Each problem names its file and line.
//!
//! Sample cases are synthetic (issue 45): their pages cite nothing and say nothing about the
//! real report, so a sample can never be read as evidence. And the phrasings corrected in
//! issue 45 (wrong, or not supported by their sources) must not come back in either language.
//!
//! The checker reads the Markdown text itself rather than the built HTML, because
//! pulldown-cmark renders a reference without a definition as plain text and the build
//! would not notice it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::support::repo_root;

/// One Markdown file: its path below the site root, language and lines without front matter
/// and code (numbered as in the file).
struct Page {
    path: String,
    lang: &'static str,
    lines: Vec<(usize, String)>,
}

/// A footnote definition: its label, where it is, and its text.
struct Definition {
    line: usize,
    text: String,
}

/// An entry of a sources page: its id, heading line and the text up to the next heading.
struct Entry {
    line: usize,
    text: String,
}

fn read_pages(root: &Path) -> Vec<Page> {
    let mut pages = Vec::new();
    for entry in walkdir::WalkDir::new(root.join("content"))
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
    {
        let path = entry
            .path()
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let lang = if path.ends_with(".ar.md") { "ar" } else { "en" };
        let text = std::fs::read_to_string(entry.path()).unwrap();
        pages.push(Page {
            path,
            lang,
            lines: prose_lines(&text),
        });
    }
    pages
}

/// The lines that are Markdown prose: front matter, fenced code and inline code removed.
fn prose_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut in_front = text.starts_with("+++");
    let mut fence: Option<&str> = None;
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        if in_front {
            if i > 0 && line.trim_end() == "+++" {
                in_front = false;
            }
            continue;
        }
        let trimmed = line.trim_start();
        if let Some(marker) = fence {
            if trimmed.starts_with(marker) {
                fence = None;
            }
            continue;
        }
        if let Some(marker) = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m)) {
            fence = Some(marker);
            continue;
        }
        out.push((number, without_inline_code(line)));
    }
    out
}

fn without_inline_code(line: &str) -> String {
    line.split('`')
        .enumerate()
        .filter(|(i, _)| i % 2 == 0)
        .map(|(_, part)| part)
        .collect::<Vec<_>>()
        .join(" ")
}

/// `[^label]` occurrences in a piece of text.
fn references(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("[^") {
        let after = &rest[start + 2..];
        match after.find(']') {
            Some(end) if !after[..end].contains([' ', '[']) && end > 0 => {
                out.push(after[..end].to_string());
                rest = &after[end + 1..];
            }
            _ => rest = after,
        }
    }
    out
}

/// The entry ids a definition cites: every `@/sources.md#id` in it.
fn cited_ids(text: &str) -> Vec<String> {
    text.match_indices("@/sources.md#")
        .map(|(at, m)| {
            text[at + m.len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '-' || *c == '_')
                .collect()
        })
        .collect()
}

/// `### Title {#id}` headings of a sources page, with the text that follows each.
fn entries(page: &Page) -> BTreeMap<String, Entry> {
    let mut out: BTreeMap<String, Entry> = BTreeMap::new();
    let mut current: Option<String> = None;
    for (number, line) in &page.lines {
        if line.starts_with('#') {
            current = None;
            if let Some(id) = line
                .strip_prefix("### ")
                .and_then(|h| h.trim_end().strip_suffix('}'))
                .and_then(|h| h.rsplit_once("{#"))
                .map(|(_, id)| id.to_string())
            {
                out.insert(
                    id.clone(),
                    Entry {
                        line: *number,
                        text: String::new(),
                    },
                );
                current = Some(id);
            }
        } else if let Some(entry) = current.as_ref().and_then(|id| out.get_mut(id)) {
            entry.text.push_str(line);
            entry.text.push('\n');
        }
    }
    out
}

/// A sample case's page (`content/cases/<id>/index*.md`), as opposed to the section's index.
fn is_sample_case(path: &str) -> bool {
    path.strip_prefix("content/cases/")
        .is_some_and(|rest| rest.contains('/'))
}

/// What a sample case may not do: cite a source, link to the pages about the real report and
/// its sources, or mention the report, its witness or its later analysts. A synthetic record
/// that did would lend invented detail the weight of the real evidence.
fn sample_case_problems(page: &Page) -> Vec<String> {
    const LINKS: [&str; 5] = [
        "@/report/",
        "@/sources.md",
        "@/timeline.md",
        "@/figures.md",
        "@/authors/",
    ];
    const WORDS: [&str; 8] = [
        "report",
        "caesar",
        "human rights watch",
        "geneva",
        "تقرير",
        "قيصر",
        "هيومن رايتس",
        "جنيف",
    ];
    let mut out = Vec::new();
    for (number, line) in &page.lines {
        let mut found: Vec<String> = Vec::new();
        if line.contains("[^") {
            found.push("a footnote".into());
        }
        found.extend(
            LINKS
                .iter()
                .filter(|l| line.contains(**l))
                .map(|l| format!("a link to `{l}`")),
        );
        let folded = fold(line);
        found.extend(
            WORDS
                .iter()
                .filter(|w| folded.contains(&fold(w)))
                .map(|w| format!("the word `{w}`")),
        );
        for what in found {
            push_sample_problem(&mut out, page, *number, &what);
        }
    }
    out
}

fn push_sample_problem(out: &mut Vec<String>, page: &Page, number: usize, what: &str) {
    out.push(format!(
        "{}:{number}: sample case has {what}: a synthetic record cites no source and states nothing about the real report (describe only the invented record)",
        page.path
    ));
}

/// Lower case, without Arabic diacritics and tatweel, so a phrase is found however it is
/// vowelled.
fn fold(text: &str) -> String {
    text.chars()
        .filter(|c| !matches!(*c, '\u{64B}'..='\u{65F}' | '\u{670}' | '\u{640}'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Phrasings issue 45 corrected, each with why; found case-insensitively in either language.
const CORRECTED: [(&str, &str); 14] = [
    ("known only by", "Caesar named himself in February 2025"),
    ("لا يُعرف إلا باسمه", "Caesar named himself in February 2025"),
    (
        "rather than the content",
        "the objections also concern the content",
    ),
    ("لا بمضمون الصور", "the objections also concern the content"),
    (
        "commissioned and paid for",
        "the cited sources do not say \"paid for\"",
    ),
    (
        "كلّفت بالتحقيق وموّلته",
        "the cited sources do not say \"paid for\"",
    ),
    (
        "one day before",
        "the report came out two days before Geneva II",
    ),
    (
        "the day before the geneva",
        "the report came out two days before Geneva II",
    ),
    (
        "قبل يوم واحد",
        "the report came out two days before Geneva II",
    ),
    (
        "or the bodies of government soldiers",
        "HRW wrote \"identified by name as\"",
    ),
    ("أو جثث جنود حكوميين", "HRW wrote \"identified by name as\""),
    (
        "all but one of the dead",
        "no source says so; samples make no claim",
    ),
    (
        "توجيه اتهامات",
        "Al Jazeera reported \"findings\", not charges",
    ),
    ("all but one", "no source says so; samples make no claim"),
];

/// Every line of the site at `root` that repeats a corrected phrasing, with file and line.
fn corrected_phrasings(root: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    for page in read_pages(root) {
        for (number, line) in &page.lines {
            let folded = fold(line);
            for (phrase, why) in CORRECTED {
                if folded.contains(&fold(phrase)) {
                    problems.push(format!(
                        "{}:{number}: `{phrase}` was corrected in issue 45 ({why})",
                        page.path
                    ));
                }
            }
        }
    }
    problems
}

/// Every problem with the footnotes and sources of the site at `root`, sorted, each
/// starting with `file:line:`.
fn check(root: &Path) -> Vec<String> {
    let pages = read_pages(root);
    let mut problems = Vec::new();
    let mut sources: BTreeMap<&str, (&Page, BTreeMap<String, Entry>)> = BTreeMap::new();
    for page in &pages {
        if page.path == "content/sources.md" || page.path == "content/sources.ar.md" {
            sources.insert(page.lang, (page, entries(page)));
        }
    }
    let mut cited: BTreeSet<(&str, String)> = BTreeSet::new();
    for page in pages.iter().filter(|p| is_sample_case(&p.path)) {
        problems.extend(sample_case_problems(page));
    }
    for page in &pages {
        let mut defs: BTreeMap<String, Definition> = BTreeMap::new();
        let mut refs: Vec<(usize, String)> = Vec::new();
        let mut open: Option<String> = None;
        for (number, line) in &page.lines {
            let definition = line
                .strip_prefix("[^")
                .and_then(|l| l.split_once("]:"))
                .filter(|(label, _)| !label.contains(' '));
            if let Some((label, text)) = definition {
                if defs.contains_key(label) {
                    problems.push(format!(
                        "{}:{number}: footnote `{label}` is defined twice",
                        page.path
                    ));
                }
                defs.insert(
                    label.to_string(),
                    Definition {
                        line: *number,
                        text: text.to_string(),
                    },
                );
                refs.extend(references(text).into_iter().map(|r| (*number, r)));
                open = Some(label.to_string());
                continue;
            }
            // A definition goes on over indented lines.
            match open.as_ref().and_then(|label| defs.get_mut(label)) {
                Some(def) if line.starts_with("    ") || line.starts_with('\t') => {
                    def.text.push('\n');
                    def.text.push_str(line);
                }
                _ => open = None,
            }
            refs.extend(references(line).into_iter().map(|r| (*number, r)));
        }
        let used: BTreeSet<&str> = refs.iter().map(|(_, r)| r.as_str()).collect();
        for (number, label) in &refs {
            if !defs.contains_key(label) {
                problems.push(format!(
                    "{}:{number}: footnote reference `[^{label}]` has no definition in this file (add `[^{label}]: ... See [Sources](@/sources.md#ID).`)",
                    page.path
                ));
            }
        }
        let entries = sources.get(page.lang).map(|(_, e)| e);
        let sources_file = if page.lang == "ar" {
            "content/sources.ar.md"
        } else {
            "content/sources.md"
        };
        for (label, def) in &defs {
            if !used.contains(label.as_str()) {
                problems.push(format!(
                    "{}:{}: footnote `{label}` is defined but never referenced",
                    page.path, def.line
                ));
            }
            let ids = cited_ids(&def.text);
            if ids.is_empty() {
                problems.push(format!(
                    "{}:{}: footnote `{label}` names no source (link it to an entry: `[Sources](@/sources.md#ID)`)",
                    page.path, def.line
                ));
            }
            for id in ids {
                if !entries.is_some_and(|e| e.contains_key(&id)) {
                    problems.push(format!(
                        "{}:{}: footnote `{label}` cites `#{id}`, which is not an entry of {sources_file} (entries are `### Title {{#id}}` headings)",
                        page.path, def.line
                    ));
                }
                cited.insert((page.lang, id));
            }
        }
    }
    for (lang, (page, entries)) in &sources {
        let mut links: BTreeMap<String, usize> = BTreeMap::new();
        for (id, entry) in entries {
            if !cited.contains(&(*lang, id.clone())) {
                problems.push(format!(
                    "{}:{}: source `{id}` is cited by no page (cite it or remove it)",
                    page.path, entry.line
                ));
            }
            if !entry
                .text
                .split(|c: char| !c.is_ascii_digit())
                .any(|w| w.len() == 4 && (w.starts_with("19") || w.starts_with("20")))
            {
                problems.push(format!(
                    "{}:{}: source `{id}` gives no date",
                    page.path, entry.line
                ));
            }
            for url in entry.text.split("](").skip(1) {
                let url = url.split(')').next().unwrap_or_default().to_string();
                if let Some(first) = links.insert(url.clone(), entry.line) {
                    problems.push(format!(
                        "{}:{}: source `{id}` links {url}, already listed at line {first} (list each source once)",
                        page.path, entry.line
                    ));
                }
            }
        }
    }
    // Both editions cite the same sources.
    if let (Some((_, en)), Some((ar_page, ar))) = (sources.get("en"), sources.get("ar")) {
        let en_ids: BTreeSet<&String> = en.keys().collect();
        let ar_ids: BTreeSet<&String> = ar.keys().collect();
        for id in en_ids.symmetric_difference(&ar_ids) {
            problems.push(format!(
                "{}:1: source `{id}` is listed in only one language's sources page",
                ar_page.path
            ));
        }
    }
    problems.sort();
    problems
}

#[test]
fn every_footnote_of_the_bundled_site_cites_a_listed_source_and_every_source_is_cited() {
    let problems = check(&repo_root());
    assert!(
        problems.is_empty(),
        "{} problem(s) with footnotes and sources:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn no_page_of_the_bundled_site_repeats_a_corrected_phrasing() {
    let problems = corrected_phrasings(&repo_root());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The phrasing check finds each phrase in either language, whatever the case or vowelling.
#[test]
fn the_phrasing_check_finds_each_corrected_phrasing() {
    let dir = tempfile::tempdir().unwrap();
    let body: String = CORRECTED
        .iter()
        .map(|(phrase, _)| format!("Text {} text.\n", phrase.to_uppercase()))
        .collect();
    std::fs::create_dir_all(dir.path().join("content")).unwrap();
    std::fs::write(
        dir.path().join("content/page.md"),
        format!("+++\ntitle = \"P\"\n+++\n{body}"),
    )
    .unwrap();
    // Unvowelled Arabic is found too.
    std::fs::write(
        dir.path().join("content/page.ar.md"),
        "+++\ntitle = \"P\"\n+++\nكلفت بالتحقيق ومولته\n",
    )
    .unwrap();
    let problems = corrected_phrasings(dir.path());
    for (i, (phrase, _)) in CORRECTED.iter().enumerate() {
        let want = format!("content/page.md:{}: `{phrase}`", i + 4);
        assert!(
            problems.iter().any(|p| p.starts_with(&want)),
            "missing {want:?} in:\n{}",
            problems.join("\n")
        );
    }
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("content/page.ar.md:4: `كلّفت بالتحقيق وموّلته`")),
        "{}",
        problems.join("\n")
    );
}

/// The checker itself finds each kind of problem, with file and line.
#[test]
fn the_facts_check_finds_dangling_and_unsourced_notes_and_uncited_sources() {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "content/sources.md",
        "+++\ntitle = \"Sources\"\n+++\n\n## Press\n\n### Paper, 2014 {#paper}\n\nPaper, \"Title\", 1 May 2014. [x](https://example.org/a)\n\n### Unused, 2015 {#unused}\n\nUnused, \"Title\", 2015. [x](https://example.org/a)\n\n### Undated {#undated}\n\nNo date here.\n",
    );
    write(
        "content/sources.ar.md",
        "+++\ntitle = \"المصادر\"\n+++\n\n### صحيفة {#paper}\n\nصحيفة، 2014.\n",
    );
    write(
        "content/page.md",
        "+++\ntitle = \"Page\"\n+++\n\nA fact.[^paper] Another.[^gone] A third.[^bare]\n\n```\n[^in-code]\n```\n\n[^paper]: Paper. See [Sources](@/sources.md#paper).\n\n[^bare]: Paper, without a link.\n\n[^spare]: See [Sources](@/sources.md#missing).\n\n[^undated]: See [Sources](@/sources.md#undated).\n",
    );
    write(
        "content/page.ar.md",
        "+++\ntitle = \"صفحة\"\n+++\n\nواقعة.[^paper]\n\n[^paper]: انظر [المصادر](@/sources.md#paper).\n",
    );
    write(
        "content/cases/syn-1/index.md",
        "+++\ntitle = \"Sample\"\n+++\n\nInvented.\n\nAs the Caesar [Report](@/report/_index.md#findings) found.[^paper]\n\n[^paper]: See [Sources](@/sources.md#paper).\n",
    );
    write(
        "content/cases/syn-1/index.ar.md",
        "+++\ntitle = \"نموذج\"\n+++\n\nكما ذكر التقرير.\n",
    );
    write(
        "content/cases/_index.md",
        "+++\ntitle = \"Cases\"\n+++\n\nAs the report describes.[^paper]\n\n[^paper]: See [Sources](@/sources.md#paper).\n",
    );
    let problems = check(dir.path());
    let expected = [
        "content/cases/syn-1/index.ar.md:5: sample case has the word `تقرير`",
        "content/cases/syn-1/index.md:7: sample case has a footnote",
        "content/cases/syn-1/index.md:7: sample case has a link to `@/report/`",
        "content/cases/syn-1/index.md:7: sample case has the word `report`",
        "content/cases/syn-1/index.md:7: sample case has the word `caesar`",
        "content/cases/syn-1/index.md:9: sample case has a footnote",
        "content/cases/syn-1/index.md:9: sample case has a link to `@/sources.md`",
        "content/page.md:5: footnote reference `[^gone]` has no definition in this file",
        "content/page.md:13: footnote `bare` names no source",
        "content/page.md:15: footnote `spare` is defined but never referenced",
        "content/page.md:15: footnote `spare` cites `#missing`, which is not an entry of content/sources.md",
        "content/page.md:17: footnote `undated` is defined but never referenced",
        "content/sources.md:11: source `unused` is cited by no page",
        "content/sources.md:11: source `unused` links https://example.org/a, already listed at line 7",
        "content/sources.md:15: source `undated` gives no date",
        "content/sources.ar.md:1: source `undated` is listed in only one language's sources page",
        "content/sources.ar.md:1: source `unused` is listed in only one language's sources page",
    ];
    for want in expected {
        assert!(
            problems.iter().any(|p| p.starts_with(want)),
            "missing {want:?} in:\n{}",
            problems.join("\n")
        );
    }
    assert_eq!(problems.len(), expected.len(), "{}", problems.join("\n"));
}
