//! A chainable harness over fixture sites: copy a fixture to a temporary folder, change
//! files, run the real `casebook` binary, and inspect its output.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub mod browser;
pub mod http;
pub mod sheets;
pub mod tsa;

use scraper::{Html, Selector};

pub struct SiteTest {
    dir: tempfile::TempDir,
}

/// The outcome of one run of the binary.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<std::process::Output> for Run {
    fn from(out: std::process::Output) -> Run {
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// A tool from outside cargo is missing: under CI (where `.ci/run` installs it) the test
/// fails; elsewhere it prints `message`, how to get the tool, and the caller skips.
#[track_caller]
pub fn missing_tool(message: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{message}; it must run under CI"
    );
    eprintln!("skipped: {message}");
}

impl Run {
    #[track_caller]
    pub fn success(&self) -> &Self {
        assert_eq!(
            self.code, 0,
            "expected success\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }

    #[track_caller]
    pub fn failure(&self, code: i32) -> &Self {
        assert_eq!(
            self.code, code,
            "expected exit {code}\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }

    #[track_caller]
    pub fn stdout_has(&self, needle: &str) -> &Self {
        assert!(
            self.stdout.contains(needle),
            "stdout lacks {needle:?}:\n{}",
            self.stdout
        );
        self
    }

    #[track_caller]
    pub fn stderr_has(&self, needle: &str) -> &Self {
        assert!(
            self.stderr.contains(needle),
            "stderr lacks {needle:?}:\n{}",
            self.stderr
        );
        self
    }
}

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(from).unwrap();
        let target = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A copy of the bundled site (config, content, theme) in a fresh temporary folder.
pub fn bundled() -> SiteTest {
    let site = SiteTest::empty();
    for part in ["casebook.toml", "content", "themes"] {
        let from = repo_root().join(part);
        if from.is_dir() {
            copy_tree(&from, &site.root().join(part));
        } else {
            std::fs::copy(&from, site.root().join(part)).unwrap();
        }
    }
    site
}

impl SiteTest {
    /// A copy of `tests/fixtures/<name>` in a fresh temporary folder.
    pub fn fixture(name: &str) -> SiteTest {
        let dir = tempfile::tempdir().unwrap();
        copy_tree(&repo_root().join("tests/fixtures").join(name), dir.path());
        SiteTest { dir }
    }

    /// An empty temporary folder.
    pub fn empty() -> SiteTest {
        SiteTest {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Copies a file from `tests/fixtures/` into the site.
    pub fn copy_in(self, fixture: &str, rel: &str) -> Self {
        let path = self.root().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::copy(repo_root().join("tests/fixtures").join(fixture), &path).unwrap();
        self
    }

    /// Adds `[[photos]]` tables to the end of a page's TOML front matter.
    #[track_caller]
    pub fn photos(self, page: &str, tables: &str) -> Self {
        let path = self.root().join(page);
        let text = std::fs::read_to_string(&path).unwrap();
        let close = text[3..]
            .find("\n+++")
            .map(|i| i + 3)
            .expect("TOML front matter");
        std::fs::write(
            &path,
            format!(
                "{}\n{}{}",
                &text[..close],
                tables.trim_end(),
                &text[close..]
            ),
        )
        .unwrap();
        self
    }

    pub fn write(self, rel: &str, text: &str) -> Self {
        self.write_bytes(rel, text.as_bytes())
    }

    pub fn write_bytes(self, rel: &str, bytes: &[u8]) -> Self {
        let path = self.root().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
        self
    }

    /// Replaces `from` with `to` in a file, failing if `from` is absent.
    #[track_caller]
    pub fn edit(self, rel: &str, from: &str, to: &str) -> Self {
        let path = self.root().join(rel);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{rel} does not contain {from:?}");
        std::fs::write(path, text.replacen(from, to, 1)).unwrap();
        self
    }

    pub fn remove(self, rel: &str) -> Self {
        let path = self.root().join(rel);
        if path.is_dir() {
            std::fs::remove_dir_all(path).unwrap();
        } else {
            std::fs::remove_file(path).unwrap();
        }
        self
    }

    /// Runs `casebook <args> --root <site>`.
    pub fn run(&self, args: &[&str]) -> Run {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_casebook"));
        cmd.args(args);
        if matches!(args.first(), Some(&"build") | Some(&"check")) {
            cmd.arg("--root").arg(self.root());
        }
        Run::from(cmd.output().unwrap())
    }

    pub fn build(&self) -> Run {
        self.run(&["build"])
    }

    pub fn public(&self) -> PathBuf {
        self.root().join("public")
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.public().join(rel).exists()
    }

    #[track_caller]
    pub fn file(&self, rel: &str) -> String {
        std::fs::read_to_string(self.public().join(rel))
            .unwrap_or_else(|e| panic!("public/{rel}: {e}"))
    }

    pub fn html(&self, rel: &str) -> Html {
        Html::parse_document(&self.file(rel))
    }
}

/// The JSON a tool run by `cmd` prints, after checking it ran and succeeded; `what` names
/// it in a failure.
pub fn json_printed_by<T: serde::de::DeserializeOwned>(cmd: &mut Command, what: &str) -> T {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what} did not start: {e}"));
    assert!(
        out.status.success(),
        "{what} did not run: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{what} printed no JSON: {e}"))
}

/// Text of every element matching `selector`.
pub fn texts(html: &Html, selector: &str) -> Vec<String> {
    let sel = Selector::parse(selector).unwrap();
    html.select(&sel)
        .map(|e| {
            e.text()
                .collect::<String>()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// Values of `attr` on every element matching `selector`.
pub fn attrs(html: &Html, selector: &str, attr: &str) -> Vec<String> {
    let sel = Selector::parse(selector).unwrap();
    html.select(&sel)
        .filter_map(|e| e.value().attr(attr).map(str::to_string))
        .collect()
}

/// Builds `fresh`, the same input as `site` from scratch, and checks that `site`'s output
/// is byte for byte the same.
/// File times tick coarsely: a change less than two seconds old is never kept or recorded
/// (the walk's `SETTLED`). Tests wait that long before a build that should keep it.
pub fn settle() {
    std::thread::sleep(std::time::Duration::from_millis(2100));
}

/// An edit to a fixture site, made to the site under test and to a fresh copy alike.
pub type Edit = fn(SiteTest) -> SiteTest;

/// Edits made one after another to a fixture site, each built into the same output and
/// compared with a build from nothing of the fixture with every edit so far.
pub struct EditedFixture {
    fixture: &'static str,
    done: Vec<Edit>,
}

impl EditedFixture {
    pub fn new(fixture: &'static str) -> Self {
        EditedFixture {
            fixture,
            done: Vec::new(),
        }
    }

    /// Makes `edit` on `site` and builds it: its output must be what a build from nothing
    /// gives (`what` names the edit when it is not).
    pub fn build_after(&mut self, site: SiteTest, what: &str, edit: Edit) -> SiteTest {
        let site = edit(site);
        self.done.push(edit);
        site.build().success();
        println!("after {what}");
        assert_same_as_fresh(&site, self.fresh());
        site
    }

    /// A fresh copy of the fixture with every edit so far made.
    pub fn fresh(&self) -> SiteTest {
        (self.done.iter()).fold(SiteTest::fixture(self.fixture), |s, e| e(s))
    }
}

pub fn assert_same_as_fresh(site: &SiteTest, fresh: SiteTest) {
    fresh.build().success();
    assert!(
        tree(&site.public()) == tree(&fresh.public()),
        "differs from a fresh build"
    );
}

/// Every file below `dir`, relative, sorted, with its bytes.
pub fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e
                .path()
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (rel, std::fs::read(e.path()).unwrap())
        })
        .collect();
    out.sort();
    out
}

/// A PNG of yellow and blue 3-pixel squares: a generated image, nothing photographed.
pub fn patterned_png(w: u32, h: u32) -> Vec<u8> {
    let img = image::RgbImage::from_fn(w, h, |x, y| {
        if (x / 3 + y / 3) % 2 == 0 {
            image::Rgb([255, 230, 0])
        } else {
            image::Rgb([0, 40, 255])
        }
    });
    let mut out = Vec::new();
    image::ImageEncoder::write_image(
        image::codecs::png::PngEncoder::new(&mut out),
        img.as_raw(),
        w,
        h,
        image::ExtendedColorType::Rgb8,
    )
    .unwrap();
    out
}

/// Seals journal bytes for the output folder `out` as casebook on this machine does
/// (`src/output/seal.rs`), making the key file beside it if there is none: for tests that
/// leave a stopped update by hand.
#[cfg(unix)]
pub fn seal_journal(out: &Path, mut body: Vec<u8>) -> Vec<u8> {
    use std::os::unix::fs::MetadataExt;
    let name = out.file_name().unwrap().to_string_lossy().into_owned();
    let key_file = out.parent().unwrap().join(format!(".{name}.casebook-key"));
    if !key_file.exists() {
        std::fs::write(&key_file, [42u8; 32]).unwrap();
    }
    let secret: [u8; 32] = std::fs::read(&key_file).unwrap().try_into().unwrap();
    let (key, dir) = (
        std::fs::metadata(&key_file).unwrap(),
        std::fs::metadata(out).unwrap(),
    );
    let mut h = blake3::Hasher::new_keyed(&secret);
    h.update(b"casebook-journal-seal-2\0");
    for n in [key.dev(), key.ino()] {
        h.update(&n.to_le_bytes());
    }
    for n in [key.ctime(), key.ctime_nsec()] {
        h.update(&n.to_le_bytes());
    }
    for n in [dir.dev(), dir.ino()] {
        h.update(&n.to_le_bytes());
    }
    h.update(&body);
    body.extend_from_slice(h.finalize().as_bytes());
    body
}
