//! Compact text encodings shared with the browser client (`casebook-search.js`).
//!
//! Index files are JavaScript, so binary data travels as strings over a 64-character
//! alphabet that needs no escaping in a JS string literal. Numbers are little-endian base-64
//! varints: each character carries 5 bits and a "more follows" bit.

pub(crate) const ALPHABET: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Scores are stored as one character: `2^(q / SCORE_STEPS + SCORE_BASE)`.
pub(crate) const SCORE_STEPS: f64 = 5.0;
pub(crate) const SCORE_BASE: f64 = -8.0;

pub(crate) fn push_varint(out: &mut String, mut n: u64) {
    loop {
        let low = (n & 31) as usize;
        n >>= 5;
        if n == 0 {
            out.push(ALPHABET[low] as char);
            return;
        }
        out.push(ALPHABET[low | 32] as char);
    }
}

/// Fixed-width base-64 number, most significant character first.
pub(crate) fn push_fixed(out: &mut String, n: u64, width: usize) {
    for i in (0..width).rev() {
        out.push(ALPHABET[((n >> (6 * i)) & 63) as usize] as char);
    }
}

/// The one-character score level of a positive BM25 score (log scale, about 15% steps).
pub(crate) fn score_char(score: f64) -> char {
    let q = ((score.max(1e-9).log2() - SCORE_BASE) * SCORE_STEPS).round();
    ALPHABET[q.clamp(0.0, 63.0) as usize] as char
}

/// How many base-64 characters hold numbers below `radix`.
pub(crate) fn width_for(radix: u64) -> usize {
    let mut width = 1;
    while width < 8 && 64u64.pow(width as u32) < radix {
        width += 1;
    }
    width
}

#[cfg(test)]
pub(crate) fn read_varints(s: &str) -> Vec<u64> {
    let mut out = Vec::new();
    let (mut n, mut shift) = (0u64, 0);
    for c in s.bytes() {
        let v = ALPHABET.iter().position(|&a| a == c).unwrap() as u64;
        n |= (v & 31) << shift;
        if v & 32 == 0 {
            out.push(n);
            n = 0;
            shift = 0;
        } else {
            shift += 5;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip() {
        let mut s = String::new();
        for n in [0, 1, 31, 32, 1023, 1024, 123_456_789] {
            push_varint(&mut s, n);
        }
        assert_eq!(
            read_varints(&s),
            vec![0, 1, 31, 32, 1023, 1024, 123_456_789]
        );
        assert_eq!(s.len(), 1 + 1 + 1 + 2 + 2 + 3 + 6);
    }

    #[test]
    fn scores_are_monotonic_and_bounded() {
        let mut last = 'A';
        for s in [0.001, 0.01, 0.1, 0.5, 1.0, 2.0, 8.0, 20.0, 1e6] {
            let c = score_char(s);
            let pos = |c: char| ALPHABET.iter().position(|&a| a as char == c).unwrap();
            assert!(pos(c) >= pos(last), "{s}");
            last = c;
        }
        assert_eq!(score_char(0.0), 'A');
        assert_eq!(score_char(1e6), '_');
    }

    #[test]
    fn widths() {
        assert_eq!(width_for(1), 1);
        assert_eq!(width_for(64), 1);
        assert_eq!(width_for(65), 2);
        assert_eq!(width_for(4096), 2);
        assert_eq!(width_for(4097), 3);
    }
}
