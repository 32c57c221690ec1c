//! Nothing lost: whatever stops a build while it writes (a kill, a full disk, a folder that
//! became read-only, a name the file system refuses), the output stays the old site or
//! becomes the new one, and the next build after the cause is fixed needs no hand cleanup.
//!
//! The kill and failure points come from the debug binary's `CASEBOOK_FAULT` hook
//! (`src/fault.rs`): every step of the write stage that changes the file system counts,
//! and the build is killed (SIGKILL) or fails at the Nth.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use crate::support::{Run, SiteTest, assert_same_as_fresh};

/// Every entry below `dir`: folders as `None`, files with their bytes.
fn entries(dir: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    walkdir::WalkDir::new(dir)
        .min_depth(1)
        .into_iter()
        .map(Result::unwrap)
        .map(|e| {
            let rel = e
                .path()
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let bytes = (!e.file_type().is_dir()).then(|| std::fs::read(e.path()).unwrap());
            (rel, bytes)
        })
        .collect()
}

/// Runs `casebook build` on `site` with `CASEBOOK_FAULT` set; returns the run and whether
/// the process was killed by a signal.
fn build_with_fault(site: &SiteTest, fault: &str) -> (Run, bool) {
    let out = Command::new(env!("CARGO_BIN_EXE_casebook"))
        .args(["build", "--root"])
        .arg(site.root())
        .env("CASEBOOK_FAULT", fault)
        .output()
        .unwrap();
    #[cfg(unix)]
    let killed = std::os::unix::process::ExitStatusExt::signal(&out.status) == Some(9);
    #[cfg(not(unix))]
    let killed = false;
    (Run::from(out), killed)
}

/// How many fault points a build of `site` passes (it runs the build).
fn fault_points(site: &SiteTest) -> u64 {
    let (run, _) = build_with_fault(site, "count");
    run.success();
    run.stderr
        .lines()
        .find_map(|l| l.strip_prefix("casebook-fault-points: "))
        .expect("the debug binary counts its fault points")
        .trim()
        .parse()
        .unwrap()
}

/// About `want` points spread evenly over 1..=total, the first and last included.
fn spread(total: u64, want: u64) -> Vec<u64> {
    if total <= want {
        return (1..=total).collect();
    }
    let mut points: Vec<u64> = (0..want)
        .map(|i| 1 + i * (total - 1) / (want - 1))
        .collect();
    points.dedup();
    points
}

/// The old site: the minimal fixture, built.
fn old_site() -> SiteTest {
    let site = SiteTest::fixture("minimal");
    site.build().success();
    site
}

/// The change the tests stop half-way: every page changes (the site's title), a case goes
/// (its folder is removed), a case comes (a new folder), a page becomes a bundle.
fn change(site: SiteTest) -> SiteTest {
    site.edit(
        "casebook.toml",
        "Fixture archive",
        "Fixture archive, second edition",
    )
    .remove("content/cases/c-005")
    .write(
        "content/cases/c-006/index.md",
        &std::fs::read_to_string(site_file("content/cases/c-001/index.md"))
            .unwrap()
            .replace("c-001", "c-006"),
    )
}

fn site_file(rel: &str) -> std::path::PathBuf {
    crate::support::repo_root()
        .join("tests/fixtures/minimal")
        .join(rel)
}

/// A build of the changed site from scratch: what every update must end as.
fn new_tree() -> BTreeMap<String, Option<Vec<u8>>> {
    let fresh = change(SiteTest::fixture("minimal"));
    fresh.build().success();
    entries(&fresh.public())
}

/// Breaks the changed site's content, so that a build stops after recovering the output
/// and before writing anything of its own.
fn break_content(site: SiteTest) -> SiteTest {
    site.edit("content/about.md", "weight = 9", "weight = \"nine\"")
}

fn mend_content(site: SiteTest) -> SiteTest {
    site.edit("content/about.md", "weight = \"nine\"", "weight = 9")
}

