//! `casebook serve` against other sites (issue 27): only this machine's names and those
//! given with `--allow-host` are served, and pages of other sites cannot load the
//! preview's files, in raw HTTP and in Chromium.

use std::process::Command;
use std::time::Duration;

use casebook::serve::ServeOptions;

use crate::serve::{interrupt_and_wait, spawn_serve, start, start_with};
use crate::support::SiteTest;
use crate::support::http::{Response, exchange, raw_request, request_with};

/// The page of a case whose narrative has these words.
const CASE: (&str, &str) = ("/cases/syn-a/", "Marked emaciation");

#[track_caller]
fn assert_refused(r: &Response, what: &str) {
    assert_eq!(r.status, 403, "{what}: {}", r.text());
    assert!(!r.text().contains(CASE.1), "{what} leaked the case");
    assert_eq!(r.header("cache-control"), Some("no-store"), "{what}");
}

#[test]
fn foreign_names_are_refused_with_a_page_that_says_what_to_do() {
    let site = SiteTest::fixture("search");
    let server = start(&site);
    let addr = server.addr;
    let port = addr.port();
    for host in [
        "evil.example".to_string(),
        format!("evil.example:{port}"),
        format!("127.0.0.1.nip.io:{port}"),
        format!("localhost.evil.example:{port}"),
    ] {
        for path in [
            CASE.0,
            "/data/cases.json",
            "/__casebook/live.js",
            "/__casebook/events",
        ] {
            let r = request_with(addr, "GET", path, &[("Host", &host)]);
            assert_refused(&r, &format!("{host} {path}"));
        }
        let page = request_with(addr, "GET", CASE.0, &[("Host", &host)]).text();
        let name = host.split(':').next().unwrap();
        assert!(
            page.contains(&format!("casebook serve --allow-host {name}")),
            "{page}"
        );
    }
    // No Host at all (a request line naming another host: `requests_that_could_be_read_two_ways_are_refused`).
    assert_refused(
        &raw_request(addr, &format!("GET {} HTTP/1.0\r\n\r\n", CASE.0)),
        "no Host",
    );
    // This machine's own names, with the port or without.
    for host in [
        "localhost".to_string(),
        format!("localhost:{port}"),
        format!("preview.localhost:{port}"),
        format!("127.0.0.1:{port}"),
        format!("127.0.0.2:{port}"),
        "[::1]".to_string(),
        format!("[::1]:{port}"),
    ] {
        let r = request_with(addr, "GET", CASE.0, &[("Host", &host)]);
        assert_eq!(r.status, 200, "{host}");
        assert!(r.text().contains(CASE.1), "{host}");
    }
    server.stop();
}

#[test]
fn names_given_with_allow_host_are_served() {
    let site = SiteTest::fixture("search");
    let server = start_with(
        &site,
        ServeOptions {
            allow_hosts: vec!["Preview.Example.org".into(), "10.1.2.3".into()],
            ..Default::default()
        },
        |_| {},
    );
    let addr = server.addr;
    for host in [
        "preview.example.org",
        "preview.example.org:8080",
        "10.1.2.3:1111",
    ] {
        let r = request_with(addr, "GET", CASE.0, &[("Host", host)]);
        assert_eq!(r.status, 200, "{host}");
    }
    for host in ["sub.preview.example.org", "example.org", "10.1.2.4"] {
        assert_refused(&request_with(addr, "GET", CASE.0, &[("Host", host)]), host);
    }
    server.stop();

    // The same from the command line, the option repeated.
    let (child, url) = spawn_serve(
        &site,
        &["--allow-host", "preview.test", "--allow-host", "other.test"],
    );
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .parse()
        .unwrap();
    for host in ["preview.test", "other.test"] {
        let r = request_with(addr, "GET", CASE.0, &[("Host", host)]);
        assert_eq!(r.status, 200, "{host}");
    }
    assert_refused(
        &request_with(addr, "GET", CASE.0, &[("Host", "third.test")]),
        "third.test",
    );
    let (code, _, stderr) = interrupt_and_wait(child);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn a_malformed_allow_host_is_refused_before_anything_starts() {
    let site = SiteTest::fixture("search");
    let out = Command::new(env!("CARGO_BIN_EXE_casebook"))
        .args([
            "serve",
            "--port",
            "0",
            "--allow-host",
            "http://preview.test/",
        ])
        .arg("--root")
        .arg(site.root())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("--allow-host \"http://preview.test/\" is not a host name"),
        "{stderr}"
    );
    assert!(stderr.contains("allow-host"), "names the option: {stderr}");
    assert!(stderr.contains("without http://"), "a hint: {stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).is_empty());
    assert!(!site.root().join("public").exists());
}

#[test]
fn pages_of_other_sites_cannot_load_the_preview_s_files() {
    let site = SiteTest::fixture("search");
    let server = start(&site);
    let addr = server.addr;
    let from = |site: &'static str, mode: &'static str, dest: &'static str| {
        [
            ("Sec-Fetch-Site", site),
            ("Sec-Fetch-Mode", mode),
            ("Sec-Fetch-Dest", dest),
        ]
    };
    for path in ["/casebook.js", "/data/cases.json", "/__casebook/events"] {
        for (who, mode, dest) in [
            ("cross-site", "no-cors", "script"),
            ("cross-site", "cors", "empty"),
            ("same-site", "no-cors", "script"),
        ] {
            let r = request_with(addr, "GET", path, &from(who, mode, dest));
            assert_refused(&r, &format!("{who} {mode} {path}"));
            assert!(r.text().contains("another site"));
        }
    }
    // Older browsers send no Sec-Fetch headers, but an Origin.
    let r = request_with(
        addr,
        "GET",
        "/__casebook/events",
        &[("Origin", "https://evil.example")],
    );
    assert_refused(&r, "events with a foreign Origin");
    // A link from another site still opens the preview; its own pages load their files.
    let r = request_with(
        addr,
        "GET",
        CASE.0,
        &from("cross-site", "navigate", "document"),
    );
    assert_eq!(r.status, 200);
    let r = request_with(
        addr,
        "GET",
        "/casebook.js",
        &from("same-origin", "no-cors", "script"),
    );
    assert_eq!(r.status, 200);
    server.stop();
}

