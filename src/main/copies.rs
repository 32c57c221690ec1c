//! What `casebook package` and `casebook verify` print.

use std::path::{Path, PathBuf};

use casebook::Error;

use super::{count, usage};

/// `casebook package`.
pub(super) fn package(
    site: &Path,
    bag: Option<PathBuf>,
    zip: Option<PathBuf>,
    wacz: Option<PathBuf>,
) -> Result<String, Error> {
    let line = |kind: &str, out: &Path, p: casebook::Packed, next: String| {
        format!(
            "{kind} {}: {} ({} bytes), Merkle root {}, {}; {next}",
            out.display(),
            count(p.files, "file", "files"),
            p.bytes,
            p.merkle_root,
            if p.signed { "signed" } else { "unsigned" },
        )
    };
    let mut lines = Vec::new();
    if let Some(bag) = bag {
        let next = format!(
            "check it with bagit.py --validate, or casebook verify {}",
            bag.join("data").display()
        );
        lines.push(line("bag", &bag, casebook::package_bag(site, &bag)?, next));
    }
    if let Some(zip) = zip {
        let next = "unzipped, open index.html from disk".to_string();
        lines.push(line("zip", &zip, casebook::package_zip(site, &zip)?, next));
    }
    if let Some(wacz) = wacz {
        let next = "replay it in ReplayWeb.page or pywb; check it with wacz validate".to_string();
        lines.push(line(
            "WACZ",
            &wacz,
            casebook::package_wacz(site, &wacz)?,
            next,
        ));
    }
    Ok(lines.join("\n"))
}

/// `casebook verify`.
pub(super) fn verify(
    target: String,
    pubkey: Option<String>,
    pubkey_file: Option<PathBuf>,
    case: Option<String>,
    tsa_certs: Vec<PathBuf>,
) -> Result<String, Error> {
    let public_key = match (pubkey, pubkey_file) {
        (Some(text), _) => {
            Some(casebook::PublicKey::parse(&text).map_err(|m| usage(&format!("--pubkey: {m}")))?)
        }
        (None, Some(file)) => Some(casebook::PublicKey::read(&file)?),
        (None, None) => None,
    };
    let keyed = public_key.is_some();
    let tsa_certs = match tsa_certs.is_empty() {
        true => casebook::trusted_time_stamp_roots(std::path::Path::new("."))?,
        false => tsa_certs,
    };
    let anchored = !tsa_certs.is_empty();
    let v = casebook::verify(&casebook::VerifyOptions {
        target: target.clone(),
        public_key,
        case: case.clone(),
        tsa_certs,
    })?;
    let what = match &case {
        Some(id) => format!("case {id}: {}", count(v.files, "file", "files")),
        None => count(v.files, "file", "files"),
    };
    let mut out = format!(
        "ok: {what} ({} bytes) in {target} match the Merkle root {}",
        v.bytes, v.merkle_root
    );
    match &v.release {
        Some(r) => {
            out.push_str(&format!("\nsigned release for {}", r.base_url));
            if let Some(label) = &r.label {
                out.push_str(&format!(", label \"{label}\""));
            }
            if let Some(t) = &r.timestamp {
                out.push_str(&format!(", signed at {t}"));
            }
            out.push_str(": signature good");
        }
        None if v.signature_unchecked => out.push_str(
            "\nthe copy is signed, but the signature was not checked: give the publisher's key with --pubkey or --pubkey-file",
        ),
        None if !keyed => out.push_str("\nnot signed: nothing proves who published it"),
        None => {}
    }
    for stamp in &v.stamps {
        out.push_str(&format!(
            "\ntime-stamped by {}: existed no later than {}",
            stamp.authority, stamp.time
        ));
    }
    if !v.stamps.is_empty() && !anchored {
        out.push_str("\nthe time-stamp authorities' certificates were not checked against a root you trust: give it with --tsa-cert (or [signing] tsa_certs)");
    }
    Ok(out)
}