#[test]
fn a_build_killed_at_any_step_of_its_update_leaves_the_old_site_or_the_new_one() {
    let counted = change(old_site());
    let total = fault_points(&counted);
    let new = new_tree();
    assert_eq!(entries(&counted.public()), new);
    // Sixty points keep CI quick; CASEBOOK_EVERY_POINT=1 kills at every one of them.
    let want = match std::env::var_os("CASEBOOK_EVERY_POINT") {
        Some(_) => total,
        None => 60,
    };
    let points = spread(total, want);
    assert!(
        points.len() >= 50,
        "only {total} fault points: the change must touch more files"
    );
    let (mut before_commit, mut after_commit) = (0, 0);
    for &k in &points {
        let site = old_site();
        let old = entries(&site.public());
        let site = change(site);
        let (run, killed) = build_with_fault(&site, &format!("kill:{k}"));
        assert!(killed, "step {k} of {total}: not killed\n{}", run.stderr);
        let committed = site
            .root()
            .join(".public.casebook-pending/journal")
            .exists();
        if committed {
            after_commit += 1;
        } else {
            before_commit += 1;
            assert!(
                entries(&site.public()) == old,
                "step {k} of {total}: killed before its commit, the output changed"
            );
        }
        // The next run puts the output in order first, even when it then fails, and says
        // so in one line.
        let site = break_content(site);
        let run = site.build();
        run.failure(1);
        let now = entries(&site.public());
        assert!(
            now == old || now == new,
            "step {k} of {total}: after recovery the output is neither the old site nor the new one\n{}",
            run.stderr
        );
        assert!(
            !site.root().join(".public.casebook-pending").exists()
                && !site.root().join(".public.casebook-trash").exists(),
            "step {k}: recovery left its folders behind"
        );
        let notes = run
            .stderr
            .lines()
            .filter(|l| l.starts_with("note: "))
            .count();
        assert!(notes <= 1, "step {k}: {}", run.stderr);
        let site = mend_content(site);
        site.build().success();
        assert!(
            entries(&site.public()) == new,
            "step {k} of {total}: the next build differs from a fresh one"
        );
    }
    eprintln!(
        "killed at {} of {total} points: {before_commit} before the commit, {after_commit} after",
        points.len()
    );
    assert!(
        before_commit > 0 && after_commit > 0,
        "{before_commit} before the commit, {after_commit} after"
    );
}

#[test]
fn a_first_build_killed_while_writing_publishes_nothing_and_the_next_succeeds() {
    let counted = SiteTest::fixture("minimal");
    // Writer threads racing to make one folder both count a step: the total varies by a
    // few, so the last points are left out.
    let total = fault_points(&counted) - 8;
    let mut kills = 0;
    let points = spread(total, 12);
    for &k in &points {
        let site = SiteTest::fixture("minimal");
        let (run, killed) = build_with_fault(&site, &format!("kill:{k}"));
        if !killed {
            // On a busy machine the race above can take more than the few steps left out:
            // a build that ran past its last step must then simply have succeeded.
            assert!(
                k * 10 >= total * 9,
                "step {k} of {total}: not killed\n{}",
                run.stderr
            );
            run.success();
            assert!(
                entries(&site.public()) == entries(&counted.public()),
                "step {k}"
            );
            continue;
        }
        kills += 1;
        // Either the whole new site was renamed into place, or there is none.
        if site.public().exists() {
            assert!(
                entries(&site.public()) == entries(&counted.public()),
                "step {k}"
            );
        }
        site.build().success();
        assert_same_as_fresh(&site, SiteTest::fixture("minimal"));
        assert!(!site.root().join(".public.casebook-staging").exists());
    }
    assert!(
        kills + 2 >= points.len(),
        "killed at {kills} of {} points",
        points.len()
    );
}

