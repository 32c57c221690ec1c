//! Makes a sequential JPEG cut short fail in the decoder itself, without decoding it twice.
//!
//! Decoders read zeros past the end of a scan's data, and zeros decode: a file cut short
//! and closed again comes out as a whole picture with grey or smeared rows. No Huffman code
//! is all ones (T.81, Annex C), so a copy of the file whose every stretch of entropy-coded
//! data (each scan, and each restart interval in it) is followed by [`SEAL`] makes the
//! decoder fail as soon as it reads past a stretch's real end: a stretch holding every
//! block it should is decoded exactly as before, one that ends early runs into bits no
//! symbol begins with. Finding the stretches takes a byte search for markers, far less
//! than the Huffman walk `jpeg_scans::check` makes, which progressive files (whose
//! refinement bits are no symbols) and anything a decoder reads leniently still get.

use super::jpeg_scans::{next_marker, read_frame, read_scan};

/// Six data bytes of ones, each `FF` stuffed with `00`. After a symbol begun in the real
/// data (up to 16 bits of code and 15 of magnitude taken from the seal), the next symbol
/// still meets 16 ones, a code no table can hold. Short enough that `jpeg-decoder`, which
/// reads at most 56 bits ahead, reaches the restart marker behind it.
const SEAL: [u8; 12] = [
    0xFF, 0x00, 0xFF, 0x00, 0xFF, 0x00, 0xFF, 0x00, 0xFF, 0x00, 0xFF, 0x00,
];

/// A copy of `bytes`, a JPEG, with each stretch of a sequential frame's scan data sealed;
/// `None` for progressive frames, four-to-one sampling and codings the decoders refuse
/// anyway (left to `check`).
/// An error when a component has no scan or the file has no end marker.
pub(super) fn sealed(bytes: &[u8]) -> Result<Option<Vec<u8>>, String> {
    if !bytes.starts_with(&[0xFF, 0xD8]) {
        return Err("not a JPEG: no start-of-image marker".into());
    }
    let mut out = Vec::with_capacity(bytes.len() + 8 * SEAL.len());
    let mut copied = 0;
    let mut frame = None;
    let mut scanned: Vec<bool> = Vec::new();
    let mut at = 2;
    loop {
        at = next_marker(bytes, at);
        let Some(&marker) = bytes.get(at + 1) else {
            return Err("the JPEG ends before its end marker".into());
        };
        at += 2;
        match marker {
            0xD9 => break,
            0x01 | 0xD0..=0xD7 => continue,
            _ => {}
        }
        let len = match bytes.get(at..at + 2) {
            Some(&[a, b]) => usize::from(u16::from_be_bytes([a, b])),
            _ => return Err("the JPEG ends inside a header".into()),
        };
        let Some(segment) = bytes.get(at + 2..at + len.max(2)) else {
            return Err("the JPEG ends inside a header".into());
        };
        at += len.max(2);
        match marker {
            0xC0 | 0xC1 => {
                let f = read_frame(segment, false)?;
                // zune-jpeg reads past the data of frames sampled four to one (it decodes
                // them wrongly, sealed or not): those are walked.
                if f.components.iter().any(|c| c.h > 2 || c.v > 2) {
                    return Ok(None);
                }
                scanned = vec![false; f.components.len()];
                frame = Some(f);
            }
            // Progressive, arithmetic, lossless or hierarchical: not sealed here.
            0xC2 | 0xC3 | 0xC5..=0xC7 | 0xC9..=0xCB | 0xCD..=0xCF => return Ok(None),
            0xDA => {
                let frame = frame.as_ref().ok_or("a scan before its frame")?;
                for &(c, _, _) in &read_scan(segment, frame)?.components {
                    scanned[c] = true;
                }
                at = seal_scan(bytes, at, &mut out, &mut copied);
            }
            _ => {}
        }
    }
    if frame.is_none() {
        return Err("no frame header".into());
    }
    if scanned.contains(&false) {
        return Err(
            "scans are missing: a colour component has no data (the file was cut short)".into(),
        );
    }
    out.extend_from_slice(&bytes[copied..]);
    Ok(Some(out))
}

/// Copies the scan data from `start` into `out` (with what came before it, from `copied`),
/// sealing it before each restart marker and before the marker that ends it; returns
/// where that marker (or the file) ends the data.
fn seal_scan(bytes: &[u8], start: usize, out: &mut Vec<u8>, copied: &mut usize) -> usize {
    let mut at = start;
    while let Some(found) = memchr::memchr(0xFF, &bytes[at..]) {
        let ff = at + found;
        // Fill bytes may come before a marker; `FF 00` is a stuffed data byte.
        let mut code = ff + 1;
        while bytes.get(code) == Some(&0xFF) {
            code += 1;
        }
        match bytes.get(code) {
            Some(0x00) => at = code + 1,
            Some(&marker) => {
                out.extend_from_slice(&bytes[*copied..ff]);
                out.extend_from_slice(&SEAL);
                *copied = ff;
                if !(0xD0..=0xD7).contains(&marker) {
                    return ff;
                }
                at = code + 1;
            }
            None => break,
        }
    }
    bytes.len()
}

#[cfg(test)]
#[path = "jpeg_seal_tests.rs"]
mod tests;
