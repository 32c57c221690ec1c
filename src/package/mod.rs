//! `casebook package`: a built site made into a BagIt 1.0 bag (RFC 8493), the packaging
//! that archives validate on intake, into one zip file of a `--portable` build, the
//! offline copy, or into a WACZ web archive (`wacz`) that web-archiving tools replay. The site goes under `data/` as it is, so `casebook
//! verify` still passes there; the bag's own manifests give every file's SHA-256, and
//! `bag-info.txt` carries what ties the bag to the release: its Merkle root, label, public
//! key and signature file.
//!
//! The copy is checked before it is packed (`verify`, with the copy's own key when it has
//! one), and each file is streamed into the bag, hashed as it is copied: a bag of any size
//! holds one 64 KB buffer per thread.

mod wacz;

pub(crate) use wacz::wacz;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::error::{Diagnostic, Error, Result};
use crate::public_key::PublicKey;
use crate::signing::{PUBLIC_KEY_FILE, SIGNATURE_FILE};
use crate::verify::{self, VerifyOptions};

/// What a bag holds.
#[derive(Debug)]
pub struct Packed {
    /// Payload files, under `data/`.
    pub files: usize,
    /// Their total size.
    pub bytes: u64,
    /// The Merkle root the files lead to.
    pub merkle_root: String,
    /// Whether the copy was signed (and its signature checked with its own key).
    pub signed: bool,
}

/// Packs the built site in `site` into a new bag at `bag` (which must not exist yet, or be
/// an empty folder).
pub(crate) fn bag(site: &Path, bag: &Path) -> Result<Packed> {
    refuse_existing(bag)?;
    let (verified, public_key) = check(site)?;
    let files = payload(site);

    // Written beside the bag and renamed into place when whole, so that a packing stopped
    // half-way leaves no folder that looks like a bag.
    let partial = partial_path(bag);
    let _ = std::fs::remove_dir_all(&partial);
    let data = partial.join("data");
    std::fs::create_dir_all(&data).map_err(|e| Error::io(&data, e))?;
    let dirs: std::collections::BTreeSet<&Path> =
        files.iter().filter_map(|rel| rel.parent()).collect();
    for dir in dirs {
        let dir = data.join(dir);
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    }
    let copied: Vec<(String, u64)> = files
        .par_iter()
        .map(|rel| copy_hashed(&site.join(rel), &data.join(rel)))
        .collect::<Result<_>>()?;
    let mut manifest = String::new();
    let mut bytes = 0u64;
    for (rel, (hash, size)) in files.iter().zip(&copied) {
        bytes += size;
        manifest.push_str(&format!("{hash}  data/{}\n", bag_path(rel)));
    }

    let mut info = vec![
        format!("Bag-Software-Agent: casebook {}", env!("CARGO_PKG_VERSION")),
        format!("Payload-Oxum: {bytes}.{}", files.len()),
        "External-Description: A static archive site built by casebook. Open data/index.html, or serve data/ with any web server; `casebook verify data` checks every file against the Merkle root below.".to_string(),
        format!("Casebook-Merkle-Root: {}", verified.merkle_root),
    ];
    if let Some(release) = &verified.release {
        if let Some(label) = &release.label {
            info.push(format!("Casebook-Release-Label: {}", one_line(label)));
        }
        info.push(format!(
            "Casebook-Base-URL: {}",
            one_line(&release.base_url)
        ));
    }
    if let Some(key) = &public_key {
        info.push(format!("Casebook-Public-Key: {}", key.to_base64()));
        info.push(format!("Casebook-Signature-File: data/{SIGNATURE_FILE}"));
    }
    let mut tags = Vec::new();
    for (name, text) in [
        (
            "bagit.txt",
            "BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n".to_string(),
        ),
        ("bag-info.txt", info.join("\n") + "\n"),
        ("manifest-sha256.txt", manifest),
    ] {
        write_file(&partial.join(name), text.as_bytes())?;
        tags.push(format!(
            "{}  {name}\n",
            crate::hashing::hex(&Sha256::digest(&text))
        ));
    }
    write_file(
        &partial.join("tagmanifest-sha256.txt"),
        tags.concat().as_bytes(),
    )?;
    // An empty folder named by the user may stand where the bag goes.
    let _ = std::fs::remove_dir(bag);
    std::fs::rename(&partial, bag).map_err(|e| Error::io(bag, e))?;
    Ok(Packed {
        files: files.len(),
        bytes,
        merkle_root: verified.merkle_root,
        signed: public_key.is_some(),
    })
}

