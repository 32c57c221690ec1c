//! Who may read the preview: requests for this machine's own names, from this machine's
//! own pages.
//!
//! A preview holds drafts and unpublished material, and it listens on loopback, where any
//! web page the publisher opens can reach it. Two ways in are closed here, before any
//! route is looked at (the live-reload stream included):
//! - DNS rebinding: a page on `evil.example` rebinds its name to 127.0.0.1 and reads the
//!   preview as its own origin. Its requests carry `Host: evil.example`, so only loopback
//!   names, the address the request reached and names given with `--allow-host` are
//!   served. An IP address in `Host` is never a rebound name: a page at that address is
//!   this server.
//! - Cross-site inclusion: another site's page loads `<script src=http://127.0.0.1:1111/
//!   search/en/…js>` (the search index is scripts) with an allowed `Host`. Browsers say
//!   where a request comes from (`Sec-Fetch-Site`, `Origin`): only navigations may come
//!   from another site.
//!
//! And before those, a request that a proxy or tunnel in front could read another way than
//! this server does gets 400 and its connection is closed, so nothing sent behind it on
//! the connection is read (request smuggling): two `Host` headers, any
//! `Transfer-Encoding` (hyper drops a `Content-Length` sent beside it, so the two together
//! cannot be told from it alone; the preview reads no request body anyway), and an
//! absolute request target (`GET http://host/ HTTP/1.1`) that is not plain `http` to one
//! of the preview's own names.

use std::net::IpAddr;

use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

use crate::error::{Diagnostic, Error, Result};

/// The names the preview answers to, besides loopback and the address reached.
#[derive(Debug, Clone, Default)]
pub(super) struct Hosts {
    allowed: Vec<String>,
}

impl Hosts {
    /// Checks and normalises the names given with `--allow-host`.
    pub(super) fn new(names: &[String]) -> Result<Hosts> {
        let mut allowed = Vec::new();
        for name in names {
            match normalise(name) {
                Some(host) if host_name_ok(&host) => allowed.push(host),
                _ => {
                    return Err(Error::one(
                        Diagnostic::new("casebook serve", format!("--allow-host {name:?} is not a host name"))
                            .field("allow-host")
                            .hint("give the name alone, as the address bar shows it without http:// and the port: --allow-host preview.example.org"),
                    ));
                }
            }
        }
        Ok(Hosts { allowed })
    }

    /// Why a request must be refused, if it must.
    pub(super) fn refuse(
        &self,
        method: &Method,
        uri: &Uri,
        headers: &HeaderMap,
        reached: IpAddr,
    ) -> Option<Refusal> {
        if let Some(why) = self.ambiguous(uri, headers, reached) {
            return Some(Refusal::Ambiguous(why));
        }
        // An absolute request target, checked above, names the host itself (RFC 9112,
        // 3.2.2); a Host header beside it must still be one of ours, so the two agree.
        match headers.get(header::HOST).map(|h| h.to_str()) {
            Some(Ok(host)) if self.allows(host, reached) => {}
            Some(host) => return Some(Refusal::Host(host.unwrap_or_default().to_string())),
            None if uri.authority().is_some() => {}
            None => return Some(Refusal::NoHost),
        }
        let navigation = header_is(headers, "sec-fetch-mode", "navigate");
        let elsewhere = header_is(headers, "sec-fetch-site", "cross-site")
            || header_is(headers, "sec-fetch-site", "same-site");
        if elsewhere && !(navigation && (method == Method::GET || method == Method::HEAD)) {
            return Some(Refusal::CrossSite(origin_of(headers)));
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let from = origin.to_str().unwrap_or_default();
            let host = from
                .strip_prefix("http://")
                .or_else(|| from.strip_prefix("https://"))
                .and_then(|rest| rest.parse::<Uri>().ok())
                .and_then(|u| u.host().map(str::to_string));
            if !host.is_some_and(|h| self.allows(&h, reached)) {
                return Some(Refusal::CrossSite(from.to_string()));
            }
        }
        None
    }

