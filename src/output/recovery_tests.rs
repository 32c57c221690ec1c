//! Recovery given journals that name anything: whatever a journal says, nothing outside the
//! output folder is ever moved, changed or removed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use proptest::prelude::*;

use super::beside::{Beside, Recovery, recover};
use super::journal::{Journal, NewFile};

/// Every entry below `dir` (links as links) with its bytes, or `None` for a folder or link.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    walkdir::WalkDir::new(dir)
        .follow_links(false)
        .into_iter()
        .map(|e| {
            let e = e.unwrap();
            let bytes = e
                .file_type()
                .is_file()
                .then(|| std::fs::read(e.path()).unwrap());
            (e.path().to_path_buf(), bytes)
        })
        .collect()
}

/// A site with an output folder, a folder outside it full of sentinels, and links from
/// the output to the sentinels.
fn tree(base: &Path) -> PathBuf {
    let outside = base.join("outside");
    std::fs::create_dir_all(outside.join("sub")).unwrap();
    std::fs::write(outside.join("s1"), "sentinel 1").unwrap();
    std::fs::write(outside.join("s2"), "sentinel 2").unwrap();
    std::fs::write(outside.join("sub/s3"), "sentinel 3").unwrap();
    let out = base.join("site/public");
    std::fs::create_dir_all(out.join("a")).unwrap();
    std::fs::write(out.join("index.html"), "home").unwrap();
    std::fs::write(out.join("a/x"), "x").unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&outside, out.join("l")).unwrap();
        std::os::unix::fs::symlink(outside.join("s1"), out.join("lf")).unwrap();
    }
    out
}

/// A temporary folder (kept while the first value lives), its resolved path, and the
/// output of the `tree` made in it.
fn site() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let out = tree(&base);
    (dir, base, out)
}

fn hostile_paths(base: &Path) -> Vec<String> {
    let abs = base.join("outside/s1").to_string_lossy().into_owned();
    let abs_dir = base.join("outside").to_string_lossy().into_owned();
    [
        "../outside/s1",
        "../../outside/s1",
        "../../outside",
        "l/s1",
        "l",
        "l/sub/s3",
        "l/sub",
        "l/new",
        "lf",
        "a/../../../outside/s2",
        "a/x",
        "a",
        "index.html",
        "new/y",
        "new",
        "",
        ".",
        "..",
        "./../outside/s2",
        "a\\..\\..\\outside",
    ]
    .into_iter()
    .map(String::from)
    .chain([abs, abs_dir])
    .collect()
}

fn pending_names() -> Vec<String> {
    [
        "0",
        "1",
        "../../outside/s2",
        "../outside",
        "/etc/hostname",
        "a/b",
        "",
    ]
    .into_iter()
    .map(String::from)
    .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn no_journal_moves_changes_or_removes_anything_outside_the_output(
        removed in proptest::collection::vec(0usize..22, 0..5),
        written in proptest::collection::vec((0usize..7, 0usize..22, any::<bool>()), 0..5),
        created in proptest::collection::vec(0usize..22, 0..4),
        undoing in any::<bool>(),
    ) {
        let (_dir, base, out) = site();
        let paths = hostile_paths(&base);
        let names = pending_names();
        let beside = Beside::of(&out);
        std::fs::create_dir_all(&beside.pending).unwrap();
        for name in ["0", "1"] {
            std::fs::write(beside.pending.join(name), "new bytes").unwrap();
        }
        let journal = Journal {
            removed: removed.iter().map(|&i| PathBuf::from(&paths[i])).collect(),
            written: written
                .iter()
                .map(|&(n, p, replaces)| NewFile {
                    pending: names[n].clone(),
                    path: paths[p].clone(),
                    replaces,
                })
                .collect(),
            created: created.iter().map(|&i| paths[i].clone()).collect(),
        };
        // Sealed as this machine seals: the worst case, a journal that passes the seal.
        let key = beside.key(&out).unwrap();
        journal.commit(&beside.pending, &key).unwrap();
        if undoing {
            Journal::begin_undo(&beside.pending).unwrap();
        }
        let outside = snapshot(&base.join("outside"));
        let _ = recover(&out, &base.join("record"));
        prop_assert_eq!(snapshot(&base.join("outside")), outside);
        let top: Vec<_> = std::fs::read_dir(&base)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        prop_assert!(top.iter().all(|n| n == "outside" || n == "site"), "{:?}", top);
    }
}

