//! Names every common system can hold. A site that builds on Linux must also check out and
//! publish on Windows and macOS: Windows refuses device names, some characters and names
//! ending in a dot or a space; macOS (and Windows) take two names that differ only in case,
//! or in how their letters are composed, for one. One check serves the site's source files
//! and the built site's output paths.

use std::borrow::Cow;

use unicode_normalization::UnicodeNormalization;

/// Why a name Windows refuses is a problem, for hints.
pub(crate) const WINDOWS_WHY: &str = "Windows cannot hold this name; a checkout there fails";

/// Why two names written with the same letters composed differently are a problem.
const COMPOSED_WHY: &str = "macOS treats these two names as one";

/// Why two names that differ only in case are a problem.
const CASE_WHY: &str = "macOS and Windows treat these two names as one";

/// Device names Windows reserves, whatever the extension (`aux.md`, `nul.tar.gz`).
const DEVICES: &[&str] = &["con", "prn", "aux", "nul"];

/// Why Windows cannot hold `name` (one file or folder name), if it cannot.
pub(crate) fn unportable_name(name: &str) -> Option<String> {
    if let Some(c) = name
        .chars()
        .find(|c| c.is_ascii_control() && *c != '\u{7f}' || r#"<>:"|?*\"#.contains(*c))
    {
        let what = if c.is_ascii_control() {
            format!("the control character {}", c.escape_unicode())
        } else {
            format!("`{c}`")
        };
        return Some(format!(
            "`{}` holds {what}, which Windows does not allow in a name",
            name.escape_debug()
        ));
    }
    if let Some(last) = name.chars().last().filter(|c| matches!(c, '.' | ' ')) {
        let what = if last == '.' { "a dot" } else { "a space" };
        return Some(format!(
            "`{name}` ends in {what}, which Windows drops from a name"
        ));
    }
    // Windows also drops spaces before the extension: `con .txt` is `con`.
    let stem = name.split('.').next().unwrap_or(name).trim_end_matches(' ');
    let lower = stem.to_lowercase();
    let device = DEVICES.contains(&lower.as_str())
        || ["com", "lpt"].iter().any(|p| {
            lower.strip_prefix(p).is_some_and(|n| {
                matches!(
                    n,
                    "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" | "¹" | "²" | "³"
                )
            })
        });
    device.then(|| {
        format!(
            "`{name}`: Windows reserves the name `{}` for a device, with or without an extension",
            stem.to_uppercase()
        )
    })
}

/// A path that some common system cannot hold, or two that it takes for one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unportable<'a> {
    /// The path up to the name at fault (a folder, or the whole path).
    pub(crate) path: &'a str,
    /// The path it would be one with, for two names some system takes for one.
    pub(crate) other: Option<&'a str>,
    pub(crate) message: String,
    /// What to do, and why.
    pub(crate) hint: String,
}

/// Every name of `paths` (`/`-separated) that Windows cannot hold, reported once per name
/// at fault however many paths pass through it, and every two paths (or folders of them)
/// that are one on macOS or Windows: equal once their letters are composed alike (NFC) or
/// once case is folded. Paths equal as they are written are not compared (two sources of
/// one output are reported as such elsewhere).
pub(crate) fn unportable_paths<'a>(
    paths: impl IntoIterator<Item = &'a str>,
) -> Vec<Unportable<'a>> {
    let mut found = Vec::new();
    let mut bad_prefixes = std::collections::HashSet::new();
    // Folded name of each path and folder -> its first spelling.
    let mut folded: rustc_hash::FxHashMap<Cow<'a, str>, &'a str> = Default::default();
    let mut pairs = std::collections::HashSet::new();
    for path in paths {
        let mut end = 0;
        for name in path.split('/') {
            let start = end;
            end = start + name.len();
            let prefix = &path[..end];
            end += 1;
            if let Some(problem) = unportable_name(name) {
                if bad_prefixes.insert(prefix) {
                    found.push(Unportable {
                        path: prefix,
                        other: None,
                        message: problem,
                        hint: format!("rename it: {WINDOWS_WHY}"),
                    });
                }
                break;
            }
            match folded.entry(fold(prefix)) {
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(prefix);
                }
                std::collections::hash_map::Entry::Occupied(o) => {
                    // In a fixed order, whichever comes first.
                    let (first, second) = ((*o.get()).min(prefix), (*o.get()).max(prefix));
                    if first != second {
                        if pairs.insert((first, second)) {
                            found.push(clash(first, second));
                        }
                        // What is below it is one with what is below the other: said once.
                        break;
                    }
                }
            }
        }
    }
    found
}

