//! `casebook serve`'s watcher and rebuilds (issue 27): a save written in pieces never
//! shows the error overlay, a real mistake still does, and what the build ignores
//! (symlinks out of the site, hidden folders, the output, the cache) starts no rebuild.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use casebook::serve::{Report, ServeOptions};

use crate::serve::{start, start_with};
use crate::support::SiteTest;
use crate::support::http::{Events, request};

#[test]
fn a_save_written_in_pieces_shows_no_error() {
    let site = SiteTest::fixture("search");
    let server = start(&site);
    let addr = server.addr;
    let mut events = Events::subscribe(addr);
    let path = site.root().join("content/cases/syn-a.md");
    let text = std::fs::read_to_string(&path).unwrap();
    for (gap, word) in [(100, "Truncated"), (500, "Slowly")] {
        // Truncate, then the rest `gap` ms later, as some editors and sync tools save.
        std::fs::write(&path, "").unwrap();
        let until = Instant::now() + Duration::from_millis(gap);
        while Instant::now() < until {
            let page = request(addr, "GET", "/cases/syn-a/");
            assert_eq!(page.status, 200, "{gap} ms into a save: {}", page.text());
            std::thread::sleep(Duration::from_millis(20));
        }
        let new = text.replace("Marked emaciation", &format!("{word} emaciation"));
        std::fs::write(&path, new).unwrap();
        loop {
            let (name, data) = events.next_any("reload");
            assert_ne!(
                name, "failed",
                "a save in pieces ({gap} ms) showed the overlay"
            );
            let page = request(addr, "GET", "/cases/syn-a/");
            assert_eq!(page.status, 200, "{}", page.text());
            if name == "reload" && page.text().contains(word) {
                break;
            }
            assert!(!data.is_empty());
        }
        assert!(server.wait_until_settled(Duration::from_secs(60)));
    }
    // A real mistake still shows, once the file stays as it is.
    std::fs::write(
        &path,
        text.replace("detainee_number = 2761", "detainee_number = \"x\""),
    )
    .unwrap();
    events.next("failed");
    let overlay = request(addr, "GET", "/cases/syn-a/");
    assert_eq!(overlay.status, 500);
    assert!(overlay.text().contains("content/cases/syn-a.md:"));
    server.stop();
}

#[test]
fn what_the_build_ignores_starts_no_rebuild() {
    let site = SiteTest::fixture("search");
    let root = site.root();
    // A folder elsewhere, linked into the content; the content's own git folder; the
    // output; the image cache.
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("elsewhere.md"),
        "+++\ntitle = \"x\"\n+++\n",
    )
    .unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.path(), root.join("content/linked")).unwrap();
    for dir in ["content/.git/objects", "public", ".casebook-cache/ab"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    let rebuilds = Arc::new(AtomicUsize::new(0));
    let failures = Arc::new(Mutex::new(Vec::new()));
    let (counted, failed) = (rebuilds.clone(), failures.clone());
    let server = start_with(&site, ServeOptions::default(), move |report| match report {
        Report::Rebuilt(_) => {
            counted.fetch_add(1, Ordering::SeqCst);
        }
        Report::Failed(diagnostics) => {
            counted.fetch_add(1, Ordering::SeqCst);
            failed
                .lock()
                .unwrap()
                .extend(diagnostics.iter().map(|d| d.to_string()));
        }
        Report::Finished(_) | Report::Rendered(_) => {}
    });
    let addr = server.addr;
    let mut events = Events::subscribe(addr);
    assert_eq!(
        request(addr, "GET", "/linked/elsewhere/").status,
        404,
        "the build does not follow the link"
    );
    let before = rebuilds.load(Ordering::SeqCst);
    std::fs::write(
        outside.path().join("elsewhere.md"),
        "+++\ntitle = \"y\"\n+++\n",
    )
    .unwrap();
    std::fs::write(outside.path().join("new.md"), "+++\ntitle = \"z\"\n+++\n").unwrap();
    std::fs::write(root.join("content/.git/objects/1a2b"), "blob").unwrap();
    std::fs::write(root.join("content/.git/index"), "index").unwrap();
    std::fs::write(root.join("public/index.html"), "<p>old output</p>").unwrap();
    std::fs::write(root.join(".casebook-cache/ab/cdef.jpg"), "derivative").unwrap();
    // Longer than the watcher's batching: any rebuild they caused would be its own.
    std::thread::sleep(Duration::from_millis(400));
    assert!(server.wait_until_settled(Duration::from_secs(60)));
    assert_eq!(
        rebuilds.load(Ordering::SeqCst),
        before,
        "changes the build ignores started a rebuild (problems: {:?})",
        failures.lock().unwrap()
    );
    crate::serve::edit(
        root,
        "content/cases/syn-a.md",
        "Marked emaciation",
        "Watched emaciation",
    );
    events.next_naming("reload", "/cases/syn-a/");
    assert!(server.wait_until_settled(Duration::from_secs(60)));
    assert_eq!(
        rebuilds.load(Ordering::SeqCst) - before,
        1,
        "the edit rebuilt once"
    );
    server.stop();
}
