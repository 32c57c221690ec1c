use super::*;
use proptest::prelude::*;

fn region(x: f64, y: f64, w: f64, h: f64) -> Region {
    Region {
        x,
        y,
        w,
        h,
        method: RedactMethod::Fill,
    }
}

fn review() -> Review {
    Review {
        by: "A. Editor".into(),
        on: "2024-05-14".into(),
        covers: "0123456789abcdef".into(),
    }
}

const TOML_FILE: &str = "+++\ntitle = \"T\"  # the title\n\n# photographs\n[[photos]]\nfile = \"a.jpg\"\nalt = \"A\"   # alt kept\nredact = [ { x = 0.30, y = 0.13, w = 0.40, h = 0.30 } ]  # old\n\n[[photos]]\nfile = \"b.jpg\"\nalt = \"B\"\ncaption = \"Cap\"\n+++\n\nBody [[photos]] stays.\n";

#[test]
fn a_toml_entry_changes_only_its_edited_keys() {
    let edit = PhotoEdit {
        redact: Some(vec![
            region(0.3, 0.05, 0.4, 0.3),
            Region {
                method: RedactMethod::Pixelate,
                ..region(0.123_456, 0.5, 0.2, 0.25)
            },
        ]),
        sensitivity: Some(Sensitivity::Sensitive),
        reviewed: Some(Some(review())),
        ..PhotoEdit::default()
    };
    let out = edit_photo(TOML_FILE, "a.jpg", &edit).unwrap();
    assert_eq!(
        out,
        "+++\ntitle = \"T\"  # the title\n\n# photographs\n[[photos]]\nfile = \"a.jpg\"\nalt = \"A\"   # alt kept\nredact = [\n  { x = 0.3, y = 0.05, w = 0.4, h = 0.3 },\n  { x = 0.1235, y = 0.5, w = 0.2, h = 0.25, method = \"pixelate\" },\n]  # old\nsensitivity = \"sensitive\"\nreviewed = { by = \"A. Editor\", on = 2024-05-14, covers = \"0123456789abcdef\" }\n\n[[photos]]\nfile = \"b.jpg\"\nalt = \"B\"\ncaption = \"Cap\"\n+++\n\nBody [[photos]] stays.\n"
    );
    // Removing: an empty list, no caption, no review.
    let out = edit_photo(
        &out,
        "a.jpg",
        &PhotoEdit {
            redact: Some(Vec::new()),
            reviewed: Some(None),
            ..PhotoEdit::default()
        },
    )
    .unwrap();
    let out = edit_photo(
        &out,
        "b.jpg",
        &PhotoEdit {
            caption: Some(None),
            alt: Some("B, new".into()),
            ..PhotoEdit::default()
        },
    )
    .unwrap();
    assert_eq!(
        out,
        "+++\ntitle = \"T\"  # the title\n\n# photographs\n[[photos]]\nfile = \"a.jpg\"\nalt = \"A\"   # alt kept\nsensitivity = \"sensitive\"\n\n[[photos]]\nfile = \"b.jpg\"\nalt = \"B, new\"\n+++\n\nBody [[photos]] stays.\n"
    );
}

#[test]
fn an_inline_photos_list_crlf_and_a_bom_survive() {
    let text = "\u{feff}+++\r\ntitle = \"T\"\r\nphotos = [ { file = \"a.jpg\", alt = \"A\" }, { file = \"b.jpg\", alt = \"B\" } ]\r\n+++\r\nBody\r\n";
    let out = edit_photo(
        text,
        "b.jpg",
        &PhotoEdit {
            sensitivity: Some(Sensitivity::None),
            caption: Some(Some("C".into())),
            ..PhotoEdit::default()
        },
    )
    .unwrap();
    assert_eq!(
        out,
        "\u{feff}+++\r\ntitle = \"T\"\r\nphotos = [ { file = \"a.jpg\", alt = \"A\" }, { file = \"b.jpg\", alt = \"B\", sensitivity = \"none\", caption = \"C\" } ]\r\n+++\r\nBody\r\n"
    );
    let out = edit_photo(
        text,
        "a.jpg",
        &PhotoEdit {
            redact: Some(vec![region(0.1, 0.1, 0.2, 0.2)]),
            ..PhotoEdit::default()
        },
    )
    .unwrap();
    assert!(out.starts_with("\u{feff}+++\r\ntitle = \"T\"\r\nphotos = [ { file = \"a.jpg\", alt = \"A\", redact = [\r\n  { x = 0.1, y = 0.1, w = 0.2, h = 0.2 },\r\n] }"), "{out}");
}