/// Packs the built site in `site`, which must be a `--portable` build, into one zip file at
/// `out`: the offline copy to hand on or put on a stick, opened from disk once unzipped.
/// Its files sit in one folder named like the zip; the signature and key travel with them.
pub(crate) fn zip(site: &Path, out: &Path) -> Result<Packed> {
    refuse_existing_file(out, "the zip file already exists")?;
    if !looks_portable(site)? {
        return Err(Error::Diagnostics(vec![
            Diagnostic::new(
                site.join("index.html"),
                "this build is not portable: its links name folders, which open from disk as file listings or not at all",
            )
            .hint("build it with `casebook build --portable` (into its own folder with --output), then package that"),
        ]));
    }
    let (verified, public_key) = check(site)?;
    let files = payload(site);
    let folder = out
        .file_stem()
        .map_or_else(|| "archive".into(), |s| s.to_string_lossy().into_owned());
    let partial = partial_path(out);
    let mut writer = create_zip(&partial)?;
    // In path order: the same build zips into the same bytes.
    let options = fixed_zip_options();
    let zip_error = |e: zip::result::ZipError| Error::io(&partial, std::io::Error::other(e));
    let mut bytes = 0u64;
    for rel in &files {
        let name = format!("{folder}/{}", bag_path(rel));
        writer.start_file(name, options).map_err(zip_error)?;
        let from = site.join(rel);
        let mut input = std::fs::File::open(&from).map_err(|e| Error::io(&from, e))?;
        bytes += std::io::copy(&mut input, &mut writer).map_err(|e| Error::io(&from, e))?;
    }
    finish_zip(writer, &partial, out)?;
    Ok(Packed {
        files: files.len(),
        bytes,
        merkle_root: verified.merkle_root,
        signed: public_key.is_some(),
    })
}

type ZipFile = zip::ZipWriter<std::io::BufWriter<std::fs::File>>;

/// A package file is written once, whole: an existing one is never replaced.
fn refuse_existing_file(out: &Path, message: &str) -> Result<()> {
    if out.exists() {
        return Err(Error::Diagnostics(vec![
            Diagnostic::new(out, message).hint("name a new file: a package is written once, whole"),
        ]));
    }
    Ok(())
}

/// A zip being written at `partial` (`OUT.partial`, renamed by `finish_zip`).
fn create_zip(partial: &Path) -> Result<ZipFile> {
    let file = std::fs::File::create(partial).map_err(|e| Error::io(partial, e))?;
    Ok(zip::ZipWriter::new(std::io::BufWriter::new(file)))
}

/// Deflated entries with fixed times and modes, so that the same files zip into the same
/// bytes.
fn fixed_zip_options() -> zip::write::SimpleFileOptions {
    zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default())
        .unix_permissions(0o644)
}

/// Writes the zip's directory, syncs it and renames it into place, so that a packing
/// stopped half-way leaves nothing that looks like a package.
fn finish_zip(writer: ZipFile, partial: &Path, out: &Path) -> Result<()> {
    writer
        .finish()
        .map_err(|e| Error::io(partial, std::io::Error::other(e)))?
        .into_inner()
        .map_err(|e| Error::io(partial, e.into_error()))?
        .sync_all()
        .map_err(|e| Error::io(partial, e))?;
    std::fs::rename(partial, out).map_err(|e| Error::io(out, e))
}

