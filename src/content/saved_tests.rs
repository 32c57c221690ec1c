use std::path::Path;

use super::*;
use crate::content::{Corpus, Listed, WalkedFiles, load_listed, load_partial};

/// The minimal fixture with a page of every kind of standard key (an extra table, times
/// with offsets and fractions, a slug, a template, a weight), a withdrawn case and a page
/// with a photograph.
fn site() -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, root) = crate::paths::fixture_copy("minimal");
    let write = |rel: &str, text: &str| {
        let path = root.join("content").join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "rich.md",
        "+++\ntitle = \"Rich\"\ndescription = \"d\"\ndate = 2014-01-20T10:30:00.25+03:00\n\
         updated = 2015-02-01\nweight = -4\nslug = \"riche\"\ntemplate = \"page.html\"\n\
         [extra]\nn = 1.5\nwhen = 1979-05-27T07:32:00Z\nlist = [1, \"two\", { three = 3 }]\n\
         [extra.\"quoted key\"]\nok = true\n+++\nBody of the rich page.\n",
    );
    write(
        "cases/c-009/index.md",
        "+++\ntitle = \"Case nine\"\ncase_id = \"c-009\"\nnumber = 109\nbranch = \"227\"\n\
         photographed = 2012-01-01\nsynthetic = true\n\
         withdrawn = { reason = \"family request\", date = 2026-12-01 }\n+++\nGone.\n",
    );
    write("with-photo/p.jpg", "not read by a parse");
    write(
        "with-photo/index.md",
        "+++\ntitle = \"Photo page\"\n[[photos]]\nfile = \"p.jpg\"\n\
         alt = \"Synthetic test photograph\"\nsensitivity = \"none\"\n+++\nA photograph.\n",
    );
    (dir, root)
}

/// Every file below `content/`, each stamped by `stamp` (or unsettled: `None`).
fn files(root: &Path, stamp: impl Fn(&str) -> Option<SourceStamp>) -> WalkedFiles {
    let content = root.join("content");
    walkdir::WalkDir::new(&content)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(&content).unwrap();
            let rel = rel.to_str().unwrap().to_string();
            let stamp = stamp(&rel);
            (rel, stamp)
        })
        .collect()
}

fn stamped(rel: &str) -> Option<SourceStamp> {
    let mut stamp = [0u8; 56];
    let len = rel.len().min(55);
    stamp[..len].copy_from_slice(&rel.as_bytes()[..len]);
    Some(stamp)
}

/// Loads `files` with the parses kept in `kept` (under `key`), checks the corpus against a
/// load from nothing, and gives it with the parses to keep next.
fn load(
    root: &Path,
    files: WalkedFiles,
    kept: &[u8],
    key: u128,
) -> (std::sync::Arc<Corpus>, Option<Vec<u8>>) {
    let config = Config::load(root).unwrap();
    let listed = Listed {
        files,
        saved: Saved::parse(kept, key),
        key,
    };
    let (corpus, problems, next) = load_listed(&config, false, listed).unwrap();
    assert_eq!(problems, Vec::new());
    (std::sync::Arc::new(corpus), next)
}

fn body(corpus: &Corpus, source: &str) -> String {
    let page = corpus
        .pages
        .iter()
        .find(|p| p.meta.source.ends_with(source));
    page.unwrap().meta.body.clone()
}

#[test]
fn kept_parses_load_the_corpus_a_full_load_gives() {
    let (_dir, root) = site();
    let config = Config::load(&root).unwrap();
    let key = key(&config);
    let (full, _) = load_partial(&config, false).unwrap();
    let (first, kept) = load(&root, files(&root, stamped), &[], key);
    assert!(*first == full);
    let kept = kept.expect("every file parsed: kept for the next build");
    let saved = Saved::parse(&kept, key);
    // Every file that parsed, but the page with a photograph.
    let markdown = files(&root, stamped)
        .iter()
        .filter(|(rel, _)| rel.ends_with(".md"))
        .count();
    assert_eq!(saved.len(), markdown - 1);
    assert!(
        saved
            .record(
                "with-photo/index.md",
                &stamped("with-photo/index.md").unwrap()
            )
            .is_none()
    );
    assert!(
        saved
            .record("rich.md", &stamped("rich.md").unwrap())
            .is_some()
    );
    // Counted as the build finds its files: each kept under the stamp it has now.
    assert_eq!(saved.kept_of(&files(&root, stamped)), markdown - 1);
    let rich_changed = files(&root, |rel| match rel {
        "rich.md" => Some([9; 56]),
        _ => stamped(rel),
    });
    assert_eq!(saved.kept_of(&rich_changed), markdown - 2);
    assert_eq!(saved.kept_of(&files(&root, |_| None)), 0);

    // All of it from the kept parses: the same corpus, and nothing new to keep.
    let (again, next) = load(&root, files(&root, stamped), &kept, key);
    assert!(*again == full, "a corpus from kept parses differs");
    assert!(next.is_none());
}