#[test]
fn what_cannot_be_written_is_refused() {
    let bad = |edit: PhotoEdit| edit_photo(TOML_FILE, "a.jpg", &edit).unwrap_err();
    assert!(
        bad(PhotoEdit {
            redact: Some(vec![region(0.5, 0.5, 0.6, f64::NAN)]),
            ..PhotoEdit::default()
        })
        .contains("fractions from 0 to 1")
    );
    assert!(
        bad(PhotoEdit {
            redact: Some(vec![region(0.5, 0.5, 0.000_01, 0.2)]),
            ..PhotoEdit::default()
        })
        .contains("empty")
    );
    assert!(
        bad(PhotoEdit {
            alt: Some("  ".into()),
            ..PhotoEdit::default()
        })
        .contains("alt text is empty")
    );
    let mut r = review();
    r.on = "2023-02-29".into();
    assert!(
        bad(PhotoEdit {
            reviewed: Some(Some(r)),
            ..PhotoEdit::default()
        })
        .contains("not a date")
    );
    assert!(
        edit_photo(TOML_FILE, "c.jpg", &PhotoEdit::default())
            .unwrap_err()
            .contains("no photograph `c.jpg`")
    );
    let twice = "+++\n[[photos]]\nfile = \"a.jpg\"\nalt = \"A\"\n[[photos]]\nfile = \"a.jpg\"\nalt = \"B\"\n+++\n";
    assert!(
        edit_photo(twice, "a.jpg", &PhotoEdit::default())
            .unwrap_err()
            .contains("more than once")
    );
    // A region past the edge once rounded is kept within the image.
    let out = edit_photo(
        TOML_FILE,
        "a.jpg",
        &PhotoEdit {
            redact: Some(vec![region(0.333_35, 0.0, 0.666_65, 1.0)]),
            ..PhotoEdit::default()
        },
    )
    .unwrap();
    assert!(
        out.contains("{ x = 0.3334, y = 0.0, w = 0.6666, h = 1.0 }"),
        "{out}"
    );
}

const YAML_FILE: &str = "---\ntitle: T   # kept\nphotos:\n  - file: a.jpg   # first\n    alt: 'A'\n    redact:\n      - {x: 0.30, y: 0.13, w: 0.40, h: 0.30}\n    caption: |\n      Two\n      lines\n\n  - alt: B\n    file: \"b.jpg\"\ntags: [x]\n---\nBody\n";

#[test]
fn a_yaml_entry_keeps_block_style() {
    let out = edit_photo(
        YAML_FILE,
        "a.jpg",
        &PhotoEdit {
            redact: Some(vec![region(0.3, 0.05, 0.4, 0.3)]),
            caption: Some(None),
            reviewed: Some(Some(review())),
            ..PhotoEdit::default()
        },
    )
    .unwrap();
    assert_eq!(
        out,
        "---\ntitle: T   # kept\nphotos:\n  - file: a.jpg   # first\n    alt: 'A'\n    redact:\n      - { x: 0.3, y: 0.05, w: 0.4, h: 0.3 }\n    reviewed:\n      by: \"A. Editor\"\n      on: 2024-05-14\n      covers: \"0123456789abcdef\"\n\n  - alt: B\n    file: \"b.jpg\"\ntags: [x]\n---\nBody\n"
    );
    // The item's first key keeps its dash.
    let out = edit_photo(
        YAML_FILE,
        "b.jpg",
        &PhotoEdit {
            alt: Some("B2".into()),
            sensitivity: Some(Sensitivity::Graphic),
            ..PhotoEdit::default()
        },
    )
    .unwrap();
    assert!(
        out.contains("  - alt: \"B2\"\n    file: \"b.jpg\"\n    sensitivity: graphic\ntags: [x]\n"),
        "{out}"
    );
}

