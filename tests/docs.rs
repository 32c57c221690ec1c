//! casebook builds its own documentation as a site (issue 13): `docs/` is plain Markdown
//! that reads well on a code host, and the same pages, given front matter and `@/` links,
//! build and pass `casebook check`, so every link and anchor between them resolves.

use crate::support::{SiteTest, repo_root};

/// A docs page as a content file: its first `# ` heading becomes the title, links to other
/// pages (`search.md#settings-search`) become checked `@/` links, and links that leave
/// `docs/` (or go to its screenshots) point at the repository.
fn as_content(text: &str) -> String {
    let (title, body) = match text.strip_prefix("# ") {
        Some(rest) => rest.split_once('\n').unwrap_or((rest, "")),
        None => ("", text),
    };
    let mut out = format!("+++\ntitle = {title:?}\n+++\n");
    let mut rest = body;
    while let Some(i) = rest.find("](") {
        out.push_str(&rest[..i + 2]);
        rest = &rest[i + 2..];
        let end = rest.find(')').unwrap_or(rest.len());
        let target = &rest[..end];
        let (path, fragment) = target.split_once('#').unwrap_or((target, ""));
        let anchor = if fragment.is_empty() {
            String::new()
        } else {
            format!("#{fragment}")
        };
        if let Some(outside) = target.strip_prefix("../") {
            out.push_str(&format!("https://example.org/casebook/{outside}"));
        } else if target.starts_with("screenshots/") {
            // Images kept beside the docs, not published with them.
            out.push_str(&format!("https://example.org/casebook/docs/{target}"));
        } else if path.ends_with(".md") && !path.contains('/') {
            let file = if path == "README.md" {
                "_index.md"
            } else {
                path
            };
            out.push_str(&format!("@/{file}{anchor}"));
        } else {
            out.push_str(target);
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

#[test]
fn the_documentation_builds_as_a_casebook_site_with_every_link_resolved() {
    // No search page: the docs have a page about search at the same URL.
    let mut site = SiteTest::empty().write(
        "casebook.toml",
        "title = \"casebook documentation\"\nbase_url = \"https://example.org/casebook/\"\n\
         [search]\nenabled = false\n",
    );
    let mut pages = Vec::new();
    for entry in std::fs::read_dir(repo_root().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".md") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let file = if name == "README.md" {
            "_index.md".to_string()
        } else {
            name.clone()
        };
        site = site.write(&format!("content/{file}"), &as_content(&text));
        pages.push(name);
    }
    assert!(pages.len() >= 9, "docs/ has a page per topic: {pages:?}");
    // Every link between the pages, and every anchor they link to, must exist.
    site.run(&["check"]).success();
    site.build().success();
    for name in pages.iter().filter(|n| *n != "README.md") {
        let page = format!("{}/index.html", name.trim_end_matches(".md"));
        assert!(site.public().join(&page).is_file(), "{page} was not built");
    }
    let index = site.file("index.html");
    assert!(
        index.contains("configuration/"),
        "the index links the pages"
    );
}

#[test]
fn a_broken_anchor_in_the_documentation_would_fail() {
    let page =
        as_content("# A\n\nSee [x](other.md#no-such-heading) and [y](../CONTRIBUTING.md).\n");
    assert!(page.contains("(@/other.md#no-such-heading)"), "{page}");
    assert!(
        page.contains("(https://example.org/casebook/CONTRIBUTING.md)"),
        "{page}"
    );
    let site = SiteTest::empty()
        .write(
            "casebook.toml",
            "title = \"t\"\nbase_url = \"https://example.org/\"\n",
        )
        .write("content/_index.md", &page)
        .write(
            "content/other.md",
            &as_content("# Other\n\n## A real heading\n"),
        );
    site.run(&["check"])
        .failure(1)
        .stderr_has("/other/ has no element with id `no-such-heading`");
}

#[test]
fn every_screenshot_the_docs_link_to_is_committed() {
    let docs = repo_root().join("docs");
    let mut linked = 0;
    for entry in std::fs::read_dir(&docs).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, _) in text.match_indices("](screenshots/") {
            let target = &text[i + 2..];
            let target = &target[..target.find(')').unwrap()];
            assert!(docs.join(target).is_file(), "{}: {target}", path.display());
            linked += 1;
        }
    }
    assert!(linked >= 5, "{linked} screenshots linked");
}

/// The fenced blocks of one kind (```sh) in a piece of Markdown, in order.
fn fenced(text: &str, kind: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        match &mut current {
            None if trimmed == format!("```{kind}") => current = Some(String::new()),
            Some(block) if trimmed == "```" => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {}
        }
    }
    blocks
}

#[test]
fn every_step_by_step_deployment_runs_from_an_empty_folder() {
    let text = std::fs::read_to_string(repo_root().join("docs/deploying.md")).unwrap();
    let start = text
        .find("\n## Step by step")
        .expect("a step-by-step section");
    let section = &text[start + 1..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_casebook"))
        .parent()
        .unwrap()
        .to_path_buf();
    let mut hosts = Vec::new();
    for part in section.split("\n### ").skip(1) {
        let host = part.lines().next().unwrap().to_string();
        let local = fenced(part, "sh");
        let remote = fenced(part, "console");
        assert!(!local.is_empty(), "{host}: no commands to run locally");
        assert!(
            local
                .iter()
                .chain(&remote)
                .any(|b| b.contains("casebook verify")),
            "{host}: the path does not end with casebook verify"
        );
        let folder = tempfile::tempdir().unwrap();
        let out = std::process::Command::new("bash")
            .args(["--noprofile", "--norc", "-e", "-c", &local.join("\n")])
            .current_dir(folder.path())
            .env(
                "PATH",
                format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()),
            )
            .env("HOME", folder.path())
            .env("GIT_AUTHOR_NAME", "Docs test")
            .env("GIT_AUTHOR_EMAIL", "docs@example.org")
            .env("GIT_COMMITTER_NAME", "Docs test")
            .env("GIT_COMMITTER_EMAIL", "docs@example.org")
            .env_remove("CASEBOOK_SIGNING_KEY")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{host}: the documented commands failed:\n{}\n{}{}",
            local.join("\n"),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        hosts.push(host);
    }
    assert_eq!(
        hosts,
        [
            "GitHub Pages",
            "GitLab Pages",
            "Netlify",
            "Cloudflare Pages",
            "Amazon S3",
            "Your own server with nginx"
        ]
    );
}
