//! Files for the host from the build (`[hosting]`), and the documented nginx configuration
//! served by nginx itself.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::support::http::request;
use crate::support::{SiteTest, repo_root};

/// The recommended Content-Security-Policy, as docs/deploying.md gives it.
fn documented_policy() -> String {
    let docs = std::fs::read_to_string(repo_root().join("docs/deploying.md")).unwrap();
    docs.lines()
        .find_map(|l| l.strip_prefix("Content-Security-Policy: "))
        .expect("docs/deploying.md gives the policy")
        .to_string()
}

/// The first code block of docs/deploying.md marked `nginx`.
fn documented_nginx_snippet() -> String {
    let docs = std::fs::read_to_string(repo_root().join("docs/deploying.md")).unwrap();
    let start = docs.find("```nginx\n").expect("an nginx block") + "```nginx\n".len();
    let end = docs[start..].find("```").unwrap() + start;
    docs[start..end].to_string()
}

fn with_photo(site: SiteTest) -> SiteTest {
    site.copy_in(
        "photos-real/cameras/Canon_40D.jpg",
        "content/cases/c-001/p1.jpg",
    )
    .photos(
        "content/cases/c-001/index.md",
        "[[photos]]\nfile = \"p1.jpg\"\nalt = \"Test photo\"\nsensitivity = \"none\"\n",
    )
}

#[test]
fn hosts_get_their_files_which_the_manifest_leaves_out() {
    let site = SiteTest::fixture("minimal");
    let config = std::fs::read_to_string(site.root().join("casebook.toml")).unwrap();
    let site = site.write(
        "casebook.toml",
        &format!("{config}\n[hosting]\nhosts = [\"github-pages\", \"netlify\"]\n"),
    );
    site.build().success();
    assert_eq!(site.file(".nojekyll"), "");
    let headers = site.file("_headers");
    // The documented policy on every path, and a year's caching for hashed files.
    let all = headers.find("/*\n").unwrap();
    let block = &headers[all..];
    assert!(
        block.contains(&format!(
            "  Content-Security-Policy: {}\n",
            documented_policy()
        )),
        "{headers}"
    );
    assert!(block.contains("  Referrer-Policy: no-referrer\n"));
    assert!(block.contains("  X-Content-Type-Options: nosniff\n"));
    for pattern in ["/search/en/*", "/*.jpg"] {
        assert!(
            headers.contains(&format!(
                "{pattern}\n  Cache-Control: public, max-age=31536000, immutable\n"
            )),
            "{pattern}: {headers}"
        );
    }
    // Host settings, not the archive: unlisted, and the copy still verifies.
    let manifest = site.file("manifest.json");
    assert!(!manifest.contains("_headers") && !manifest.contains(".nojekyll"));
    site.run(&["verify", site.public().to_str().unwrap()])
        .success();

    // Without [hosting], neither file.
    let plain = SiteTest::fixture("minimal");
    plain.build().success();
    assert!(!plain.exists("_headers") && !plain.exists(".nojekyll"));

    let wrong = SiteTest::fixture("minimal").write(
        "casebook.toml",
        &format!("{config}\n[hosting]\nhosts = [\"netlfy\"]\n"),
    );
    wrong
        .build()
        .failure(1)
        .stderr_has("casebook.toml")
        .stderr_has("unknown host `netlfy`")
        .stderr_has("netlify");
}

fn nginx() -> Option<PathBuf> {
    let found = ["/usr/sbin/nginx", "/usr/bin/nginx"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.is_file());
    if found.is_none() {
        crate::support::missing_tool("nginx not found: apt-get install -y nginx");
    }
    found
}

/// nginx (Debian's package) serving a build with the snippet of docs/deploying.md sends
/// every recommended header on a page, a photograph and a search file, caches the hashed
/// files for a year, and answers a missing Arabic page with the Arabic not-found page.
#[test]
fn nginx_with_the_documented_snippet_sends_every_recommended_header() {
    let Some(nginx) = nginx() else {
        return;
    };
    let site = with_photo(SiteTest::fixture("minimal"));
    site.build().success();
    let work = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let prefix = work.path().display();
    let conf = format!(
        "user root;\nworker_processes 1;\npid {prefix}/nginx.pid;\nerror_log {prefix}/error.log;\nevents {{}}\nhttp {{\n  include /etc/nginx/mime.types;\n  access_log off;\n  client_body_temp_path {prefix}/body;\n  proxy_temp_path {prefix}/proxy;\n  fastcgi_temp_path {prefix}/fastcgi;\n  uwsgi_temp_path {prefix}/uwsgi;\n  scgi_temp_path {prefix}/scgi;\n  server {{\n    listen 127.0.0.1:{port};\n    root {};\n{}\n  }}\n}}\n",
        site.public().display(),
        documented_nginx_snippet()
    );
    let conf_path = work.path().join("nginx.conf");
    std::fs::write(&conf_path, conf).unwrap();
    let mut server = Command::new(&nginx)
        .args(["-p", &prefix.to_string(), "-c"])
        .arg(&conf_path)
        .args(["-g", "daemon off;"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let addr: std::net::SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let started = std::time::Instant::now();
    while std::net::TcpStream::connect(addr).is_err() {
        assert!(
            started.elapsed().as_secs() < 10,
            "nginx did not start: {}",
            std::fs::read_to_string(work.path().join("error.log")).unwrap_or_default()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }

    let manifest: serde_json::Value = serde_json::from_str(&site.file("manifest.json")).unwrap();
    let photo = format!("/{}", manifest["images"][0]["path"].as_str().unwrap());
    let search = std::fs::read_dir(site.public().join("search/en"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .find(|n| n.starts_with("meta."))
        .unwrap();
    let policy = documented_policy();
    let mut failures = Vec::new();
    for (path, immutable) in [
        ("/cases/c-001/".to_string(), false),
        (photo, true),
        (format!("/search/en/{search}"), true),
    ] {
        let r = request(addr, "GET", &path);
        if r.status != 200 {
            failures.push(format!("{path}: status {}", r.status));
        }
        for (name, value) in [
            ("Content-Security-Policy", policy.as_str()),
            ("Referrer-Policy", "no-referrer"),
            ("X-Content-Type-Options", "nosniff"),
        ] {
            if r.header(name) != Some(value) {
                failures.push(format!("{path}: {name} is {:?}", r.header(name)));
            }
        }
        let cache = r.header("Cache-Control");
        if immutable != (cache == Some("public, max-age=31536000, immutable")) {
            failures.push(format!("{path}: Cache-Control is {cache:?}"));
        }
    }
    let missing = request(addr, "GET", "/no-such-page/");
    if missing.status != 404 || missing.header("Content-Security-Policy") != Some(policy.as_str()) {
        failures.push(format!(
            "missing page: {} {:?}",
            missing.status, missing.headers
        ));
    }
    let _ = server.kill();
    let _ = server.wait();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