#[test]
fn a_yaml_edit_that_cannot_keep_the_form_says_so() {
    let flow = "---\ntitle: T\nphotos: [{file: a.jpg, alt: A}]\n---\n";
    let message = edit_photo(flow, "a.jpg", &PhotoEdit::default()).unwrap_err();
    assert!(message.contains("block style"), "{message}");
    assert!(message.contains("TOML"), "{message}");
    let flow_item = "---\nphotos:\n  - {file: a.jpg, alt: A}\n---\n";
    let message = edit_photo(flow_item, "a.jpg", &PhotoEdit::default()).unwrap_err();
    assert!(message.contains("block style"), "{message}");
}

#[test]
fn translated_alt_text_and_captions_go_to_their_entry_or_a_new_one() {
    let text = "+++\ntitle = \"ت\"\n\n[[photos]]\nfile = \"a.jpg\"\nalt = \"أ\"\n+++\nنص\n";
    let out = edit_translated_photo(text, "a.jpg", Some("ب"), Some(Some("ج"))).unwrap();
    assert_eq!(
        out,
        "+++\ntitle = \"ت\"\n\n[[photos]]\nfile = \"a.jpg\"\nalt = \"ب\"\ncaption = \"ج\"\n+++\nنص\n"
    );
    let out = edit_translated_photo(text, "b.jpg", Some("د"), None).unwrap();
    assert_eq!(
        out,
        "+++\ntitle = \"ت\"\n\n[[photos]]\nfile = \"a.jpg\"\nalt = \"أ\"\n\n[[photos]]\nfile = \"b.jpg\"\nalt = \"د\"\n+++\nنص\n"
    );
    let bare = "+++\ntitle = \"ت\"\n+++\n";
    let out = edit_translated_photo(bare, "b.jpg", Some("د"), None).unwrap();
    assert_eq!(
        out,
        "+++\ntitle = \"ت\"\n\n[[photos]]\nfile = \"b.jpg\"\nalt = \"د\"\n+++\n"
    );
    let yaml = "---\ntitle: T\n---\nBody\n";
    let out = edit_translated_photo(yaml, "b.jpg", Some("D"), Some(Some("C"))).unwrap();
    assert_eq!(
        out,
        "---\ntitle: T\nphotos:\n  - file: \"b.jpg\"\n    alt: \"D\"\n    caption: \"C\"\n---\nBody\n"
    );
    let out = edit_translated_photo(YAML_FILE, "c.jpg", Some("C"), None).unwrap();
    assert!(
        out.contains("    file: \"b.jpg\"\n  - file: \"c.jpg\"\n    alt: \"C\"\ntags: [x]\n"),
        "{out}"
    );
}

/// Every photograph of every case file in the bundled site and the fixtures, edited:
/// the text before and after its entry is unchanged.
#[test]
fn every_bundled_and_fixture_case_file_keeps_its_other_bytes() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut edited = 0;
    for dir in ["content", "tests/fixtures", "docs"] {
        for entry in walkdir::WalkDir::new(root.join(dir)) {
            let entry = entry.unwrap();
            if entry.path().extension().is_none_or(|e| e != "md") {
                continue;
            }
            let text = std::fs::read_to_string(entry.path()).unwrap();
            let Ok(doc) = crate::content::front_matter::parse(entry.path(), &text) else {
                continue;
            };
            let Some(photos) = doc.entries.iter().find(|e| e.key == "photos") else {
                continue;
            };
            for photo in photos.value.as_array().unwrap() {
                let file = photo["file"].as_str().unwrap();
                let edit = PhotoEdit {
                    redact: Some(vec![region(0.25, 0.25, 0.5, 0.5)]),
                    sensitivity: Some(Sensitivity::Graphic),
                    reviewed: Some(Some(review())),
                    ..PhotoEdit::default()
                };
                let out = edit_photo(&text, file, &edit)
                    .unwrap_or_else(|e| panic!("{}: {e}", entry.path().display()));
                assert_outside_unchanged(&text, &out, file);
                edited += 1;
            }
        }
    }
    assert!(edited >= 20, "only {edited} photographs found");
}

