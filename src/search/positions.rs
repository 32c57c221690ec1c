//! Positions of a word as written in each of its documents, for quoted phrases, packed for
//! the client (`positions` in `casebook-search.js` reads them).
//!
//! A term's postings each get one token (a varint), often all they need: most words are in
//! a document once, or at the same places as in the term's previous document, or shifted
//! from them (a name in the title and again in its field). The token is
//!
//! - `0`: the word is not in the document as written (a form of another word);
//! - else `1 + zigzag(first - first of the previous list) * 4 + kind`, where kind is
//!   `0`: as many positions as the previous list, with the same gaps (the same places,
//!   shifted); `1`: one position; `2`: two, then the gap; `3`: `3 + varint` positions, then
//!   their gaps.
//!
//! "The previous list" is the last one of the term with positions (none at its first).

use super::encode::push_varint;

fn zigzag(n: i64) -> u64 {
    ((n << 1) ^ (n >> 63)) as u64
}

/// Appends the token of one posting whose positions are `list` (sorted; empty when the word
/// is not there as written); `prev` is the term's previous list, updated.
pub(crate) fn push_positions(out: &mut String, prev: &mut Vec<u32>, list: &[u32]) {
    let Some(&first) = list.first() else {
        push_varint(out, 0);
        return;
    };
    let shift = zigzag(i64::from(first) - i64::from(prev.first().copied().unwrap_or(0)));
    let same_gaps = list.len() == prev.len()
        && list
            .windows(2)
            .zip(prev.windows(2))
            .all(|(a, b)| a[1] - a[0] == b[1] - b[0]);
    let kind = match list.len() {
        _ if same_gaps => 0,
        n => n.min(3) as u64,
    };
    push_varint(out, 1 + shift * 4 + kind);
    if kind == 3 {
        push_varint(out, list.len() as u64 - 3);
    }
    if kind != 0 {
        for w in list.windows(2) {
            push_varint(out, u64::from(w[1] - w[0]));
        }
    }
    prev.clear();
    prev.extend_from_slice(list);
}

/// The lists of `count` postings from the front of `numbers` (a run's varints), consumed.
#[cfg(test)]
pub(crate) fn read_positions(numbers: &mut &[u64], count: usize) -> Vec<Vec<u64>> {
    let mut next = || {
        let (&n, rest) = numbers.split_first().expect("a token");
        *numbers = rest;
        n
    };
    let mut prev: Vec<u64> = Vec::new();
    let mut out = Vec::new();
    for _ in 0..count {
        let token = next();
        if token == 0 {
            out.push(Vec::new());
            continue;
        }
        let (shift, kind) = ((token - 1) / 4, (token - 1) % 4);
        let delta = (shift >> 1) as i64 ^ -((shift & 1) as i64);
        let first = (prev.first().copied().unwrap_or(0) as i64 + delta) as u64;
        let list: Vec<u64> = if kind == 0 {
            prev.iter().map(|p| p - prev[0] + first).collect()
        } else {
            let n = if kind == 3 { 3 + next() } else { kind };
            let mut list = vec![first];
            for _ in 1..n {
                let gap = next();
                list.push(list[list.len() - 1] + gap);
            }
            list
        };
        prev = list.clone();
        out.push(list);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::encode::read_varints;

    fn pack(lists: &[&[u32]]) -> String {
        let (mut out, mut prev) = (String::new(), Vec::new());
        for l in lists {
            push_positions(&mut out, &mut prev, l);
        }
        out
    }

    #[test]
    fn positions_round_trip() {
        let lists: &[&[u32]] = &[
            &[5, 13],
            &[],
            &[5, 13],
            &[7, 15],
            &[7],
            &[2],
            &[0, 2, 23],
            &[1, 3, 24],
            &[40, 41, 70, 900, 901],
            &[3, 4],
            &[1000],
            &[0],
        ];
        let s = pack(lists);
        let numbers = read_varints(&s);
        let mut rest = &numbers[..];
        let got = read_positions(&mut rest, lists.len());
        assert!(rest.is_empty());
        let want: Vec<Vec<u64>> = lists
            .iter()
            .map(|l| l.iter().map(|&p| u64::from(p)).collect())
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_word_at_the_same_places_or_shifted_costs_one_character() {
        // The first list in full (a token of two characters and a gap); then the same
        // places, then shifted by two, then one word alone at a near place: one each.
        let s = pack(&[&[5, 13], &[5, 13], &[7, 15], &[8], &[8]]);
        assert_eq!(s.len(), 3 + 1 + 1 + 1 + 1, "{s}");
        // Not there as written: one character.
        assert_eq!(pack(&[&[]]), "A");
    }
}