#[test]
fn a_file_is_read_again_unless_its_stamp_and_the_key_are_the_kept_ones() {
    let (_dir, root) = site();
    let config = Config::load(&root).unwrap();
    let key = key(&config);
    let unsettled = "cases/c-002/index.md";
    let stamps = |rel: &str| (rel != unsettled).then(|| stamped(rel)).flatten();
    let (_, kept) = load(&root, files(&root, stamps), &[], key);
    let kept = kept.unwrap();
    let edit = |rel: &str| {
        let path = root.join("content").join(rel);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("Narrative", "Edited narrative")).unwrap();
    };
    let (c1, c2) = ("cases/c-001/index.md", unsettled);
    edit(c1);
    edit(c2);
    // The stamps say c-001 did not change: its kept parse is used (which is how a change
    // the walk cannot see would go unseen, and why stamps hold every stat field). c-002
    // had no stamp when it was parsed: it was not kept.
    let (corpus, _) = load(&root, files(&root, stamps), &kept, key);
    assert!(!body(&corpus, c1).contains("Edited narrative"));
    assert!(body(&corpus, c2).contains("Edited narrative"));
    // Another stamp, another casebook or configuration, a damaged file: read again.
    let restamped = |rel: &str| {
        let mut stamp = stamps(rel)?;
        stamp[0] ^= 1;
        Some(stamp)
    };
    let (corpus, _) = load(&root, files(&root, restamped), &kept, key);
    assert!(body(&corpus, c1).contains("Edited narrative"));
    let (corpus, _) = load(&root, files(&root, stamps), &kept, key ^ 1);
    assert!(body(&corpus, c1).contains("Edited narrative"));
    let mut damaged = kept.clone();
    let middle = damaged.len() / 2;
    damaged[middle] ^= 1;
    assert_eq!(Saved::parse(&damaged, key).len(), 0);
    // A whole file that claims more entries than any memory holds: a hint, not obeyed.
    let mut huge = crate::cache_file::Writer::new(MAGIC);
    huge.u128(key);
    huge.u64(u64::MAX);
    assert_eq!(Saved::parse(&huge.finish(), key).len(), 0);
    let (corpus, _) = load(&root, files(&root, stamps), &damaged, key);
    assert!(body(&corpus, c1).contains("Edited narrative"));
}

#[test]
fn the_kept_parses_are_written_again_only_when_many_are_stale() {
    let (_dir, root) = site();
    let config = Config::load(&root).unwrap();
    let key = key(&config);
    // More files than the smallest rewrite.
    for i in 0..64 {
        let path = root.join(format!("content/docs/n{i:02}.md"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, format!("+++\ntitle = \"Note {i}\"\n+++\nText {i}.\n")).unwrap();
    }
    let (_, kept) = load(&root, files(&root, stamped), &[], key);
    let kept = kept.unwrap();
    // One file changed: parsed again, now and next time, rather than 80 files rewritten.
    let one = |rel: &str| {
        let mut stamp = stamped(rel)?;
        if rel == "docs/n00.md" {
            stamp[55] = 1;
        }
        Some(stamp)
    };
    let (_, next) = load(&root, files(&root, one), &kept, key);
    assert!(next.is_none());
    // Many changed: kept anew, with the new stamps.
    let many = |rel: &str| {
        let mut stamp = stamped(rel)?;
        stamp[55] = u8::from(rel.starts_with("docs/n0"));
        Some(stamp)
    };
    let (_, next) = load(&root, files(&root, many), &kept, key);
    let next = next.expect("ten files of 80 changed");
    let saved = Saved::parse(&next, key);
    assert!(
        saved
            .record("docs/n01.md", &many("docs/n01.md").unwrap())
            .is_some()
    );
    assert!(
        saved
            .record("docs/n01.md", &stamped("docs/n01.md").unwrap())
            .is_none()
    );
}

#[test]
fn a_record_that_does_not_read_whole_is_not_a_parse() {
    assert!(decode(&[]).is_none());
    assert!(decode(&[7]).is_none());
    let (_dir, root) = site();
    let config = Config::load(&root).unwrap();
    let parsed =
        super::super::parse::parse_file(&config, &root.join("content"), Path::new("rich.md"))
            .map_err(|_| "parses")
            .unwrap();
    let record = encode(&parsed);
    let back = decode(&record).expect("a record decodes");
    assert_eq!(back.meta, parsed.meta);
    assert_eq!(
        format!("{:?}", back.standard),
        format!("{:?}", parsed.standard)
    );
    assert!(!parsed.standard.extra.is_empty() && parsed.meta.date.is_some());
    // Cut short, or with a byte more: refused.
    assert!(decode(&record[..record.len() - 1]).is_none());
    let mut longer = record.clone();
    longer.push(0);
    assert!(decode(&longer).is_none());
}