/// The span of `file`'s `[[photos]]` table in `text`: from its header to the next table
/// or the closing `+++`.
fn entry_span(text: &str, file: &str) -> std::ops::Range<usize> {
    let mut start = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if let Some(start) = start.filter(|_| t.starts_with('[') || t == "+++") {
            return start..offset;
        }
        if t == "[[photos]]" {
            start = None;
        }
        if t.starts_with("file") && t.contains(&format!("\"{file}\"")) {
            start = Some(text[..offset].rfind("[[photos]]").unwrap());
        }
        offset += line.len();
    }
    panic!("no entry for {file}")
}

fn assert_outside_unchanged(before: &str, after: &str, file: &str) {
    let span = entry_span(before, file);
    assert_eq!(before[..span.start], after[..span.start]);
    let tail = &before[span.end..];
    assert!(
        after.ends_with(tail),
        "the text after {file}'s entry changed"
    );
}

/// A `[[photos]]` entry: `file` first, then some of the other keys, each with a comment
/// or not.
fn toml_entry_text() -> impl Strategy<Value = (String, Vec<String>)> {
    let key = prop_oneof![
        Just("alt = \"An alt text\"".to_string()),
        Just("caption = 'Literal'".to_string()),
        Just("sensitivity = \"none\"".to_string()),
        Just("redact = [ { x = 0.1, y = 0.1, w = 0.2, h = 0.2 } ]".to_string()),
        Just(
            "reviewed = { by = \"X\", on = 2020-01-02, covers = \"aaaaaaaaaaaaaaaa\" }".to_string()
        ),
    ];
    (
        proptest::collection::vec((key, any::<bool>()), 0..5),
        "[a-z]{1,6}",
    )
        .prop_map(|(keys, name)| {
            let mut seen = Vec::new();
            let mut text = format!("[[photos]]\nfile = \"{name}.jpg\"\n");
            for (k, comment) in keys {
                let key = k.split(' ').next().unwrap().to_string();
                if seen.contains(&key) {
                    continue;
                }
                seen.push(key);
                text.push_str(&k);
                text.push_str(if comment { "   # note\n" } else { "\n" });
            }
            (text, seen)
        })
}

fn edit_strategy() -> impl Strategy<Value = PhotoEdit> {
    let fraction = 0.0..0.5f64;
    let regions = proptest::collection::vec(
        (
            fraction.clone(),
            fraction.clone(),
            0.01..0.5f64,
            0.01..0.5f64,
            any::<bool>(),
        ),
        0..3,
    )
    .prop_map(|rs| {
        rs.into_iter()
            .map(|(x, y, w, h, pixelate)| Region {
                method: if pixelate {
                    RedactMethod::Pixelate
                } else {
                    RedactMethod::Fill
                },
                ..region(x, y, w, h)
            })
            .collect::<Vec<_>>()
    });
    (
        proptest::option::of(regions),
        proptest::option::of(0..3usize),
        proptest::option::of("[A-Za-z ,.\"\\\\]{1,20}"),
        proptest::option::of(proptest::option::of("[A-Za-z +]{1,20}")),
        proptest::option::of(any::<bool>()),
    )
        .prop_map(|(redact, s, alt, caption, reviewed)| PhotoEdit {
            redact,
            sensitivity: s.map(|i| {
                [
                    Sensitivity::None,
                    Sensitivity::Sensitive,
                    Sensitivity::Graphic,
                ][i]
            }),
            alt: alt.filter(|a| !a.trim().is_empty()),
            caption,
            reviewed: reviewed.map(|r| r.then(review)),
        })
}

