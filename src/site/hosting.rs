//! The files some hosts read from the published folder (`[hosting] hosts`): `.nojekyll` for
//! GitHub Pages, and `_headers` for Netlify and Cloudflare Pages with the headers
//! docs/deploying.md recommends and long caching for the files whose names carry a hash of
//! their content. Hosts read these files and do not serve them, so the manifest leaves them
//! out (`signing::HOST_FILES`).

use crate::config::{Config, Host};
use crate::output::Output;

/// The recommended Content-Security-Policy: the theme loads only its own files.
pub(crate) const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

/// For a file whose name changes whenever its content does.
pub(crate) const IMMUTABLE: &str = "public, max-age=31536000, immutable";

pub(crate) fn files(config: &Config) -> Vec<Output> {
    let mut out = Vec::new();
    if config.hosts.contains(&Host::GithubPages) {
        out.push(Output::bytes(".nojekyll".to_string(), Vec::new()));
    }
    if config
        .hosts
        .iter()
        .any(|h| matches!(h, Host::Netlify | Host::CloudflarePages))
    {
        out.push(Output::bytes(
            "_headers".to_string(),
            headers(config).into_bytes(),
        ));
    }
    out
}

/// `_headers`, in the form Netlify and Cloudflare Pages share: a path pattern, then its
/// headers indented. Few rules (Cloudflare reads at most 100), one splat each.
fn headers(config: &Config) -> String {
    let mut text = format!(
        "# Written by casebook ([hosting] in casebook.toml); see docs/deploying.md.\n/*\n  Content-Security-Policy: {CONTENT_SECURITY_POLICY}\n  Referrer-Policy: no-referrer\n  X-Content-Type-Options: nosniff\n"
    );
    // Search index files and photographs (only derivatives are published, each named with
    // a hash of its content) never change under their names.
    let mut immutable: Vec<String> = config
        .languages
        .iter()
        .map(|l| format!("/search/{}/*", l.code))
        .collect();
    immutable.push("/*.jpg".to_string());
    for pattern in immutable {
        text.push_str(&format!("{pattern}\n  Cache-Control: {IMMUTABLE}\n"));
    }
    text
}
