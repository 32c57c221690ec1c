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
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a full response");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
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
        body: raw[split + 4..].to_vec(),
    }
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
        let mut current = String::new();
        loop {
            let mut line = String::new();
            match self.reader.read_line(&mut line) {
                Ok(0) => panic!("the event stream ended before `{name}`"),
                Ok(_) => {}
                Err(e) => panic!("no `{name}` event: {e}"),
            }
            let line = line.trim_end();
            if let Some(event) = line.strip_prefix("event: ") {
                current = event.to_string();
            } else if let Some(data) = line.strip_prefix("data: ") {
                if current == name {
                    return data.to_string();
                }
            }
        }
    }
}
