//! Portable names: a site that builds here must check out and publish on Windows and macOS
//! too. A source file or output path that Windows cannot hold, or two that macOS or
//! Windows take for one, fails `build` and `check` with the file and a hint, and the last
//! published site stays as it was.

use crate::support::SiteTest;

const PAGE: &str = "+++\ntitle = \"A page\"\n+++\nText.\n";
const WINDOWS: &str = "Windows cannot hold this name; a checkout there fails";

/// Builds `site` once as it is, then after `change`: the second build fails with every
/// `needle` in its errors, `check` says the same, and the first build's site is untouched.
#[track_caller]
fn refused(change: impl FnOnce(SiteTest) -> SiteTest, needles: &[&str]) {
    let site = SiteTest::fixture("minimal");
    site.build().success();
    let before = crate::support::tree(&site.public());
    let site = change(site);
    let build = site.build();
    build.failure(1);
    let check = site.run(&["check"]);
    check.failure(1);
    for needle in needles {
        build.stderr_has(needle);
        check.stderr_has(needle);
    }
    assert!(
        before == crate::support::tree(&site.public()),
        "the last site was changed"
    );
}

#[test]
fn a_windows_device_name_is_refused_with_or_without_an_extension() {
    for (file, name) in [
        ("content/aux.md", "aux.md"),
        ("content/docs/Con.txt", "Con.txt"),
        ("static/nul.tar.gz", "nul.tar.gz"),
        ("content/docs/com1/_index.md", "com1"),
        ("content/docs/lpt\u{b2}.pdf", "lpt\u{b2}.pdf"),
        ("content/prn.ar.md", "prn.ar.md"),
    ] {
        refused(
            |s| s.write(file, PAGE),
            &[
                &format!(
                    "{}: `{name}`: Windows reserves the name",
                    dir_of(file, name)
                ),
                WINDOWS,
            ],
        );
    }
}

/// The path up to and including `name`.
fn dir_of(file: &str, name: &str) -> String {
    let at = file.find(name).unwrap();
    file[..at + name.len()].to_string()
}

#[test]
fn reserved_characters_control_characters_and_trailing_dots_or_spaces_are_refused() {
    for (file, says) in [
        ("content/docs/what?.md", "holds `?`"),
        ("content/docs/a<b>.txt", "holds `<`"),
        ("static/x:y.css", "holds `:`"),
        ("content/docs/back\\slash.txt", "holds `\\`"),
        ("templates/bell\u{7}.html", "the control character \\u{7}"),
        ("content/docs/notes.", "ends in a dot"),
        ("content/docs/folder /index.md", "ends in a space"),
    ] {
        refused(|s| s.write(file, PAGE), &[says, WINDOWS]);
    }
}

#[test]
fn two_names_one_on_macos_or_windows_are_refused() {
    let composed = "content/docs/Caf\u{e9}.md";
    let decomposed = "content/docs/Cafe\u{301}.md";
    refused(
        |s| s.write(composed, PAGE).write(decomposed, PAGE),
        &[
            "the same letters, composed differently",
            "macOS treats these two names as one",
        ],
    );
    refused(
        |s| {
            s.write("static/Case-1.txt", "a")
                .write("static/case-1.txt", "b")
        },
        &[
            "static/case-1.txt: `static/case-1.txt` and `static/Case-1.txt` are one name",
            "macOS and Windows treat these two names as one",
        ],
    );
    // An attachment and a static file, which only meet in the output.
    refused(
        |s| {
            s.write("content/docs/Notes.txt", "a")
                .write("static/docs/notes.txt", "b")
        },
        &[
            "`docs/notes.txt` and `docs/Notes.txt` are one name",
            "macOS and Windows",
        ],
    );
}

#[test]
fn a_case_id_slug_or_facet_value_naming_a_device_is_located_at_its_field() {
    const CASE: &str = "content/cases/c-002/index.md";
    refused(
        |s| s.edit(CASE, "case_id = \"c-002\"", "case_id = \"aux\""),
        &[
            "content/cases/c-002/index.md:3:1: case_id: the case id cannot name a file: `aux`",
            WINDOWS,
        ],
    );
    refused(
        |s| s.edit("content/about.md", "weight = 9", "slug = \"con\""),
        &[
            "content/about.md:3:1: slug: the slug names the page's folder: `con`",
            WINDOWS,
        ],
    );
    refused(
        |s| {
            s.edit("casebook.toml", "\"235\"]", "\"235\", \"nul\"]")
                .edit(CASE, "branch = \"215\"", "branch = \"nul\"")
        },
        &[
            "content/cases/c-002/index.md:5:1: branch: this value names a folder of facet pages: `nul`",
            WINDOWS,
        ],
    );
}

#[test]
fn arabic_and_other_good_names_still_build() {
    let site = SiteTest::fixture("i18n")
        .write("content/تقرير.md", PAGE)
        .write("content/تقرير.ar.md", PAGE)
        .write("static/ملف-1.txt", "a")
        .write("static/Console.txt", "b")
        .write("static/auxiliary.d/com10.txt", "c");
    site.build().success();
    site.run(&["check"]).success();
    assert!(site.exists("ملف-1.txt") && site.exists("auxiliary.d/com10.txt"));
}

#[test]
fn the_preview_refuses_a_name_added_while_it_runs_until_it_is_gone() {
    let site = SiteTest::fixture("minimal");
    let root = site.root().canonicalize().unwrap();
    let mut session = casebook::serve::Session::new(&root, None, false);
    session.build_all(&[]).unwrap();
    let refused = |session: &mut casebook::serve::Session, changed: &std::path::Path| match session
        .build_all(&[changed.to_path_buf()])
    {
        Err(e) => assert!(e.to_string().contains("Windows reserves the name"), "{e}"),
        Ok(_) => panic!("a rebuild with content/cases/c-002/con.jpg succeeded"),
    };
    // An image beside a case is never published under its own name: only the check of
    // the sources' names sees it.
    let bad = root.join("content/cases/c-002/con.jpg");
    std::fs::write(&bad, b"not read").unwrap();
    refused(&mut session, &bad);
    // Names are checked again only when one is added or removed: an edit elsewhere still
    // meets the one that stayed.
    let about = root.join("content/about.md");
    let text = std::fs::read_to_string(&about).unwrap();
    std::fs::write(&about, format!("{text}\nMore text.\n")).unwrap();
    refused(&mut session, &about);
    std::fs::remove_file(&bad).unwrap();
    session.build_all(&[bad]).unwrap();
    drop(site);
}
