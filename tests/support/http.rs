//! A bare HTTP/1.1 client for the preview server's tests and benchmark: requests go out
//! exactly as written (no path normalisation, so traversal attempts reach the server), and
//! the live-reload event stream can be followed.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// One HTTP/1.1 request with the path sent exactly as given (no normalisation).
pub fn request(addr: SocketAddr, method: &str, path: &str) -> Response {
    request_with(addr, method, path, &[])
}

/// `request` with more header lines (`Host: localhost` unless they give another).
pub fn request_with(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
) -> Response {
    let mut head = format!("{method} {path} HTTP/1.1\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        head.push_str("Host: localhost\r\n");
    }
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("Connection: close\r\n\r\n");
    raw_request(addr, &head)
}

/// Sends `head` exactly as written and reads the whole response.
pub fn raw_request(addr: SocketAddr, head: &str) -> Response {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    stream.write_all(head.as_bytes()).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a full response");
    let mut response = parse_head(&String::from_utf8_lossy(&raw[..split]));
    response.body = raw[split + 4..].to_vec();
    response
}

/// Sends `bytes` exactly as written on one connection (pipelined requests, bodies and all)
/// and reads until the server closes it: every response it sent, in order. Panics if the
/// connection is still open after `wait`, so a test can tell a closed connection from one
/// kept alive.
pub fn exchange(addr: SocketAddr, bytes: &str, wait: Duration) -> Vec<Response> {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(wait)).unwrap();
    stream.write_all(bytes.as_bytes()).unwrap();
    let mut raw = Vec::new();
    if let Err(e) = stream.read_to_end(&mut raw) {
        panic!(
            "the connection did not close cleanly within {wait:?} ({e}); it had sent:\n{}",
            String::from_utf8_lossy(&raw)
        );
    }
    let mut responses = Vec::new();
    let mut rest = &raw[..];
    while !rest.is_empty() {
        let split = rest
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("a full response head");
        let mut response = parse_head(&String::from_utf8_lossy(&rest[..split]));
        let body = &rest[split + 4..];
        let length = response
            .header("content-length")
            .map_or(body.len(), |l| l.parse::<usize>().unwrap().min(body.len()));
        response.body = body[..length].to_vec();
        rest = &body[length..];
        responses.push(response);
    }
    responses
}

fn parse_head(head: &str) -> Response {
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    Response {
        status,
        headers,
        body: Vec::new(),
    }
}

/// Downloads `path` without keeping it: the status, the `Content-Length` and the number of
/// body bytes received.
pub fn download(addr: SocketAddr, path: &str) -> (u16, u64, u64) {
    let stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut reader = BufReader::with_capacity(256 * 1024, stream);
    write!(
        reader.get_mut(),
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut status = 0;
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(code) = line.strip_prefix("HTTP/1.1 ") {
            status = code[..3].parse().unwrap();
        } else if let Some((k, v)) = line.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                length = v.trim().parse().unwrap();
            }
        }
    }
    let body = std::io::copy(&mut reader, &mut std::io::sink()).unwrap();
    (status, length, body)
}

/// A subscription to the live-reload events.
pub struct Events {
    reader: BufReader<TcpStream>,
}

impl Events {
    pub fn subscribe(addr: SocketAddr) -> Events {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        write!(
            stream,
            "GET /__casebook/events HTTP/1.1\r\nHost: localhost\r\n\r\n"
        )
        .unwrap();
        let mut events = Events {
            reader: BufReader::new(stream),
        };
        events.next("ready");
        events
    }

    /// Skips events until one called `name` whose data contains `needle`.
    #[track_caller]
    pub fn next_naming(&mut self, name: &str, needle: &str) -> String {
        loop {
            let data = self.next(name);
            if data.contains(needle) {
                return data;
            }
        }
    }

    /// The data of the next event called `name`; other events are skipped.
    #[track_caller]
    pub fn next(&mut self, name: &str) -> String {
        loop {
            let (event, data) = self.next_any(name);
            if event == name {
                return data;
            }
        }
    }

    /// The next event, whatever its name: (name, data). `waiting_for` names it in a panic.
    #[track_caller]
    pub fn next_any(&mut self, waiting_for: &str) -> (String, String) {
        let mut current = String::new();
        // Keep-alive comments arrive every few seconds, so the socket's read timeout alone
        // would never end a wait for an event that does not come.
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            if std::time::Instant::now() > deadline {
                panic!("no `{waiting_for}` event within 60 s");
            }
            let mut line = String::new();
            match self.reader.read_line(&mut line) {
                Ok(0) => panic!("the event stream ended before `{waiting_for}`"),
                Ok(_) => {}
                Err(e) => panic!("no `{waiting_for}` event: {e}"),
            }
            let line = line.trim_end();
            if let Some(event) = line.strip_prefix("event: ") {
                current = event.to_string();
            } else if let Some(data) = line.strip_prefix("data: ") {
                return (current, data.to_string());
            }
        }
    }
}
