//! Measures `casebook serve` on a site (run by `benches/serve.sh`, not a test):
//!
//! `cargo run --release --example serve-bench -- --root /tmp/c11000 --edits 9`
//!
//! Starts the release binary on the site and reports, as medians over several edits:
//! - startup: from launch until the first page is served;
//! - case edit: from saving one case file (its narrative) to the reload event for its page,
//!   and to the new page being served; then until the search index and whole-site files
//!   caught up (the search page's reload);
//! - case field edit: the same for a facet value change (its list pages change too);
//! - template edit: from saving the case template (a site override) to the reload event.
//!
//! The edits change the files the way an editor does (write in place); each waits for the
//! previous one to finish first.

// Helpers in the support modules are shared across this crate's modules, not exported.
#![allow(unreachable_pub)]

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[allow(dead_code)]
#[path = "../tests/support/http.rs"]
mod http;

use http::{Events, request};

fn get(addr: SocketAddr, path: &str) -> String {
    request(addr, "GET", path).text()
}

/// Waits for a `reload` event that names `page`.
fn wait_reload(events: &mut Events, page: &str) {
    events.next_naming("reload", &format!("\"{page}\""));
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let root = PathBuf::from(arg("--root").expect("--root DIR"));
    let edits: usize = arg("--edits").map_or(9, |n| n.parse().expect("a number"));
    let bin = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/casebook");
    // A site override of the case template, edited below.
    let template = root.join("templates/case.html");
    std::fs::create_dir_all(template.parent().unwrap()).unwrap();
    let original = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("themes/default/templates/case.html"),
    )
    .unwrap();
    std::fs::write(&template, &original).unwrap();

    let started = Instant::now();
    let mut child = Command::new(&bin)
        .args(["serve", "--port", "0", "--root"])
        .arg(&root)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("build the release binary first");
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let addr: SocketAddr = line
        .split_whitespace()
        .nth(1)
        .and_then(|u| u.strip_prefix("http://"))
        .map(|u| u.trim_end_matches('/'))
        .and_then(|u| u.parse().ok())
        .unwrap_or_else(|| panic!("unexpected output {line:?}"));
    assert!(get(addr, "/").contains("</html>"));
    let startup = started.elapsed();
    println!(
        "startup (launch -> first page served): {:.2} s",
        startup.as_secs_f64()
    );
    // The edits below start once the whole site is served, the search page included.
    while request(addr, "GET", "/search/").status != 200 {
        std::thread::sleep(Duration::from_millis(20));
    }
    println!(
        "startup (launch -> every page and the search page served): {:.2} s",
        started.elapsed().as_secs_f64()
    );

    let mut events = Events::subscribe(addr);
    let cases: Vec<PathBuf> = (1..=edits)
        .map(|i| root.join(format!("content/cases/syn-{:06}/index.md", i * 997)))
        .collect();

    let mut reload = Vec::new();
    let mut served = Vec::new();
    let mut finished = Vec::new();
    for (i, file) in cases.iter().enumerate() {
        let id = case_id(file);
        let marker = format!("serve bench edit {i}");
        let text = std::fs::read_to_string(file).unwrap();
        let t0 = Instant::now();
        std::fs::write(file, format!("{text}\n{marker}.\n")).unwrap();
        wait_reload(&mut events, &format!("/cases/{id}/"));
        reload.push(t0.elapsed());
        assert!(get(addr, &format!("/cases/{id}/")).contains(&marker));
        served.push(t0.elapsed());
        wait_reload(&mut events, "/search/");
        finished.push(t0.elapsed());
    }
    report("case narrative edit -> reload event", &mut reload);
    report("case narrative edit -> new page served", &mut served);
    report(
        "case narrative edit -> search index and site files current",
        &mut finished,
    );

    let mut field = Vec::new();
    let mut field_served = Vec::new();
    let mut list_served = Vec::new();
    for file in &cases {
        let id = case_id(file);
        let text = std::fs::read_to_string(file).unwrap();
        // The other value than the file has, whatever an earlier run left.
        let status = if text.contains("status = \"unidentified\"") {
            "identified"
        } else {
            "unidentified"
        };
        let edited: String = text
            .lines()
            .map(|l| {
                if l.starts_with("status = ") {
                    format!("status = \"{status}\"")
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        if edited.trim_end() == text.trim_end() {
            continue;
        }
        let t0 = Instant::now();
        std::fs::write(file, edited + "\n").unwrap();
        wait_reload(&mut events, &format!("/cases/{id}/"));
        field.push(t0.elapsed());
        let page = get(addr, &format!("/cases/{id}/"));
        assert!(page.contains(&format!(">{status}<")) || page.contains(status));
        field_served.push(t0.elapsed());
        // The case list shows every facet's counts: it changed too.
        assert!(get(addr, "/cases/").contains("</html>"));
        list_served.push(t0.elapsed());
        wait_reload(&mut events, "/search/");
    }
    report("case field (facet value) edit -> reload event", &mut field);
    report(
        "case field (facet value) edit -> new page served",
        &mut field_served,
    );
    report("the same -> then the case list served", &mut list_served);

    let mut templates = Vec::new();
    for i in 0..3.min(edits) {
        let t0 = Instant::now();
        let edited = original.replacen(
            "{% block content %}",
            &format!("{{% block content %}}<p hidden>bench edit {i}</p>"),
            1,
        );
        std::fs::write(&template, edited).unwrap();
        wait_reload(&mut events, "/cases/syn-000001/");
        templates.push(t0.elapsed());
    }
    report("case template edit -> reload event", &mut templates);
    let _ = std::fs::remove_dir_all(root.join("templates"));

    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let _ = child.wait();
}

/// `syn-000997` for `.../cases/syn-000997/index.md`.
fn case_id(file: &Path) -> String {
    let folder = file.parent().and_then(|p| p.file_name());
    folder.unwrap().to_string_lossy().into_owned()
}

fn report(what: &str, times: &mut [Duration]) {
    times.sort();
    let ms: Vec<String> = times
        .iter()
        .map(|t| format!("{:.0}", t.as_secs_f64() * 1000.0))
        .collect();
    let median = times[times.len() / 2];
    println!(
        "{what}: median {:.0} ms (of {} edits: {} ms)",
        median.as_secs_f64() * 1000.0,
        times.len(),
        ms.join(", ")
    );
}