/// Every top-level key and every other photograph's entry read the same; the edited
/// entry's other keys too.
fn assert_reads_as_asked(before: &str, after: &str, target: &str, edit: &PhotoEdit) {
    let read = |t: &str| read(t).unwrap();
    let (mut old, mut new) = (read(before), read(after));
    let photos = |t: &mut toml::Table| match t.remove("photos") {
        Some(toml::Value::Array(a)) => a,
        _ => Vec::new(),
    };
    let (old_photos, new_photos) = (photos(&mut old), photos(&mut new));
    assert_eq!(old, new);
    assert_eq!(old_photos.len(), new_photos.len());
    let edited: Vec<&str> = [
        edit.redact.as_ref().map(|_| "redact"),
        edit.sensitivity.map(|_| "sensitivity"),
        edit.alt.as_ref().map(|_| "alt"),
        edit.caption.as_ref().map(|_| "caption"),
        edit.reviewed.as_ref().map(|_| "reviewed"),
    ]
    .into_iter()
    .flatten()
    .collect();
    for (o, n) in old_photos.iter().zip(&new_photos) {
        if o["file"].as_str() != Some(target) {
            assert_eq!(o, n);
            continue;
        }
        let (o, n) = (o.as_table().unwrap(), n.as_table().unwrap());
        for key in o.keys().chain(n.keys()) {
            if !edited.contains(&key.as_str()) {
                assert_eq!(o.get(key), n.get(key), "{key}");
            }
        }
        if let Some(alt) = &edit.alt {
            assert_eq!(n["alt"].as_str(), Some(alt.trim()));
        }
        if let Some(regions) = &edit.redact {
            let got = n.get("redact").map_or(0, |r| r.as_array().unwrap().len());
            assert_eq!(got, regions.len());
        }
        if let Some(reviewed) = &edit.reviewed {
            assert_eq!(n.contains_key("reviewed"), reviewed.is_some());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn a_toml_edit_changes_only_the_edited_keys(
        entries in proptest::collection::vec(toml_entry_text(), 1..4),
        pick in any::<proptest::sample::Index>(),
        edit in edit_strategy(),
        crlf in any::<bool>(),
        bom in any::<bool>(),
        blank in any::<bool>(),
        body in "[a-z +\n]{0,30}",
    ) {
        let mut names: Vec<String> = Vec::new();
        let mut block = String::from("title = \"T\" # c\nn = 3\n");
        for (text, _) in &entries {
            let name = text.lines().nth(1).unwrap().to_string();
            if names.contains(&name) {
                continue;
            }
            names.push(name);
            if blank {
                block.push('\n');
            }
            block.push_str(text);
        }
        let mut text = format!("+++\n{block}+++\n{body}");
        if crlf {
            text = text.replace('\n', "\r\n");
        }
        if bom {
            text.insert(0, '\u{feff}');
        }
        let line = &names[pick.index(names.len())];
        let target = line.split('"').nth(1).unwrap();
        let after = edit_photo(&text, target, &edit).unwrap();
        assert_outside_unchanged(&text, &after, target);
        assert_reads_as_asked(&text, &after, target, &edit);
        // Editing again with the same values changes nothing more.
        prop_assert_eq!(edit_photo(&after, target, &edit).unwrap(), after.clone());
    }

    #[test]
    fn a_yaml_edit_changes_only_the_edited_keys(
        count in 1..4usize,
        pick in any::<proptest::sample::Index>(),
        edit in edit_strategy(),
        captions in proptest::collection::vec(any::<bool>(), 4),
        indent in 0..2usize,
    ) {
        let pad = "  ".repeat(indent);
        let mut text = String::from("---\ntitle: T  # c\nphotos:\n");
        for (i, caption) in captions.iter().enumerate().take(count) {
            text.push_str(&format!("{pad}- file: p{i}.jpg\n{pad}  alt: \"Alt {i}\"\n"));
            if *caption {
                text.push_str(&format!("{pad}  caption: >\n{pad}    folded\n{pad}    text\n"));
            }
        }
        text.push_str("tags:\n  - a\n---\nBody\n");
        let target = format!("p{}.jpg", pick.index(count));
        let after = edit_photo(&text, &target, &edit).unwrap();
        assert_reads_as_asked(&text, &after, &target, &edit);
        let head = text.find(&format!("- file: {target}")).unwrap();
        prop_assert_eq!(&text[..head], &after[..head]);
        let next = text[head + 2..].find("- file").map_or(text.find("tags:").unwrap(), |i| i + head + 2);
        let next = text[..next].rfind('\n').unwrap() + 1;
        prop_assert!(after.ends_with(&text[next..]));
    }
}
