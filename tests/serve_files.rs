//! `casebook serve` and large files, slow clients and searches in flight (issue 27):
//! files are streamed, never read whole, and answer byte ranges; stalled connections are
//! closed; the previous build's search files outlive one rebuild.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use casebook::serve::ServeOptions;

use crate::serve::{edit, interrupt_and_wait, spawn_serve, start, start_with};
use crate::support::SiteTest;
use crate::support::http::{Events, download, request, request_with};

/// A file of `len` bytes whose every byte says where it is.
fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8).collect()
}

/// The minimal fixture with `file` as a static file (the theme loader holds those in
/// memory) and as a page bundle's attachment (copied, so read from disk): their URLs.
fn site_with(file: &str, write: impl Fn(&std::path::Path)) -> (SiteTest, [String; 2]) {
    let site = SiteTest::fixture("minimal");
    std::fs::create_dir_all(site.root().join("static")).unwrap();
    write(&site.root().join("static").join(file));
    write(&site.root().join("content/docs/bundle").join(file));
    let urls = [format!("/{file}"), format!("/docs/bundle/{file}")];
    (site, urls)
}

#[test]
fn files_are_sent_whole_or_in_the_range_asked_for() {
    let len = 1 << 20;
    let data = pattern(len);
    let (site, urls) = site_with("clip.bin", |path| std::fs::write(path, &data).unwrap());
    let server = start(&site);
    for url in &urls {
        ranges_of(server.addr, url, &data);
    }
    // Pages (with the live-reload script) answer ranges of what they send.
    let page = request(server.addr, "GET", "/about/").body;
    let r = request_with(server.addr, "GET", "/about/", &[("Range", "bytes=2-11")]);
    assert_eq!(r.status, 206);
    assert_eq!(r.body, page[2..12]);
    server.stop();
}

#[track_caller]
fn ranges_of(addr: SocketAddr, url: &str, data: &[u8]) {
    let len = data.len();
    let whole = request(addr, "GET", url);
    assert_eq!(whole.status, 200);
    assert_eq!(whole.header("accept-ranges"), Some("bytes"));
    assert_eq!(
        whole.header("content-length"),
        Some(len.to_string().as_str())
    );
    assert!(whole.body == data, "the whole file");
    let head = request(addr, "HEAD", url);
    assert_eq!(
        (head.status, head.header("content-length"), head.body.len()),
        (200, Some(len.to_string().as_str()), 0)
    );

    let ranged = |range: &str| request_with(addr, "GET", url, &[("Range", range)]);
    for (range, first, last) in [
        ("bytes=100-199", 100, 199),
        ("bytes=0-0", 0, 0),
        ("bytes=-10", len - 10, len - 1),
        ("bytes=1048570-", len - 6, len - 1),
        ("bytes=1000000-9999999", 1_000_000, len - 1),
    ] {
        let r = ranged(range);
        assert_eq!(r.status, 206, "{url} {range}");
        assert_eq!(
            r.header("content-range"),
            Some(format!("bytes {first}-{last}/{len}").as_str()),
            "{range}"
        );
        assert_eq!(
            r.header("content-length"),
            Some((last - first + 1).to_string().as_str())
        );
        assert!(r.body == data[first..=last], "{url} {range}");
    }
    for range in ["bytes=2000000-", "bytes=1048576-1048577", "bytes=-0"] {
        let r = ranged(range);
        assert_eq!(r.status, 416, "{url} {range}");
        assert_eq!(
            r.header("content-range"),
            Some(format!("bytes */{len}").as_str())
        );
    }
    // Several ranges, another unit, nonsense, or a condition that cannot be checked: the
    // whole file.
    for range in ["bytes=0-1,5-6", "pages=1-2", "bytes=x-y"] {
        let r = ranged(range);
        assert_eq!((r.status, r.body.len()), (200, len), "{url} {range}");
    }
    let r = request_with(
        addr,
        "GET",
        url,
        &[("Range", "bytes=0-9"), ("If-Range", "\"abc\"")],
    );
    assert_eq!((r.status, r.body.len()), (200, len), "{url}");
}

/// The process's peak resident memory since the last reset, in bytes.
#[cfg(target_os = "linux")]
fn peak_memory(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kib * 1024
}

#[cfg(target_os = "linux")]
#[test]
fn eight_downloads_of_a_large_file_add_little_memory() {
    const SIZE: u64 = 200 * 1000 * 1000;
    const DOWNLOADS: usize = 8;
    // Sparse: 200 MB to read, nothing to write.
    let (site, urls) = site_with("big.bin", |path| {
        std::fs::File::create(path).unwrap().set_len(SIZE).unwrap();
    });
    let (child, url) = spawn_serve(&site, &[]);
    let pid = child.id();
    let addr: SocketAddr = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .parse()
        .unwrap();
    // The whole-site files (the manifest hashes the files) come after the first pages.
    let deadline = Instant::now() + Duration::from_secs(120);
    while request(addr, "GET", "/manifest.json").status != 200 {
        assert!(Instant::now() < deadline, "no manifest");
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(300));
    let mut added = Vec::new();
    for url in urls {
        // Forget the peak so far: from here, the peak is what the downloads add.
        std::fs::write(format!("/proc/{pid}/clear_refs"), "5").unwrap();
        let before = peak_memory(pid);
        let downloads: Vec<_> = (0..DOWNLOADS)
            .map(|_| {
                let url = url.clone();
                std::thread::spawn(move || download(addr, &url))
            })
            .collect();
        for d in downloads {
            assert_eq!(d.join().unwrap(), (200, SIZE, SIZE), "{url}");
        }
        added.push((url, peak_memory(pid).saturating_sub(before) >> 20));
    }
    eprintln!("{DOWNLOADS} concurrent downloads added (MiB): {added:?}");
    let (code, _, stderr) = interrupt_and_wait(child);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        added.iter().all(|(_, mib)| *mib <= 64),
        "{DOWNLOADS} downloads of {SIZE} bytes added (MiB): {added:?}"
    );
}