    /// Why a request could be read two ways, if it could.
    fn ambiguous(&self, uri: &Uri, headers: &HeaderMap, reached: IpAddr) -> Option<String> {
        if headers.get_all(header::HOST).iter().count() > 1 {
            return Some("it has more than one <code>Host</code> header".into());
        }
        if headers.contains_key(header::TRANSFER_ENCODING) {
            return Some(
                "it has a <code>Transfer-Encoding</code> header, and the preview reads no \
                 request body"
                    .into(),
            );
        }
        let authority = uri.authority()?;
        let scheme = uri.scheme_str();
        if scheme.is_some_and(|s| s != "http") || authority.as_str().contains('@') {
            return Some(format!(
                "its request line names <code>{}</code>, not this preview",
                crate::html::escape(&uri.to_string())
            ));
        }
        (!self.allows(authority.as_str(), reached)).then(|| {
            format!(
                "its request line names <code>{}</code>, which is not an address of this preview",
                crate::html::escape(authority.as_str())
            )
        })
    }

    /// Whether `host` (as a `Host` header gives it, with or without a port) is served.
    fn allows(&self, host: &str, reached: IpAddr) -> bool {
        let Some(name) = normalise(host) else {
            return false;
        };
        if name == "localhost" || name.ends_with(".localhost") {
            return true;
        }
        let ip = name
            .strip_prefix('[')
            .and_then(|n| n.strip_suffix(']'))
            .unwrap_or(&name)
            .parse::<IpAddr>();
        match ip {
            Ok(ip) => ip.to_canonical().is_loopback() || ip == reached || self.has(&name),
            Err(_) => self.has(&name),
        }
    }

    fn has(&self, name: &str) -> bool {
        self.allowed.iter().any(|a| a == name)
    }
}

/// The host of a `Host` value, lowercase, without the port or a final dot (`localhost.`);
/// IPv6 addresses keep their brackets. `None` if it is not a plain authority.
fn normalise(host: &str) -> Option<String> {
    let host = host.trim().to_ascii_lowercase();
    let name = if host.starts_with('[') {
        let end = host.find(']')?;
        let (name, rest) = host.split_at(end + 1);
        if !(rest.is_empty() || port_ok(rest.strip_prefix(':')?)) {
            return None;
        }
        name.to_string()
    } else {
        match host.rsplit_once(':') {
            Some((name, port)) if port_ok(port) => name.to_string(),
            Some(_) => return None,
            None => host,
        }
    };
    let name = name.strip_suffix('.').unwrap_or(&name).to_string();
    (!name.is_empty()).then_some(name)
}

fn port_ok(port: &str) -> bool {
    port.parse::<u16>().is_ok()
}

/// A DNS name or an IP address (IPv6 in brackets) as `--allow-host` takes it.
fn host_name_ok(host: &str) -> bool {
    if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return v6.parse::<std::net::Ipv6Addr>().is_ok();
    }
    host.split('.').all(|label| {
        !label.is_empty()
            && label.len() <= 63
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    })
}

fn header_is(headers: &HeaderMap, name: &str, value: &str) -> bool {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case(value))
}

fn origin_of(headers: &HeaderMap) -> String {
    headers
        .get(header::ORIGIN)
        .or_else(|| headers.get(header::REFERER))
        .and_then(|v| v.to_str().ok())
        .unwrap_or("another site")
        .to_string()
}

/// Why a request was refused.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Refusal {
    /// No `Host` header (HTTP/1.0).
    NoHost,
    /// A name that is not this machine's and was not allowed.
    Host(String),
    /// A request made by a page of another site (its origin, as far as it is known).
    CrossSite(String),
    /// A request that could be read two ways (why, as HTML): 400, and the connection
    /// closed.
    Ambiguous(String),
}