#[test]
fn a_build_that_fails_at_any_step_of_its_update_leaves_the_old_site_exactly() {
    let total = fault_points(&change(old_site()));
    let new = new_tree();
    for k in spread(total, 40) {
        let site = old_site();
        let old = entries(&site.public());
        let site = change(site);
        let (run, _) = build_with_fault(&site, &format!("fail:{k}"));
        // A failure while removing what is left after a finished update is no failure.
        if run.code == 0 {
            assert!(entries(&site.public()) == new, "step {k}");
            continue;
        }
        run.failure(1);
        assert!(
            run.stderr.contains("injected failure"),
            "step {k}: the error names its cause\n{}",
            run.stderr
        );
        assert!(
            entries(&site.public()) == old,
            "step {k} of {total}: a failed update changed the output\n{}",
            run.stderr
        );
        assert!(
            !site.root().join(".public.casebook-pending").exists(),
            "step {k}"
        );
        site.build().success();
        assert!(entries(&site.public()) == new, "step {k}: the next build");
    }
}

#[test]
fn names_too_long_to_write_are_located_errors_before_anything_is_written() {
    let site = old_site();
    let old = entries(&site.public());
    let long = "x".repeat(300);
    let site = site.write(
        "content/cases/c-long.md",
        &std::fs::read_to_string(site_file("content/cases/c-001/index.md"))
            .unwrap()
            .replace("c-001", &format!("c-{long}")),
    );
    for command in ["build", "check"] {
        let run = site.run(&[command]);
        run.failure(1)
            .stderr_has("content/cases/c-long.md")
            .stderr_has("case_id")
            .stderr_has("255 bytes");
    }
    assert!(entries(&site.public()) == old);
    assert!(!site.root().join(".public.casebook-pending").exists());
    // Fixed, the next build succeeds with no cleanup by hand.
    let site = site.remove("content/cases/c-long.md");
    // A page's slug and a facet value name folders too.
    let site = site.write(
        "content/long.md",
        &format!("+++\ntitle = \"Long\"\nslug = \"{long}\"\n+++\nText.\n"),
    );
    site.build()
        .failure(1)
        .stderr_has("content/long.md:3:1: slug: the slug names the page's folder");
    let site = site
        .remove("content/long.md")
        .edit(
            "casebook.toml",
            "label = \"Note\"\n",
            "label = \"Note\"\nfacet = true\n",
        )
        .edit(
            "content/cases/c-002/index.md",
            "number = 102\n",
            &format!("number = 102\nnote = \"{long}\"\n"),
        );
    site.run(&["check"]).failure(1).stderr_has(
        "content/cases/c-002/index.md:5:1: note: this value names a folder of facet pages",
    );
    let site = site
        .edit(
            "casebook.toml",
            "label = \"Note\"\nfacet = true\n",
            "label = \"Note\"\n",
        )
        .edit(
            "content/cases/c-002/index.md",
            &format!("number = 102\nnote = \"{long}\"\n"),
            "number = 102\n",
        );
    site.build().success();
    assert_same_as_fresh(&site, SiteTest::fixture("minimal"));
}

/// Makes `dir` unwritable even for root (`chattr +i`), or with permissions otherwise.
/// Returns how to undo it.
fn freeze(dir: &Path) -> Box<dyn Fn()> {
    let root = unsafe { libc::geteuid() } == 0;
    let path = dir.to_path_buf();
    if root {
        let ok = Command::new("chattr").arg("+i").arg(dir).status();
        assert!(
            ok.is_ok_and(|s| s.success()),
            "chattr +i failed: the test needs e2fsprogs and an ext2/3/4 or XFS /tmp"
        );
        Box::new(move || {
            Command::new("chattr")
                .arg("-i")
                .arg(&path)
                .status()
                .unwrap();
        })
    } else {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).unwrap();
        Box::new(move || {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        })
    }
}