/// Reads what arrives until the server closes the connection (or `limit` passes).
fn read_until_closed(stream: &mut TcpStream, limit: Duration) -> (usize, bool) {
    stream.set_read_timeout(Some(limit)).unwrap();
    let mut total = 0;
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return (total, true),
            Ok(n) => total += n,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return (total, true),
            Err(_) => return (total, false),
        }
    }
}

#[test]
fn a_half_sent_request_and_a_stalled_download_are_closed() {
    const SIZE: u64 = 64 << 20;
    let (site, urls) = site_with("big.bin", |path| {
        std::fs::File::create(path).unwrap().set_len(SIZE).unwrap();
    });
    let server = start_with(
        &site,
        ServeOptions {
            header_timeout: Duration::from_secs(1),
            idle_timeout: Duration::from_secs(1),
            ..Default::default()
        },
        |_| {},
    );
    // Half a request line, never finished: closed after the header timeout.
    let mut slow = TcpStream::connect(server.addr).unwrap();
    slow.write_all(b"GET /about/ HT").unwrap();
    let (_, closed) = read_until_closed(&mut slow, Duration::from_secs(10));
    assert!(closed, "a half-sent request was kept open");

    // A download whose client stops reading: closed once nothing moved for the idle
    // timeout, long before the file is sent.
    let mut stalled = TcpStream::connect(server.addr).unwrap();
    let get = format!("GET {} HTTP/1.1\r\nHost: localhost\r\n\r\n", urls[1]);
    stalled.write_all(get.as_bytes()).unwrap();
    let mut first = [0u8; 4096];
    stalled.read_exact(&mut first).unwrap();
    std::thread::sleep(Duration::from_secs(4));
    let (received, closed) = read_until_closed(&mut stalled, Duration::from_secs(10));
    assert!(closed, "a stalled download was kept open");
    assert!(
        (received as u64) < SIZE / 2,
        "the stalled client still got {received} bytes"
    );
    // A client that keeps up is not cut off.
    assert_eq!(download(server.addr, &urls[1]), (200, SIZE, SIZE));
    server.stop();
}

#[test]
fn ctrl_c_stops_within_two_seconds_with_half_sent_requests_open() {
    let site = SiteTest::fixture("search");
    let (child, url) = spawn_serve(&site, &[]);
    let addr: SocketAddr = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .parse()
        .unwrap();
    assert_eq!(request(addr, "GET", "/").status, 200);
    let _events = Events::subscribe(addr);
    let half_sent: Vec<TcpStream> = ["GET /cases/syn-a/ HT", "GET / HTTP/1.1\r\nHost: loc", "G"]
        .iter()
        .map(|part| {
            let mut s = TcpStream::connect(addr).unwrap();
            s.write_all(part.as_bytes()).unwrap();
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    let (code, stdout, stderr) = interrupt_and_wait(child);
    let took = started.elapsed();
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("stopped serving"), "{stdout}");
    assert!(
        took < Duration::from_secs(2),
        "Ctrl-C took {took:?} with half-sent requests open"
    );
    drop(half_sent);
}

/// The search index script the search page loads first.
pub fn search_meta(addr: SocketAddr) -> String {
    let page = request(addr, "GET", "/search/").text();
    let at = page.find("search-index").expect("a search-index script");
    let tag = &page[page[..at].rfind('<').unwrap()..];
    let src = tag.split("src=").nth(1).unwrap().trim_start_matches('"');
    let src = &src[..src.find(['"', ' ', '>']).unwrap()];
    let name = src.rsplit('/').next().unwrap();
    format!("/search/en/{name}")
}

#[test]
fn the_previous_build_s_search_files_stay_until_the_next_rebuild() {
    let site = SiteTest::fixture("search");
    let server = start(&site);
    let addr = server.addr;
    let mut events = Events::subscribe(addr);
    let first = search_meta(addr);
    assert_eq!(request(addr, "GET", &first).status, 200, "{first}");

    // Each edit adds a word, so the index (and its files' names) change.
    let mut edit_once = |word: &str| {
        edit(
            site.root(),
            "content/cases/syn-a.md",
            "emaciation",
            &format!("{word} emaciation"),
        );
        // The search page reloads once the index is rebuilt.
        events.next_naming("reload", "/search/");
        assert!(server.wait_until_settled(Duration::from_secs(60)));
        search_meta(addr)
    };
    let second = edit_once("zanzibar");
    assert_ne!(first, second);
    assert_eq!(
        request(addr, "GET", &first).status,
        200,
        "a search started before the rebuild lost {first}"
    );
    assert_eq!(request(addr, "GET", &second).status, 200);
    let third = edit_once("quixotic");
    assert_eq!(request(addr, "GET", &second).status, 200, "{second}");
    assert_eq!(request(addr, "GET", &third).status, 200);
    assert_eq!(
        request(addr, "GET", &first).status,
        404,
        "files two rebuilds old are kept"
    );
    server.stop();
}