/// [`unportable_paths`] of the site's source files (`content/...`), as diagnostics.
pub(crate) fn unportable_sources<'a>(
    paths: impl IntoIterator<Item = &'a str>,
) -> Vec<crate::error::Diagnostic> {
    unportable_paths(paths)
        .into_iter()
        .map(|u| crate::error::Diagnostic::new(u.path, u.message).hint(u.hint))
        .collect()
}

fn clash<'a>(first: &'a str, second: &'a str) -> Unportable<'a> {
    let composed = first.nfc().eq(second.nfc());
    let (how, why) = if composed {
        ("the same letters, composed differently", COMPOSED_WHY)
    } else {
        ("they differ only in case", CASE_WHY)
    };
    Unportable {
        path: second,
        other: Some(first),
        message: format!("`{second}` and `{first}` are one name on some systems ({how})"),
        hint: format!("rename one of them: {why}"),
    }
}

/// The form two names share when a case-insensitive, normalization-insensitive file
/// system takes them for one.
fn fold(name: &str) -> Cow<'_, str> {
    if name
        .bytes()
        .all(|b| b.is_ascii() && !b.is_ascii_uppercase())
    {
        Cow::Borrowed(name)
    } else {
        Cow::Owned(name.nfc().flat_map(char::to_lowercase).nfc().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_device_names_are_refused_with_any_extension_and_case() {
        for name in [
            "CON",
            "aux.md",
            "Con.txt",
            "nul.tar.gz",
            "com1",
            "LPT9.pdf",
            "com¹",
            "lpt³.x",
            "prn ",
            "aux .txt",
        ] {
            assert!(unportable_name(name).is_some(), "{name}");
        }
        for name in [
            "console",
            "auxiliary.md",
            "com0",
            "com10",
            "lpt",
            "nul-1",
            "x.aux",
            "تقرير.pdf",
            "Café",
            "c-001",
        ] {
            assert_eq!(unportable_name(name), None, "{name}");
        }
    }

    #[test]
    fn reserved_characters_control_characters_and_trailing_dots_or_spaces_are_refused() {
        for name in [
            "a<b",
            "a>b",
            "a:b",
            "a\"b",
            "a|b",
            "a?b",
            "a*b",
            "a\\b",
            "a\u{1}b",
            "tab\there",
            "end.",
            "end ",
        ] {
            assert!(unportable_name(name).is_some(), "{name:?}");
        }
        assert_eq!(unportable_name("a\u{7f}b"), None);
        assert!(unportable_name("a\u{1f}b").unwrap().contains("\\u{1f}"));
    }

    #[test]
    fn names_one_on_macos_or_windows_are_paired_and_a_bad_folder_is_told_once() {
        let nfc = "static/Caf\u{e9}.txt";
        let nfd = "static/Cafe\u{301}.txt";
        let found = unportable_paths([nfc, nfd, "x/Case-1/a", "x/case-1/b", "x/ok"]);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!((found[0].path, found[0].other), (nfc, Some(nfd)));
        assert!(found[0].hint.contains("macOS treats"));
        assert_eq!(
            (found[1].path, found[1].other),
            ("x/case-1", Some("x/Case-1"))
        );
        assert!(found[1].hint.contains("Windows"));
        let found = unportable_paths(["a/aux/1", "a/aux/2", "a/aux", "b/aux.md"]);
        let paths: Vec<&str> = found.iter().map(|u| u.path).collect();
        assert_eq!(paths, ["a/aux", "b/aux.md"]);
        assert!(unportable_paths(["same", "same", "مرحبا/تقرير.pdf"]).is_empty());
    }
}