#[test]
fn a_folder_made_read_only_fails_the_update_without_changing_the_output() {
    let site = old_site();
    let old = entries(&site.public());
    let site = change(site);
    // Cases are written before `cases/c-004/` is reached in sorted order, so some of the
    // update is done when it fails there, and must be undone.
    let thaw = freeze(&site.public().join("cases/c-004"));
    let run = site.build();
    thaw();
    run.failure(1).stderr_has("cases/c-004");
    assert!(entries(&site.public()) == old, "{}", run.stderr);
    assert!(!site.root().join(".public.casebook-pending").exists());
    site.build().success();
    assert_same_as_fresh(&site, change(SiteTest::fixture("minimal")));
}

/// A tmpfs of `size` mounted at `dir`, unmounted when dropped; `None` where this process
/// may not mount (not root, or a container without the capability).
struct SmallDisk(std::path::PathBuf);

impl SmallDisk {
    fn mount(dir: &Path, size: &str) -> Option<SmallDisk> {
        if unsafe { libc::geteuid() } != 0 {
            return None;
        }
        std::fs::create_dir_all(dir).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| SmallDisk(dir.to_path_buf()))
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn a_disk_that_fills_up_fails_the_update_without_changing_the_output() {
    let site = SiteTest::fixture("minimal");
    let disk = site.root().join("small-disk");
    let Some(_disk) = SmallDisk::mount(&disk, "4m") else {
        eprintln!(
            "skipped: mounting a small tmpfs needs root (CI runs as root); run `sudo -E cargo test failures::` to include it"
        );
        return;
    };
    let out = disk.join("public");
    let out_arg = out.to_str().unwrap();
    site.run(&["build", "--output", out_arg]).success();
    let old = entries(&out);
    // Six incompressible megabytes: more than fit beside the site.
    let noise: Vec<u8> = (0..6_000_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let site = site.write_bytes("static/big.bin", &noise);
    let site = change(site);
    let run = site.run(&["build", "--output", out_arg]);
    run.failure(1).stderr_has("No space left on device");
    assert!(entries(&out) == old, "{}", run.stderr);
    assert!(!disk.join(".public.casebook-pending").exists());
    // Room made again: the next build succeeds with no cleanup by hand.
    let site = site.remove("static/big.bin");
    site.run(&["build", "--output", out_arg]).success();
    let fresh = change(SiteTest::fixture("minimal"));
    fresh.build().success();
    assert!(entries(&out) == entries(&fresh.public()));
}

#[test]
fn a_leftover_pending_folder_from_an_older_casebook_is_cleared_with_one_line() {
    let site = old_site();
    let old = entries(&site.public());
    let pending = site.root().join(".public.casebook-pending");
    std::fs::create_dir_all(&pending).unwrap();
    std::fs::write(pending.join("0"), "half").unwrap();
    std::fs::write(
        pending.join("journal"),
        b"casebook-journal-2\nnot a journal this build reads",
    )
    .unwrap();
    let run = site.build();
    run.success().stderr_has("warning: ");
    assert!(entries(&site.public()) == old);
    assert!(!pending.exists());
}

#[cfg(unix)]
#[test]
fn a_second_build_of_the_same_folder_at_once_is_refused() {
    use std::os::fd::AsRawFd;
    let site = old_site();
    let old = entries(&site.public());
    let site = change(site);
    // Another build holds the folder.
    let lock = std::fs::File::open(site.root().join(".public.casebook-lock")).unwrap();
    assert_eq!(
        unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
        0
    );
    site.build()
        .failure(1)
        .stderr_has("another casebook build is writing this folder");
    assert!(entries(&site.public()) == old);
    drop(lock);
    site.build().success();
    assert!(entries(&site.public()) == new_tree());
}

/// Whether `dir` holds every path of `old` that `new` also has (as a file or folder).
fn nothing_lost(
    dir: &Path,
    old: &BTreeMap<String, Option<Vec<u8>>>,
    new: &BTreeMap<String, Option<Vec<u8>>>,
) -> Vec<String> {
    let now = entries(dir);
    old.keys()
        .filter(|p| new.contains_key(*p) && !now.contains_key(*p))
        .cloned()
        .collect()
}

#[cfg(unix)]
#[test]
fn an_update_that_can_be_neither_completed_nor_undone_loses_nothing_when_built_again_before_the_fix()
 {
    // A build is killed part-way through its update; then the output's own folder becomes
    // read-only, so the update can be neither completed nor undone. Building again before
    // the cause is fixed must not lose a file; after the fix the output is a clean build's.
    let counted = change(old_site());
    let total = fault_points(&counted);
    let new = new_tree();
    let mut tried = 0;
    for k in spread(total, 24) {
        let site = old_site();
        let old = entries(&site.public());
        let site = change(site);
        let (_, killed) = build_with_fault(&site, &format!("kill:{k}"));
        let journal = site.root().join(".public.casebook-pending/journal");
        if !killed || !journal.exists() {
            continue;
        }
        let thaw = freeze(&site.public());
        let first = site.build();
        let second = site.build();
        let third = site.build();
        thaw();
        if first.code == 0 {
            // The update did not need the frozen folder: nothing to try at this point.
            continue;
        }
        tried += 1;
        for (n, run) in [(1, &first), (2, &second), (3, &third)] {
            let lost = nothing_lost(&site.public(), &old, &new);
            assert!(
                lost.is_empty(),
                "step {k}: build {n} before the fix lost {lost:?}\n{}",
                run.stderr
            );
        }
        site.build().success();
        assert!(
            entries(&site.public()) == new,
            "step {k} of {total}: after the fix the output differs from a clean build"
        );
        site.build().success();
        assert!(entries(&site.public()) == new);
    }
    assert!(
        tried >= 3,
        "only {tried} kill points left an update to finish"
    );
}

/// The bytes a foreign journal of casebook's format would have (any seal: it cannot know
/// this machine's).
fn foreign_journal(removed: &[&str]) -> Vec<u8> {
    let mut body = b"casebook-journal-4\n".to_vec();
    for path in removed {
        body.push(b'R');
        body.extend_from_slice(&(path.len() as u32).to_le_bytes());
        body.extend_from_slice(path.as_bytes());
    }
    let sum = xxhash_rust::xxh3::xxh3_128(&body);
    body.extend_from_slice(&sum.to_le_bytes());
    body.extend_from_slice(&[0u8; 32]);
    body
}

#[cfg(unix)]
#[test]
fn a_journal_that_came_with_the_site_deletes_nothing_outside_the_output() {
    let site = old_site();
    let outside = tempfile::tempdir().unwrap();
    let sentinel = outside.path().join("precious.txt");
    std::fs::write(&sentinel, "the builder's own file").unwrap();
    std::fs::write(site.root().join("beside.txt"), "beside the output").unwrap();
    // A symbolic link in the output to a folder outside it, and a journal naming `../x`,
    // an absolute path and a path through the link: as a cloned repository could bring.
    std::os::unix::fs::symlink(outside.path(), site.public().join("through")).unwrap();
    let pending = site.root().join(".public.casebook-pending");
    std::fs::create_dir_all(&pending).unwrap();
    let abs = sentinel.to_string_lossy().into_owned();
    std::fs::write(
        pending.join("journal"),
        foreign_journal(&["../beside.txt", &abs, "through/precious.txt"]),
    )
    .unwrap();
    let before = entries(outside.path());
    let run = site.build();
    run.success().stderr_has("warning: ").stderr_has("journal");
    assert_eq!(entries(outside.path()), before);
    assert!(site.root().join("beside.txt").exists());
    assert!(!pending.exists());
    let fresh = SiteTest::fixture("minimal");
    fresh.build().success();
    std::fs::remove_file(site.public().join("through")).ok();
    assert!(entries(&site.public()) == entries(&fresh.public()));
}

#[test]
fn a_journal_is_never_applied_where_there_is_no_output_yet() {
    let site = SiteTest::fixture("minimal");
    let pending = site.root().join(".public.casebook-pending");
    std::fs::create_dir_all(&pending).unwrap();
    std::fs::write(site.root().join("keep.txt"), "kept").unwrap();
    std::fs::write(pending.join("journal"), foreign_journal(&["../keep.txt"])).unwrap();
    site.build().success().stderr_has("warning: ");
    assert!(site.root().join("keep.txt").exists());
}

#[cfg(unix)]
#[test]
fn a_lock_that_is_a_link_creates_nothing_where_it_points() {
    let site = SiteTest::fixture("minimal");
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("created-by-casebook");
    std::os::unix::fs::symlink(&target, site.root().join(".public.casebook-lock")).unwrap();
    site.build().success();
    assert!(!target.exists());
}

#[test]
fn an_output_named_through_dots_keeps_its_neighbours_outside_it() {
    let site = old_site();
    std::fs::create_dir_all(site.public().join("cases")).unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_casebook"))
        .args(["build", "--root"])
        .arg(site.root())
        .arg("--output")
        .arg(site.public().join("cases/.."))
        .output()
        .unwrap();
    Run::from(run).success();
    let stray: Vec<_> = walkdir::WalkDir::new(site.public())
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(".public.casebook-")
        })
        .map(|e| e.path().to_path_buf())
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
}

