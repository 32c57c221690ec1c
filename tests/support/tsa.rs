//! A local RFC 3161 time-stamp authority for the tests: a root and a TSA certificate made
//! with `openssl`, and `openssl ts -reply` behind a small HTTP responder on loopback.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// How the authority answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// A token made by `openssl ts -reply`.
    Token,
    /// Bytes that are no token.
    Garbage,
    /// HTTP 500.
    Failure,
}

pub struct Authority {
    /// `http://127.0.0.1:PORT/`
    pub url: String,
    /// The root certificate (PEM) the authority's certificate is issued by.
    pub root: PathBuf,
    answer: Arc<Mutex<Answer>>,
    pub requests: Arc<AtomicUsize>,
    _dir: tempfile::TempDir,
}

/// Runs `openssl`, failing the test with its output; `None` when openssl is missing.
fn openssl(dir: &Path, args: &[&str]) -> Option<()> {
    let out = match Command::new("openssl").args(args).current_dir(dir).output() {
        Ok(out) => out,
        Err(_) => return None,
    };
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(())
}

/// Whether the `openssl` command is here; says how to get it when not.
pub fn have_openssl(test: &str) -> bool {
    let found = Command::new("openssl").arg("version").output().is_ok();
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "{test}: openssl is missing (apt-get install -y openssl)"
        );
        eprintln!("skipping {test}: openssl is missing (apt-get install -y openssl)");
    }
    found
}

impl Authority {
    /// A new authority named `name`, with a root of its own.
    pub fn start(name: &str) -> Authority {
        Authority::start_with(name, false)
    }

    /// The same; `certificate_twice` lists the authority's own certificate among the extra
    /// ones too (OpenSSL's `certs`), so that each token carries it twice.
    pub fn start_with(name: &str, certificate_twice: bool) -> Authority {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let subj_root = format!("/CN={name} test root");
        let subj_tsa = format!("/CN={name} test TSA");
        openssl(
            d,
            &[
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "root.key", "-out",
                "root.pem", "-days", "3650", "-subj", &subj_root,
            ],
        )
        .unwrap();
        openssl(
            d,
            &[
                "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "tsa.key", "-out", "tsa.csr",
                "-subj", &subj_tsa,
            ],
        )
        .unwrap();
        std::fs::write(
            d.join("ext.cnf"),
            "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,nonRepudiation\nextendedKeyUsage=critical,timeStamping\nsubjectKeyIdentifier=hash\n",
        )
        .unwrap();
        openssl(
            d,
            &[
                "x509",
                "-req",
                "-in",
                "tsa.csr",
                "-CA",
                "root.pem",
                "-CAkey",
                "root.key",
                "-CAcreateserial",
                "-out",
                "tsa.pem",
                "-days",
                "365",
                "-extfile",
                "ext.cnf",
            ],
        )
        .unwrap();
        std::fs::write(d.join("serial"), "01\n").unwrap();
        let extra = if certificate_twice {
            "certs = $dir/tsa.pem\n"
        } else {
            ""
        };
        let config = format!(
            "[tsa]\ndefault_tsa = tsa1\n[tsa1]\ndir = {}\nserial = $dir/serial\ncrypto_device = builtin\nsigner_cert = $dir/tsa.pem\n{extra}signer_key = $dir/tsa.key\nsigner_digest = sha256\ndefault_policy = 1.2.3.4.1\ndigests = sha256, sha384, sha512\naccuracy = secs:1\nordering = yes\ntsa_name = yes\ness_cert_id_chain = no\ness_cert_id_alg = sha256\n",
            d.display(),
        );
        std::fs::write(d.join("tsa.cnf"), config).unwrap();

        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        let answer = Arc::new(Mutex::new(Answer::Token));
        let requests = Arc::new(AtomicUsize::new(0));
        let (work, how, count) = (d.to_path_buf(), answer.clone(), requests.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let n = count.fetch_add(1, Ordering::SeqCst);
                let how = *how.lock().unwrap();
                let _ = respond(stream, &work, n, how);
            }
        });
        Authority {
            url,
            root: d.join("root.pem"),
            answer,
            requests,
            _dir: dir,
        }
    }

    pub fn answer(&self, answer: Answer) {
        *self.answer.lock().unwrap() = answer;
    }
}

fn respond(stream: TcpStream, dir: &Path, n: usize, how: Answer) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let (status, reply) = match how {
        Answer::Token => {
            let query = dir.join(format!("q{n}.tsq"));
            let reply = dir.join(format!("r{n}.tsr"));
            std::fs::write(&query, &body)?;
            let out = Command::new("openssl")
                .args(["ts", "-reply", "-config"])
                .arg(dir.join("tsa.cnf"))
                .arg("-queryfile")
                .arg(&query)
                .arg("-out")
                .arg(&reply)
                .output()?;
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            ("200 OK", std::fs::read(&reply)?)
        }
        Answer::Garbage => ("200 OK", b"0\x82\x01\x00not a token".to_vec()),
        Answer::Failure => ("500 Internal Server Error", Vec::new()),
    };
    let mut stream = stream;
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: application/timestamp-reply\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        reply.len()
    )?;
    stream.write_all(&reply)?;
    stream.flush()
}