/// A payload path `/`-separated, whatever the platform's separator.
fn slash_path(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Whether the home page's links to the site's own pages name files (`about/index.html`),
/// as a `--portable` build's do, rather than folders (`about/`).
fn looks_portable(site: &Path) -> Result<bool> {
    let home = site.join("index.html");
    let html = std::fs::read_to_string(&home).map_err(|e| Error::io(&home, e))?;
    let own_folders = html
        .split("href=")
        .skip(1)
        .map(|rest| {
            let rest = rest.trim_start_matches(['"', '\'']);
            let end = rest
                .find(|c: char| c == '"' || c == '\'' || c == '>' || c.is_whitespace())
                .unwrap_or(rest.len());
            rest[..end].split(['#', '?']).next().unwrap_or("")
        })
        .filter(|href| !href.is_empty() && !href.contains(':'))
        .filter(|href| href.ends_with('/'))
        .count();
    Ok(own_folders == 0)
}

/// The copy verified (with its own key when it is signed), and that key.
fn check(site: &Path) -> Result<(verify::Verified, Option<PublicKey>)> {
    let key_file = site.join(PUBLIC_KEY_FILE);
    let public_key = if site.join(SIGNATURE_FILE).is_file() && key_file.is_file() {
        Some(PublicKey::read(&key_file)?)
    } else {
        None
    };
    let verified = verify::verify(&VerifyOptions {
        target: site.to_string_lossy().into_owned(),
        public_key: public_key.clone(),
        case: None,
        tsa_certs: Vec::new(),
    })?;
    Ok((verified, public_key))
}

/// Every file of the site, relative to it, sorted.
fn payload(site: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(site)
        .follow_links(false)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            e.path()
                .strip_prefix(site)
                .unwrap_or(e.path())
                .to_path_buf()
        })
        .collect();
    files.sort();
    files
}

fn refuse_existing(bag: &Path) -> Result<()> {
    let occupied = match std::fs::read_dir(bag) {
        Ok(mut entries) => entries.next().is_some(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(_) => true,
    };
    if occupied {
        return Err(Error::Diagnostics(vec![
            Diagnostic::new(bag, "the bag's folder already exists and is not empty")
                .hint("name a new folder: a bag is written once, whole"),
        ]));
    }
    Ok(())
}

/// `OUT.partial`, beside the bag.
fn partial_path(bag: &Path) -> PathBuf {
    let mut name = bag.file_name().unwrap_or_default().to_os_string();
    name.push(".partial");
    bag.with_file_name(name)
}

/// Copies `from` to `to` a buffer at a time; returns the SHA-256 (hex) and size.
fn copy_hashed(from: &Path, to: &Path) -> Result<(String, u64)> {
    let mut input = std::fs::File::open(from).map_err(|e| Error::io(from, e))?;
    let mut output = std::fs::File::create(to).map_err(|e| Error::io(to, e))?;
    let mut hasher = Sha256::new();
    let mut size = 0u64;
    let mut buffer = [0u8; 64 * 1024];
    loop {
        let n = input.read(&mut buffer).map_err(|e| Error::io(from, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
        output
            .write_all(&buffer[..n])
            .map_err(|e| Error::io(to, e))?;
        size += n as u64;
    }
    Ok((crate::hashing::hex(&hasher.finalize()), size))
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    std::fs::write(path, bytes).map_err(|e| Error::io(path, e))
}

/// A payload path as manifests write it: `/`-separated, with CR, LF and `%` percent-encoded
/// (RFC 8493, 2.1.3).
fn bag_path(rel: &Path) -> String {
    slash_path(rel)
        .replace('%', "%25")
        .replace('\n', "%0A")
        .replace('\r', "%0D")
}

/// A value for `bag-info.txt`, which holds one `Label: value` per line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_paths_escape_what_would_break_a_line() {
        assert_eq!(bag_path(Path::new("a/b c.html")), "a/b c.html");
        assert_eq!(bag_path(Path::new("100%\nx")), "100%25%0Ax");
    }
}