#[test]
fn a_disk_that_fills_up_while_copying_a_photograph_names_the_output_file() {
    let site = SiteTest::fixture("minimal")
        .copy_in("photos-real/gps/DSCN0021.jpg", "content/cases/c-001/a.jpg")
        .photos(
            "content/cases/c-001/index.md",
            "[[photos]]\nfile = \"a.jpg\"\nalt = \"a\"\n",
        );
    let disk = site.root().join("small-disk");
    let Some(_disk) = SmallDisk::mount(&disk, "4m") else {
        eprintln!(
            "skipped: mounting a small tmpfs needs root (CI runs as root); run `sudo -E cargo test failures::` to include it"
        );
        return;
    };
    let out = disk.join("public");
    let out_arg = out.to_str().unwrap();
    site.run(&["build", "--output", out_arg]).success();
    // The largest derivative goes, so the next build copies it out of the cache alone.
    let largest = walkdir::WalkDir::new(&out)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.path().to_string_lossy().ends_with(".1200.jpg"))
        .map(|e| e.into_path())
        .next()
        .or_else(|| {
            walkdir::WalkDir::new(&out)
                .into_iter()
                .map(Result::unwrap)
                .filter(|e| e.path().to_string_lossy().ends_with(".jpg"))
                .max_by_key(|e| e.metadata().unwrap().len())
                .map(|e| e.into_path())
        })
        .unwrap();
    let size = std::fs::metadata(&largest).unwrap().len();
    assert!(size > 64 * 1024, "{size}");
    std::fs::remove_file(&largest).unwrap();
    let old = entries(&out);
    // The disk filled up, then a little room made: less than the photograph needs.
    let filler = disk.join("filler");
    {
        use std::io::Write as _;
        let mut f = std::fs::File::create(&filler).unwrap();
        let block = vec![7u8; 64 * 1024];
        while f.write_all(&block).is_ok() {}
        let full = f.metadata().unwrap().len();
        f.set_len(full.saturating_sub(32 * 1024)).unwrap();
    }
    let run = site.run(&["build", "--output", out_arg]);
    run.failure(1).stderr_has("No space left on device");
    assert!(
        run.stderr.contains(".public.casebook-pending") && !run.stderr.contains(".casebook-cache"),
        "the error names the output file being written, not the cache file read: {}",
        run.stderr
    );
    assert!(entries(&out) == old, "{}", run.stderr);
    std::fs::remove_file(&filler).unwrap();
    site.run(&["build", "--output", out_arg]).success();
    assert!(out.join(largest.strip_prefix(&out).unwrap()).exists());
}
