//! A minimal headless Chromium driver over the DevTools protocol (a WebSocket), for the
//! end-to-end tests. Chromium comes from the system (`apt-get install -y chromium`);
//! `CASEBOOK_CHROMIUM` names another binary.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tungstenite::{Message, WebSocket};

pub struct Browser {
    child: Child,
    ws: WebSocket<TcpStream>,
    next_id: u64,
    session: Option<String>,
    _profile: tempfile::TempDir,
}

fn find_chromium() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("CASEBOOK_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in ["chromium", "chromium-browser", "google-chrome", "chrome"] {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    None
}

impl Browser {
    /// Starts Chromium, or returns `None` with a message when it is not installed. Under CI
    /// (`CI` set) a missing Chromium fails the test instead.
    pub fn launch(test: &str) -> Option<Browser> {
        Browser::launch_with(test, &[])
    }

    /// `launch` with more command-line switches for Chromium.
    pub fn launch_with(test: &str, switches: &[&str]) -> Option<Browser> {
        let Some(binary) = find_chromium() else {
            let message = format!(
                "{test}: skipped, Chromium not found. Install it (Debian: `apt-get install -y chromium`) \
                 or set CASEBOOK_CHROMIUM to a Chromium or Chrome binary."
            );
            if std::env::var_os("CI").is_some() {
                panic!("{message} Browser tests must run under CI.");
            }
            eprintln!("{message}");
            return None;
        };
        let profile = tempfile::tempdir().unwrap();
        let mut child = Command::new(&binary)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
                "--allow-file-access-from-files",
                "--remote-debugging-port=0",
                "--window-size=1100,900",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .args(switches)
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        // "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/ID"
        let stderr = child.stderr.take().unwrap();
        let mut lines = BufReader::new(stderr).lines();
        let url = loop {
            let line = lines
                .next()
                .unwrap_or_else(|| panic!("Chromium exited before DevTools started"))
                .unwrap();
            if let Some(i) = line.find("ws://127.0.0.1:") {
                break line[i..].trim().to_string();
            }
        };
        // Keep draining stderr so Chromium never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        let host = url["ws://".len()..].split('/').next().unwrap().to_string();
        let stream = TcpStream::connect(host).unwrap();
        let (ws, _) = tungstenite::client(url.as_str(), stream).unwrap();
        let mut browser = Browser {
            child,
            ws,
            next_id: 0,
            session: None,
            _profile: profile,
        };
        // One page, driven through a flat session on the browser connection.
        let target = browser.call("Target.createTarget", json!({ "url": "about:blank" }));
        let attached = browser.call(
            "Target.attachToTarget",
            json!({ "targetId": target["targetId"], "flatten": true }),
        );
        browser.session = Some(attached["sessionId"].as_str().unwrap().to_string());
        browser.call("Page.enable", json!({}));
        browser.call("Runtime.enable", json!({}));
        Some(browser)
    }