impl Refusal {
    /// The page that says why, and what to do about it.
    fn page(&self) -> String {
        let esc = crate::html::escape;
        let (title, text) = match self {
            Refusal::NoHost => (
                "No address given".to_string(),
                "<p>The request did not say which address it was for (no <code>Host</code> \
                 header), so casebook serve cannot tell whether it may answer.</p>"
                    .to_string(),
            ),
            Refusal::Host(host) => {
                let name = normalise(host).unwrap_or_else(|| host.clone());
                let name = name.trim_start_matches('[').trim_end_matches(']');
                (
                    format!("{} is not an address of this preview", esc(name)),
                    format!(
                        "<p>casebook serve answers only at this machine's own addresses \
                         (<code>localhost</code>, <code>127.0.0.1</code>, <code>[::1]</code>), \
                         at the address it listens on and at names given with \
                         <code>--allow-host</code>. The preview shows drafts and unpublished \
                         content, and a page on another site can point its own name at this \
                         machine to read it.</p><p>If you opened <code>{name}</code> yourself, \
                         restart the preview with <code>casebook serve --allow-host {name}</code>.</p>",
                        name = esc(name)
                    ),
                )
            }
            Refusal::CrossSite(origin) => (
                "Another site may not read this preview".to_string(),
                format!(
                    "<p>This request came from a page of another site ({}). The preview \
                     shows drafts and unpublished content, so only its own pages may load \
                     its files; links from elsewhere still open it.</p>",
                    esc(origin)
                ),
            ),
            Refusal::Ambiguous(why) => (
                "Bad request".to_string(),
                format!(
                    "<p>casebook serve does not answer this request: {why}. A proxy in \
                     front of the preview could read such a request otherwise than the \
                     preview does, so the connection is closed.</p>"
                ),
            ),
        };
        format!(
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
<title>Refused · casebook serve</title></head><body><main id=\"casebook-refused\">\
<h1>{title}</h1>{text}</main></body></html>"
        )
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let bad = matches!(self, Refusal::Ambiguous(_));
        let status = if bad {
            StatusCode::BAD_REQUEST
        } else {
            StatusCode::FORBIDDEN
        };
        let mut response = (status, self.page()).into_response();
        let headers = response.headers_mut();
        if bad {
            // hyper then closes the connection once this is sent, unread bytes and all.
            headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/html; charset=utf-8"),
        );
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{Ipv4Addr, Ipv6Addr};

    const LOOP: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

    fn ask(hosts: &Hosts, headers: &[(&str, &str)], reached: IpAddr) -> Option<Refusal> {
        let mut map = HeaderMap::new();
        for (k, v) in headers {
            map.append(
                axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        hosts.refuse(&Method::GET, &Uri::from_static("/"), &map, reached)
    }

    fn host(hosts: &Hosts, value: &str) -> Option<Refusal> {
        ask(hosts, &[("host", value)], LOOP)
    }

    #[test]
    fn loopback_names_and_addresses_are_served_with_or_without_a_port() {
        let hosts = Hosts::default();
        for ok in [
            "localhost",
            "localhost:1111",
            "LOCALHOST.",
            "localhost.:80",
            "preview.localhost:1111",
            "127.0.0.1",
            "127.0.0.1:1111",
            "127.3.4.5:80",
            "[::1]",
            "[::1]:1111",
            "[::ffff:127.0.0.1]:1111",
        ] {
            assert_eq!(host(&hosts, ok), None, "{ok}");
        }
    }

    #[test]
    fn other_names_are_refused_unless_allowed() {
        let hosts = Hosts::default();
        for bad in [
            "evil.example",
            "evil.example:1111",
            "localhost.evil.example",
            "notlocalhost",
            "127.0.0.1.nip.io",
            "10.0.0.5",
            "[fe80::1]",
            "",
            "localhost:port",
            "[::1",
        ] {
            assert!(matches!(host(&hosts, bad), Some(Refusal::Host(_))), "{bad}");
        }
        assert_eq!(
            ask(&hosts, &[], LOOP),
            Some(Refusal::NoHost),
            "no Host at all"
        );
        let allowed = Hosts::new(&["Preview.Example.org".into(), "10.0.0.5".into()]).unwrap();
        assert_eq!(host(&allowed, "preview.example.org:1111"), None);
        assert_eq!(host(&allowed, "10.0.0.5"), None);
        assert!(host(&allowed, "sub.preview.example.org").is_some());
    }

    #[test]
    fn the_address_a_request_reached_is_served() {
        let lan = IpAddr::V4(Ipv4Addr::new(192, 168, 1, 5));
        let hosts = Hosts::default();
        assert_eq!(ask(&hosts, &[("host", "192.168.1.5:1111")], lan), None);
        assert!(ask(&hosts, &[("host", "192.168.1.6:1111")], lan).is_some());
        let v6 = IpAddr::V6(Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0, 5));
        assert_eq!(ask(&hosts, &[("host", "[fd00::5]:1111")], v6), None);
    }

    #[test]
    fn an_absolute_request_target_is_checked_too() {
        let hosts = Hosts::default();
        let mut map = HeaderMap::new();
        map.insert(header::HOST, HeaderValue::from_static("localhost"));
        for bad in [
            "http://evil.example/cases/",
            "http://localhost.evil.example:1111/",
            "http://localhost@evil.example/",
            "http://evil.example@localhost/",
            "https://localhost/",
            "ftp://localhost/",
        ] {
            let uri = Uri::from_static(bad);
            assert!(
                matches!(
                    hosts.refuse(&Method::GET, &uri, &map, LOOP),
                    Some(Refusal::Ambiguous(_))
                ),
                "{bad}"
            );
        }
        for ok in [
            "http://localhost:1111/cases/",
            "http://[::1]/",
            "http://127.0.0.1/",
        ] {
            let uri = Uri::from_static(ok);
            assert_eq!(hosts.refuse(&Method::GET, &uri, &map, LOOP), None, "{ok}");
            // With no Host header, the target's own name stands.
            let none = HeaderMap::new();
            assert_eq!(hosts.refuse(&Method::GET, &uri, &none, LOOP), None, "{ok}");
        }
        // Our own name in the target does not let a foreign Host header through.
        map.insert(header::HOST, HeaderValue::from_static("evil.example"));
        let uri = Uri::from_static("http://localhost/");
        assert!(matches!(
            hosts.refuse(&Method::GET, &uri, &map, LOOP),
            Some(Refusal::Host(h)) if h == "evil.example"
        ));
    }

    #[test]
    fn two_hosts_or_a_transfer_encoding_are_bad_requests() {
        let hosts = Hosts::default();
        for headers in [
            &[("host", "localhost"), ("host", "localhost")][..],
            &[("host", "localhost"), ("host", "evil.example")],
            &[("host", "localhost"), ("transfer-encoding", "chunked")],
            &[
                ("host", "localhost"),
                ("transfer-encoding", "gzip, chunked"),
            ],
        ] {
            assert!(
                matches!(ask(&hosts, headers, LOOP), Some(Refusal::Ambiguous(_))),
                "{headers:?}"
            );
        }
        let r = Refusal::Ambiguous("x".into()).into_response();
        assert_eq!(r.status(), StatusCode::BAD_REQUEST);
        assert_eq!(r.headers()[header::CONNECTION], "close");
    }

    #[test]
    fn only_navigations_may_come_from_another_site() {
        let hosts = Hosts::default();
        let h = ("host", "127.0.0.1:1111");
        for site in ["cross-site", "same-site"] {
            assert!(
                ask(
                    &hosts,
                    &[h, ("sec-fetch-site", site), ("sec-fetch-mode", "no-cors")],
                    LOOP
                )
                .is_some(),
                "{site} script"
            );
            assert_eq!(
                ask(
                    &hosts,
                    &[h, ("sec-fetch-site", site), ("sec-fetch-mode", "navigate")],
                    LOOP
                ),
                None,
                "{site} link"
            );
        }
        for ok in ["same-origin", "none"] {
            assert_eq!(
                ask(
                    &hosts,
                    &[h, ("sec-fetch-site", ok), ("sec-fetch-mode", "cors")],
                    LOOP
                ),
                None,
                "{ok}"
            );
        }
        assert!(
            ask(&hosts, &[h, ("origin", "https://evil.example")], LOOP).is_some(),
            "a browser without Sec-Fetch still sends Origin"
        );
        assert!(ask(&hosts, &[h, ("origin", "null")], LOOP).is_some());
        assert_eq!(
            ask(&hosts, &[h, ("origin", "http://localhost:1111")], LOOP),
            None
        );
    }

    #[test]
    fn allowed_names_are_checked() {
        for bad in ["http://x.org", "x.org/", "x .org", "", "a..b", "[zz]"] {
            let e = Hosts::new(&[bad.into()]).unwrap_err().to_string();
            assert!(
                e.contains("--allow-host") && e.contains("as the address bar"),
                "{e}"
            );
        }
        assert!(Hosts::new(&["x.org:8080".into(), "[::2]".into()]).is_ok());
    }

    #[test]
    fn the_refusal_says_what_to_do() {
        let page = Refusal::Host("Evil.example:1111".into()).page();
        assert!(
            page.contains("<code>casebook serve --allow-host evil.example</code>"),
            "{page}"
        );
        let page = Refusal::Host("<b>".into()).page();
        assert!(page.contains("--allow-host &lt;b&gt;"), "{page}");
        let page = Refusal::CrossSite("https://evil.example".into()).page();
        assert!(
            page.contains("another site (https://evil.example)"),
            "{page}"
        );
        let r = Refusal::NoHost.into_response();
        assert_eq!(r.status(), StatusCode::FORBIDDEN);
    }
}