#[test]
fn browser_other_sites_cannot_read_the_preview() {
    let Some(mut browser) = crate::support::browser::Browser::launch_with(
        "browser_other_sites_cannot_read_the_preview",
        &["--host-resolver-rules=MAP evil.test 127.0.0.1, MAP preview.test 127.0.0.1"],
    ) else {
        return;
    };
    let site = SiteTest::fixture("search");
    let server = start(&site);
    let port = server.addr.port();

    // DNS rebinding: a page on evil.test, now resolving to this machine, reads the preview
    // as its own origin.
    browser.goto(&format!("http://evil.test:{port}{}", CASE.0));
    let text = browser.eval("document.body.innerText");
    let text = text.as_str().unwrap();
    assert!(
        text.contains("casebook serve --allow-host evil.test"),
        "{text}"
    );
    assert!(!text.contains(CASE.1), "{text}");
    let status = browser.eval("fetch('/data/cases.json').then(r => r.status)");
    assert_eq!(status, 403);
    let events = browser.eval("fetch('/__casebook/events').then(r => r.status)");
    assert_eq!(events, 403);

    // Cross-site inclusion: a page of another site loads the search index as a script.
    let search = crate::serve_files::search_meta(server.addr);
    let attacker = tempfile::tempdir().unwrap();
    std::fs::write(
        attacker.path().join("index.html"),
        format!(
            "<!doctype html><title>x</title><script>window.leaked = 0; \
             window.casebook = {{ search: {{ add: function () {{ window.leaked += 1; }} }} }};</script>\
             <script src=\"http://127.0.0.1:{port}{search}\" \
             onload=\"window.included = 'loaded'\" onerror=\"window.included = 'refused'\"></script>"
        ),
    )
    .unwrap();
    let elsewhere = crate::support::browser::serve(attacker.path());
    let elsewhere = elsewhere.replace("127.0.0.1", "evil.test");
    browser.goto(&elsewhere);
    let included = browser.wait_for("window.included");
    assert_eq!(included, "refused");
    assert_eq!(browser.eval("window.leaked"), 0);

    // A name given with --allow-host is the preview's own, live reload included.
    let allowed = start_with(
        &site,
        ServeOptions {
            allow_hosts: vec!["preview.test".into()],
            ..Default::default()
        },
        |_| {},
    );
    browser.goto(&format!(
        "http://preview.test:{}{}",
        allowed.addr.port(),
        CASE.0
    ));
    browser.wait_for("window.casebookLive === true");
    let text = browser.eval("document.body.innerText");
    assert!(text.as_str().unwrap().contains(CASE.1));
    allowed.stop();
    server.stop();
}

/// A server whose kept-alive connections stay open long past `exchange`'s wait, so that
/// one the server closes is told from one it keeps.
fn start_patient(site: &SiteTest) -> casebook::serve::Server {
    start_with(
        site,
        ServeOptions {
            header_timeout: Duration::from_secs(120),
            idle_timeout: Duration::from_secs(120),
            ..Default::default()
        },
        |_| {},
    )
}

/// A request that reads the case, sent after a bad one on the same connection.
const NEXT: &str = "GET /cases/syn-a/ HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";

