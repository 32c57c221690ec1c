//! Fetching a published copy over HTTP(S) for `casebook verify URL`: time limits, size
//! limits, and redirects followed only within the same host.

use std::time::Duration;

use ureq::http::Uri;

use super::Fetched;

/// The most redirects followed for one file.
const MAX_REDIRECTS: usize = 5;

pub(super) struct Site {
    agent: ureq::Agent,
    /// Ends with `/`.
    base: String,
    authority: String,
    scheme: String,
}

impl Site {
    pub(super) fn new(url: &str) -> Result<Site, String> {
        let mut base = url.trim().to_string();
        if !base.ends_with('/') {
            base.push('/');
        }
        let uri: Uri = base
            .parse()
            .map_err(|e| format!("`{url}` is not a URL: {e}"))?;
        let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority()) else {
            return Err(format!("`{url}` is not an absolute http(s) URL"));
        };
        let agent = ureq::Agent::config_builder()
            .timeout_connect(Some(Duration::from_secs(15)))
            .timeout_global(Some(Duration::from_secs(120)))
            .max_redirects(0)
            .http_status_as_error(false)
            .user_agent(concat!("casebook-verify/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Ok(Site {
            agent,
            scheme: scheme.to_string(),
            authority: authority.to_string(),
            base,
        })
    }

    /// The URL of a site path (`cases/syn-0001/index.html`), each segment percent-encoded.
    pub(super) fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, crate::html::percent_encode_path(path))
    }

    pub(super) fn fetch(&self, path: &str, limit: u64) -> Fetched {
        let mut url = self.url(path);
        for _ in 0..=MAX_REDIRECTS {
            let mut response = match self.agent.get(&url).call() {
                Ok(r) => r,
                Err(e) => return Fetched::Failed(format!("cannot fetch {url}: {e}")),
            };
            let status = response.status();
            if status.is_redirection() {
                let Some(location) = response
                    .headers()
                    .get("location")
                    .and_then(|l| l.to_str().ok())
                else {
                    return Fetched::Failed(format!("{url} redirects nowhere ({status})"));
                };
                match self.same_host(&url, location) {
                    Ok(next) => {
                        url = next;
                        continue;
                    }
                    Err(m) => return Fetched::Failed(m),
                }
            }
            if status.as_u16() == 404 || status.as_u16() == 410 {
                return Fetched::Missing;
            }
            if !status.is_success() {
                return Fetched::Failed(format!("{url} answered {status}"));
            }
            return match response.body_mut().with_config().limit(limit).read_to_vec() {
                Ok(bytes) => Fetched::Bytes(bytes),
                Err(ureq::Error::BodyExceedsLimit(_)) => {
                    Fetched::Failed(format!("{url} is larger than {limit} bytes"))
                }
                Err(e) => Fetched::Failed(format!("cannot read {url}: {e}")),
            };
        }
        Fetched::Failed(format!("{url}: more than {MAX_REDIRECTS} redirects"))
    }

    /// Where a redirect from `from` to `location` leads, if it stays on this host.
    fn same_host(&self, from: &str, location: &str) -> Result<String, String> {
        let absolute = if let Some(rest) = location.strip_prefix("//") {
            // `//host/path` keeps the scheme and names a host.
            format!("{}://{rest}", self.scheme)
        } else if location.starts_with('/') {
            return Ok(format!("{}://{}{location}", self.scheme, self.authority));
        } else if !location.contains("://") {
            // Relative to the redirecting URL's folder.
            let folder = from.rsplit_once('/').map_or(from, |(f, _)| f);
            return Ok(format!("{folder}/{location}"));
        } else {
            location.to_string()
        };
        let target: Uri = absolute
            .parse()
            .map_err(|_| format!("{from} redirects to `{location}`, which is not a URL"))?;
        match (target.scheme_str(), target.authority()) {
            (Some(scheme), Some(authority))
                if scheme == self.scheme && authority.as_str() == self.authority =>
            {
                Ok(absolute)
            }
            _ => Err(format!(
                "{from} redirects to another host ({location}); a copy is checked only where it is"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirects_stay_on_the_same_host() {
        let site = Site::new("https://archive.example.org/caesar").unwrap();
        let from = "https://archive.example.org/caesar/a/index.html";
        assert_eq!(
            site.same_host(from, "/caesar/b/").unwrap(),
            "https://archive.example.org/caesar/b/"
        );
        assert_eq!(
            site.same_host(from, "https://archive.example.org/x")
                .unwrap(),
            "https://archive.example.org/x"
        );
        assert_eq!(
            site.same_host(from, "other.html").unwrap(),
            "https://archive.example.org/caesar/a/other.html"
        );
        for away in [
            "https://evil.example.net/caesar/",
            "//evil.example.net/x",
            "http://archive.example.org/caesar/",
            "https://archive.example.org:8443/caesar/",
        ] {
            assert!(site.same_host(from, away).is_err(), "{away}");
        }
    }

    #[test]
    fn paths_are_percent_encoded_by_segment() {
        let site = Site::new("http://127.0.0.1:8080/").unwrap();
        assert_eq!(
            site.url("cases/a b/ملف.html"),
            "http://127.0.0.1:8080/cases/a%20b/%D9%85%D9%84%D9%81.html"
        );
    }
}