#[test]
fn a_journal_naming_paths_outside_is_refused_before_anything_moves() {
    let (_dir, base, out) = site();
    let beside = Beside::of(&out);
    std::fs::create_dir_all(&beside.pending).unwrap();
    let journal = Journal {
        // A plain entry first: it must not be moved either.
        removed: vec!["a/x".into(), "../outside/s1".into()],
        written: vec![],
        created: vec![],
    };
    journal
        .commit(&beside.pending, &beside.key(&out).unwrap())
        .unwrap();
    let done = recover(&out, &base.join("record")).unwrap();
    assert!(out.join("a/x").exists());
    assert!(base.join("outside/s1").exists());
    assert!(
        matches!(&done[..], [Recovery::Refused(d)] if d.to_string().contains("../outside/s1")),
        "{done:?}"
    );
    assert!(!beside.pending.exists());
}

#[test]
fn a_journal_not_sealed_here_is_refused() {
    let (_dir, base, out) = site();
    let beside = Beside::of(&out);
    std::fs::create_dir_all(&beside.pending).unwrap();
    let journal = Journal {
        removed: vec!["a/x".into()],
        written: vec![],
        created: vec![],
    };
    // Sealed for another folder (as a journal brought with a copied site is).
    let other = base.join("elsewhere");
    std::fs::create_dir(&other).unwrap();
    let foreign = super::seal::Key::of(&base.join("foreign-key"), &other).unwrap();
    journal.commit(&beside.pending, &foreign).unwrap();
    let done = recover(&out, &base.join("record")).unwrap();
    assert!(out.join("a/x").exists());
    assert!(matches!(&done[..], [Recovery::Refused(_)]), "{done:?}");
}

#[test]
fn an_undo_repeated_after_a_partial_one_keeps_the_old_file() {
    let (_dir, base, out) = site();
    let beside = Beside::of(&out);
    std::fs::create_dir_all(beside.pending.join("old")).unwrap();
    // The state after an undo put `index.html` back: the new file was moved in (gone from
    // pending) and the kept copy is back in place (gone from old/).
    let journal = Journal {
        removed: vec![],
        written: vec![
            NewFile {
                pending: "0".into(),
                path: "index.html".into(),
                replaces: true,
            },
            NewFile {
                pending: "1".into(),
                path: "new.txt".into(),
                replaces: false,
            },
        ],
        created: vec![],
    };
    std::fs::write(out.join("new.txt"), "new").unwrap();
    journal
        .commit(&beside.pending, &beside.key(&out).unwrap())
        .unwrap();
    Journal::begin_undo(&beside.pending).unwrap();
    recover(&out, &base.join("record")).unwrap();
    assert_eq!(std::fs::read(out.join("index.html")).unwrap(), b"home");
    assert!(!out.join("new.txt").exists());
}

#[cfg(unix)]
#[test]
fn links_in_place_of_the_neighbour_folders_are_removed_not_followed() {
    let (_dir, base, out) = site();
    let beside = Beside::of(&out);
    let outside = snapshot(&base.join("outside"));
    std::os::unix::fs::symlink(base.join("outside"), &beside.pending).unwrap();
    std::os::unix::fs::symlink(base.join("outside"), &beside.staging).unwrap();
    let done = recover(&out, &base.join("record")).unwrap();
    assert_eq!(snapshot(&base.join("outside")), outside);
    assert!(!beside.pending.exists() && !beside.staging.exists());
    assert_eq!(
        done.iter()
            .filter(|d| matches!(d, Recovery::Refused(_)))
            .count(),
        2
    );
}

#[test]
fn an_output_given_through_dots_has_its_neighbours_outside_it() {
    let (_dir, _base, out) = site();
    let dotted = out.join("a/..");
    let beside = Beside::of(&dotted);
    assert_eq!(beside.pending, Beside::of(&out).pending);
    assert!(!beside.pending.starts_with(&out));
}