    /// Sends one command and waits for its answer, skipping events.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.try_call(method, params)
            .unwrap_or_else(|e| panic!("{method}: {e}"))
    }

    /// `call`, returning the protocol's error instead of panicking on it.
    fn try_call(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        self.next_id += 1;
        let id = self.next_id;
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if let Some(session) = &self.session {
            msg["sessionId"] = json!(session);
        }
        self.ws.send(Message::text(msg.to_string())).unwrap();
        loop {
            let msg = self.ws.read().unwrap();
            let Message::Text(text) = msg else { continue };
            let v: Value = serde_json::from_str(text.as_str()).unwrap();
            if v["id"] == id {
                if let Some(e) = v.get("error") {
                    return Err(e.clone());
                }
                return Ok(v["result"].clone());
            }
        }
    }

    /// Evaluates an expression (awaiting promises) and returns its JSON value.
    pub fn eval(&mut self, expression: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({ "expression": expression, "awaitPromise": true, "returnByValue": true }),
        );
        if let Some(e) = r.get("exceptionDetails") {
            panic!("{expression}: {e}");
        }
        r["result"]["value"].clone()
    }

    pub fn goto(&mut self, url: &str) {
        self.call("Page.navigate", json!({ "url": url }));
        self.wait_for("document.readyState === 'complete' && location.href !== 'about:blank'");
    }

    /// Polls `condition` until it is truthy; panics after 15 s with the page's state.
    pub fn wait_for(&mut self, condition: &str) -> Value {
        let start = Instant::now();
        let expression =
            format!("(() => {{ try {{ return {condition}; }} catch (e) {{ return null; }} }})()");
        loop {
            // While the page navigates, the protocol refuses to evaluate ("Inspected target
            // navigated or closed"): that is "not yet", not a failure.
            let answer = self.try_call(
                "Runtime.evaluate",
                json!({ "expression": expression, "awaitPromise": true, "returnByValue": true }),
            );
            let v = answer.map_or(Value::Null, |r| r["result"]["value"].clone());
            if !(v.is_null() || v == false || v == "" || v == 0) {
                return v;
            }
            if start.elapsed() > Duration::from_secs(15) {
                let body = self.eval("document.body ? document.body.innerText.slice(0, 2000) : ''");
                panic!("timed out waiting for {condition}\npage: {body}");
            }
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// Presses and releases `key` (a DOM key name: "n", "ArrowRight", "Delete") with
    /// `modifiers` (Alt 1, Ctrl 2, Meta 4, Shift 8), on the focused element.
    pub fn press(&mut self, key: &str, modifiers: u32) {
        let code = match key {
            "ArrowLeft" => 37,
            "ArrowUp" => 38,
            "ArrowRight" => 39,
            "ArrowDown" => 40,
            "Delete" => 46,
            "Tab" => 9,
            "Enter" => 13,
            k if k.len() == 1 => k.to_ascii_uppercase().as_bytes()[0] as u32,
            _ => 0,
        };
        for kind in ["rawKeyDown", "keyUp"] {
            self.call(
                "Input.dispatchKeyEvent",
                json!({"type": kind, "key": key, "windowsVirtualKeyCode": code, "modifiers": modifiers}),
            );
        }
    }

    /// Drags the mouse with its left button from one point to another (CSS pixels of the
    /// viewport), in a few steps, as a hand would.
    pub fn drag(&mut self, from: (f64, f64), to: (f64, f64)) {
        let event = |kind: &str, (x, y): (f64, f64), buttons: u32| json!({"type": kind, "x": x, "y": y, "button": "left", "buttons": buttons, "clickCount": 1});
        self.call("Input.dispatchMouseEvent", event("mouseMoved", from, 0));
        self.call("Input.dispatchMouseEvent", event("mousePressed", from, 1));
        for step in 1..=5 {
            let t = f64::from(step) / 5.0;
            let at = (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t);
            self.call("Input.dispatchMouseEvent", event("mouseMoved", at, 1));
        }
        self.call("Input.dispatchMouseEvent", event("mouseReleased", to, 0));
    }

    /// Types into the focused element as a user would (one input event per character).
    pub fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            self.call("Input.insertText", json!({ "text": c.to_string() }));
        }
    }

    pub fn screenshot(&mut self, path: &Path) {
        self.capture(path, json!({ "format": "png" }));
    }

    /// The whole page, not only the window.
    pub fn screenshot_full(&mut self, path: &Path) {
        let metrics = self.call("Page.getLayoutMetrics", json!({}));
        let size = &metrics["cssContentSize"];
        let clip =
            json!({ "x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1 });
        self.capture(
            path,
            json!({ "format": "png", "captureBeyondViewport": true, "clip": clip }),
        );
    }

    fn capture(&mut self, path: &Path, params: Value) {
        let r = self.call("Page.captureScreenshot", params);
        let data = r["data"].as_str().unwrap();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, base64_decode(data)).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn base64_decode(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut buf, mut bits) = (0u32, 0);
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => continue,
        };
        buf = (buf << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buf >> bits) as u8);
        }
    }
    out
}

/// Serves a built site over HTTP on an ephemeral loopback port (GET and HEAD, folders as
/// `index.html`), for tests of the non-portable build. Returns the base URL.
pub fn serve(dir: &Path) -> String {
    serve_logged(dir).0
}

/// Files served, in order, for measuring what a page downloads (workers included).
pub type Served = std::sync::Arc<std::sync::Mutex<Vec<PathBuf>>>;

pub fn serve_logged(dir: &Path) -> (String, Served) {
    serve_with_headers(dir, "")
}

/// `serve_logged`, sending `headers` (`Name: value` lines, each ending in `\r\n`) with
/// every response.
pub fn serve_with_headers(dir: &Path, headers: &'static str) -> (String, Served) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/", listener.local_addr().unwrap());
    let dir = dir.to_path_buf();
    let log = Served::default();
    let served = log.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let dir = dir.clone();
            let log = log.clone();
            std::thread::spawn(move || respond(stream, &dir, &log, headers));
        }
    });
    (base, served)
}

fn respond(mut stream: TcpStream, dir: &Path, log: &Served, headers: &str) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request = String::new();
    if reader.read_line(&mut request).is_err() {
        return;
    }
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
    }
    let target = request.split_whitespace().nth(1).unwrap_or("/");
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let path = casebook::percent_decode(path);
    let mut file = dir.join(path.trim_start_matches('/'));
    if path.contains("..") {
        file = dir.join("missing");
    }
    if file.is_dir() {
        file = file.join("index.html");
    }
    let (status, body) = match std::fs::read(&file) {
        Ok(b) => {
            log.lock().unwrap().push(file.clone());
            ("200 OK", b)
        }
        Err(_) => ("404 Not Found", b"not found".to_vec()),
    };
    let kind = match file.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("jpg") => "image/jpeg",
        Some("json") => "application/json",
        Some("svg") => "image/svg+xml",
        _ => "application/octet-stream",
    };
    let head = format!(
        "HTTP/1.0 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n{headers}Connection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    if !request.starts_with("HEAD") {
        let _ = stream.write_all(&body);
    }
}