/// `bad` (with `NEXT` pipelined behind it) gets one 400, and the connection is closed
/// before the request behind it is read (no request smuggled through).
#[track_caller]
fn assert_bad_request(addr: std::net::SocketAddr, bad: &str) {
    let responses = exchange(addr, &format!("{bad}{NEXT}"), Duration::from_secs(5));
    let statuses: Vec<u16> = responses.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [400], "{bad:?}");
    let r = &responses[0];
    assert!(!r.text().contains(CASE.1), "{bad:?} leaked the case");
    assert_eq!(r.header("connection"), Some("close"), "{bad:?}");
    assert!(
        r.text().contains("casebook-refused"),
        "{bad:?}: {}",
        r.text()
    );
}

#[test]
fn requests_that_could_be_read_two_ways_are_refused() {
    let site = SiteTest::fixture("search");
    let server = start_patient(&site);
    let addr = server.addr;
    let port = addr.port();
    let get = |headers: &str, body: &str| format!("GET {} HTTP/1.1\r\n{headers}\r\n{body}", CASE.0);
    // Two Host headers, the same or different: which one would a proxy in front have read?
    for (a, b) in [
        ("localhost", "localhost"),
        ("localhost", "evil.example"),
        ("evil.example", "localhost"),
        ("127.0.0.1", "localhost"),
    ] {
        assert_bad_request(addr, &get(&format!("Host: {a}\r\nHost: {b}\r\n"), ""));
    }
    // Content-Length and Transfer-Encoding together, in both orders, with bodies that one
    // reading or the other takes for the start of a second request.
    let smuggled = "GET /data/cases.json HTTP/1.1\r\nHost: localhost\r\n\r\n";
    for (headers, body) in [
        (
            "Host: localhost\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n".to_string(),
            "0\r\n\r\n".to_string(),
        ),
        (
            "Host: localhost\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n".to_string(),
            "0\r\n\r\n".to_string(),
        ),
        (
            "Host: localhost\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n".to_string(),
            format!("0\r\n\r\n{smuggled}"),
        ),
        (
            format!(
                "Host: localhost\r\nTransfer-Encoding: chunked\r\nContent-Length: {}\r\n",
                5 + smuggled.len()
            ),
            format!("0\r\n\r\n{smuggled}"),
        ),
    ] {
        assert_bad_request(addr, &get(&headers, &body));
        assert_bad_request(
            addr,
            &format!("POST /search/ HTTP/1.1\r\n{headers}\r\n{body}"),
        );
    }
    // The preview reads no request body: a chunked one alone is refused the same way.
    assert_bad_request(
        addr,
        &get(
            "Host: localhost\r\nTransfer-Encoding: chunked\r\n",
            "0\r\n\r\n",
        ),
    );
    // An absolute request target is checked like the Host header: another host, another
    // scheme or a user name in it is refused, whatever the Host header says.
    for target in [
        "http://evil.example/cases/syn-a/".to_string(),
        format!("http://evil.example:{port}/cases/syn-a/"),
        format!("http://localhost.evil.example:{port}/cases/syn-a/"),
        format!("http://localhost:{port}@evil.example/cases/syn-a/"),
        format!("http://evil.example@localhost:{port}/cases/syn-a/"),
        format!("https://localhost:{port}/cases/syn-a/"),
    ] {
        for host in ["localhost".to_string(), format!("127.0.0.1:{port}")] {
            assert_bad_request(
                addr,
                &format!("GET {target} HTTP/1.1\r\nHost: {host}\r\n\r\n"),
            );
        }
    }
    // This preview's own address in absolute form is served (RFC 9112, 3.2.2), and the
    // Host header must still be one of its names.
    for target in [
        format!("http://127.0.0.1:{port}/cases/syn-a/"),
        format!("http://localhost:{port}/cases/syn-a/"),
        "http://localhost/cases/syn-a/".to_string(),
    ] {
        let r = raw_request(
            addr,
            &format!(
                "GET {target} HTTP/1.1\r\nHost: localhost:{port}\r\nConnection: close\r\n\r\n"
            ),
        );
        assert_eq!(r.status, 200, "{target}");
        assert!(r.text().contains(CASE.1), "{target}");
        assert_refused(
            &raw_request(
                addr,
                &format!(
                    "GET {target} HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n"
                ),
            ),
            &format!("{target} with a foreign Host"),
        );
    }
    // A plain request is answered, and the connection kept for the next one.
    let plain = format!("GET {} HTTP/1.1\r\nHost: localhost\r\n\r\n{NEXT}", CASE.0);
    let responses = exchange(addr, &plain, Duration::from_secs(20));
    let statuses: Vec<u16> = responses.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [200, 200]);
    assert!(responses.iter().all(|r| r.text().contains(CASE.1)));
    server.stop();
}
