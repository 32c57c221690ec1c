//! Whether a JPEG's scans hold its whole picture, read from the file's own bytes.
//!
//! Decoders fill what a cut-off JPEG lacks (grey rows, zero coefficients) once they meet
//! an end-of-image marker, and a file cut short and closed again by hand has one. So before
//! any decoder sees a JPEG, its markers are walked and every scan's entropy-coded data is
//! Huffman-decoded (without dequantizing or transforming anything): every block the frame's
//! size calls for must be in the data, and a progressive JPEG's scans must together bring
//! every coefficient of every component down to its last bit. The same check stands in
//! front of both decoders (full scale and reduced scale), so neither can publish a
//! picture its file does not hold.

/// What the check holds beyond the file: one bit per coefficient of every block of a
/// progressive JPEG (which coefficients are already non-zero, as refinement scans need).
pub(super) fn memory_needed(w: u32, h: u32, progressive: bool) -> u64 {
    if !progressive {
        return 0;
    }
    // Four components at most, each at most the whole padded frame in blocks.
    let blocks = u64::from(w.div_ceil(8) + 4) * u64::from(h.div_ceil(8) + 4);
    blocks * 4 * 8
}

pub(super) struct Component {
    id: u8,
    pub(super) h: usize,
    pub(super) v: usize,
    /// Blocks across and down the whole padded frame.
    grid: (usize, usize),
    /// Blocks that hold picture, for a scan of this component alone.
    own: (usize, usize),
    /// Per block, which coefficients (zigzag order) are non-zero so far.
    nonzero: Vec<u64>,
    /// Per coefficient, the lowest bit its scans have reached (`None`: none yet).
    reached: [Option<u8>; 64],
}

pub(super) struct Frame {
    progressive: bool,
    pub(super) components: Vec<Component>,
    /// MCUs across and down, for scans of several components.
    mcus: (usize, usize),
}

/// Bits looked up at once: most codes, and most codes with the magnitude after them.
const FAST_BITS: u32 = 11;

#[derive(Clone, Default)]
struct Table {
    /// By the next `FAST_BITS` bits: the code's length and symbol (length 0: a longer code).
    fast: Vec<(u8, u8)>,
    /// By the next `FAST_BITS` bits: the length of the code and of the magnitude bits its
    /// symbol announces (`symbol & 15`), when both fit (else 0).
    skip: Vec<u8>,
    /// For lengths 1..=16: the largest code, and where its symbols start less the first code.
    max: [i32; 17],
    offset: [i32; 17],
    symbols: Vec<u8>,
}

impl Table {
    fn new(counts: &[u8], symbols: &[u8]) -> Table {
        let mut t = Table {
            fast: vec![(0, 0); 1 << FAST_BITS],
            skip: Vec::new(),
            max: [-1; 17],
            offset: [0; 17],
            symbols: symbols.to_vec(),
        };
        let (mut code, mut k) = (0i32, 0usize);
        for len in 1..=16 {
            let n = usize::from(counts[len - 1]);
            t.offset[len] = k as i32 - code;
            for _ in 0..n {
                if len <= FAST_BITS as usize && k < symbols.len() {
                    let shift = FAST_BITS as usize - len;
                    for low in 0..1usize << shift {
                        let at = ((code as usize) << shift) | low;
                        if let Some(slot) = t.fast.get_mut(at) {
                            *slot = (len as u8, symbols[k]);
                        }
                    }
                }
                code += 1;
                k += 1;
            }
            if n > 0 {
                t.max[len] = code - 1;
            }
            code <<= 1;
        }
        t.skip = t
            .fast
            .iter()
            .map(|&(len, symbol)| {
                let total = len + (symbol & 15);
                if len > 0 && u32::from(total) <= FAST_BITS {
                    total
                } else {
                    0
                }
            })
            .collect();
        t
    }
}

/// Reads the bits of one scan's entropy-coded data, up to the next marker. `Copy`, so a
/// scan's walk keeps it in registers (methods inlined): this loop is a cold build's
/// hottest after the decoders' own.
#[derive(Clone, Copy)]
struct Bits<'a> {
    data: &'a [u8],
    at: usize,
    acc: u64,
    /// Bits in `acc`, the last `pad` of them zeros past the data's end.
    n: u32,
    pad: u32,
    /// A bit past the end of the data was used.
    overrun: bool,
}

impl Bits<'_> {
    #[inline(always)]
    fn fill(&mut self) {
        if self.n > 56 {
            return;
        }
        // Whole bytes at once while the next eight hold no 0xFF (no stuffing, no marker).
        if self.pad == 0
            && let Some(chunk) = self.data.get(self.at..self.at + 8)
        {
            let word = u64::from_be_bytes(chunk.try_into().unwrap_or([0xFF; 8]));
            let inverse = !word;
            let has_ff =
                inverse.wrapping_sub(0x0101_0101_0101_0101) & !inverse & 0x8080_8080_8080_8080 != 0;
            if !has_ff {
                let take = (64 - self.n) / 8;
                let bytes = if take == 8 {
                    word
                } else {
                    word >> (64 - 8 * take)
                };
                self.acc |= bytes << (64 - 8 * take - self.n);
                self.n += 8 * take;
                self.at += take as usize;
                return;
            }
        }
        while self.n <= 56 {
            let byte = match self.data.get(self.at..self.at + 2) {
                _ if self.pad > 0 => None,
                Some([0xFF, 0x00]) => {
                    self.at += 2;
                    Some(0xFF)
                }
                Some([0xFF, _]) => None,
                _ => match self.data.get(self.at) {
                    Some(&b) if b != 0xFF => {
                        self.at += 1;
                        Some(b)
                    }
                    _ => None,
                },
            };
            if byte.is_none() {
                self.pad += 8;
            }
            self.acc |= u64::from(byte.unwrap_or(0)) << (56 - self.n);
            self.n += 8;
        }
    }

    #[inline(always)]
    fn consume(&mut self, k: u32) {
        if k > self.n - self.pad {
            self.overrun = true;
        }
        self.acc <<= k;
        self.n -= k;
        self.pad = self.pad.min(self.n);
    }

    #[inline(always)]
    fn bits(&mut self, k: u32) -> u32 {
        if k == 0 {
            return 0;
        }
        self.fill();
        let v = (self.acc >> (64 - k)) as u32;
        self.consume(k);
        v
    }

    #[inline(always)]
    fn decode(&mut self, t: &Table) -> Result<u8, String> {
        self.fill();
        let Some(&(len, symbol)) = t.fast.get((self.acc >> (64 - FAST_BITS)) as usize) else {
            return Err(damaged(
                "a scan uses a Huffman table the file does not define",
            ));
        };
        if len > 0 {
            self.consume(u32::from(len));
            return Ok(symbol);
        }
        for len in FAST_BITS as usize + 1..=16 {
            let code = (self.acc >> (64 - len)) as i32;
            if code <= t.max[len] {
                self.consume(len as u32);
                let at = (code + t.offset[len]) as usize;
                return t.symbols.get(at).copied().ok_or_else(bad_code);
            }
        }
        Err(bad_code())
    }

    /// Decodes a symbol and passes the `symbol & 15` bits after it (a baseline
    /// coefficient's magnitude), in one lookup when both fit.
    #[inline(always)]
    fn symbol_past_bits(&mut self, t: &Table) -> Result<u8, String> {
        self.fill();
        let at = (self.acc >> (64 - FAST_BITS)) as usize;
        if let Some(&total) = t.skip.get(at)
            && total > 0
        {
            let symbol = t.fast[at].1;
            self.consume(u32::from(total));
            return Ok(symbol);
        }
        let symbol = self.decode(t)?;
        self.bits(u32::from(symbol & 15));
        Ok(symbol)
    }

    /// Drops what is left of the byte at a restart and passes its RST marker.
    #[inline(always)]
    fn restart(&mut self) -> bool {
        if self.overrun {
            return false;
        }
        (self.acc, self.n, self.pad) = (0, 0, 0);
        // Reading stops at a marker, so the next one is this restart's.
        self.at = next_marker(self.data, self.at);
        match self.data.get(self.at..self.at + 2) {
            Some(&[0xFF, m]) if (0xD0..=0xD7).contains(&m) => {
                self.at += 2;
                true
            }
            _ => false,
        }
    }
}

/// Where the next marker from `at` is (past stuffed bytes, fill bytes and stray bytes), or
/// the end of the file.
pub(super) fn next_marker(bytes: &[u8], mut at: usize) -> usize {
    while at + 1 < bytes.len() && (bytes[at] != 0xFF || matches!(bytes[at + 1], 0x00 | 0xFF)) {
        at += 1;
    }
    at
}

fn bad_code() -> String {
    damaged("a Huffman code that no table holds")
}

/// The tables of Annex K (K.3 to K.6), which decoders use for a scan whose file defines
/// none (Motion-JPEG frames): counts per code length, then symbols.
const DC_COUNTS: [[u8; 16]; 2] = [
    [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0],
    [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0],
];
const DC_SYMBOLS: [u8; 12] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
const AC_COUNTS: [[u8; 16]; 2] = [
    [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 125],
    [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 119],
];
#[rustfmt::skip]
const AC_SYMBOLS: [[u8; 162]; 2] = [[
    0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07,
    0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xA1, 0x08, 0x23, 0x42, 0xB1, 0xC1, 0x15, 0x52, 0xD1, 0xF0,
    0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0A, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x25, 0x26, 0x27, 0x28,
    0x29, 0x2A, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3A, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49,
    0x4A, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5A, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69,
    0x6A, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7A, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89,
    0x8A, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9A, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7,
    0xA8, 0xA9, 0xAA, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0xC2, 0xC3, 0xC4, 0xC5,
    0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8, 0xD9, 0xDA, 0xE1, 0xE2,
    0xE3, 0xE4, 0xE5, 0xE6, 0xE7, 0xE8, 0xE9, 0xEA, 0xF1, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7, 0xF8,
    0xF9, 0xFA,
], [
    0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71,
    0x13, 0x22, 0x32, 0x81, 0x08, 0x14, 0x42, 0x91, 0xA1, 0xB1, 0xC1, 0x09, 0x23, 0x33, 0x52, 0xF0,
    0x15, 0x62, 0x72, 0xD1, 0x0A, 0x16, 0x24, 0x34, 0xE1, 0x25, 0xF1, 0x17, 0x18, 0x19, 0x1A, 0x26,
    0x27, 0x28, 0x29, 0x2A, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3A, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48,
    0x49, 0x4A, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5A, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68,
    0x69, 0x6A, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7A, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87,
    0x88, 0x89, 0x8A, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9A, 0xA2, 0xA3, 0xA4, 0xA5,
    0xA6, 0xA7, 0xA8, 0xA9, 0xAA, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0xC2, 0xC3,
    0xC4, 0xC5, 0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8, 0xD9, 0xDA,
    0xE2, 0xE3, 0xE4, 0xE5, 0xE6, 0xE7, 0xE8, 0xE9, 0xEA, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7, 0xF8,
    0xF9, 0xFA,
]];

/// One scan: its components (index into the frame, DC table, AC table) and band.
pub(super) struct Scan {
    pub(super) components: Vec<(usize, usize, usize)>,
    ss: usize,
    se: usize,
    ah: u8,
    al: u8,
}

/// Checks that `bytes`, a JPEG, holds every block of its picture; an error saying what is
/// missing otherwise. Files coded in ways the decoders cannot read (arithmetic, lossless,
/// hierarchical) are left to them to refuse.
pub(super) fn check(bytes: &[u8]) -> Result<(), String> {
    if !bytes.starts_with(&[0xFF, 0xD8]) {
        return Err("not a JPEG: no start-of-image marker".into());
    }
    let mut frame: Option<Frame> = None;
    // Tables 0 and 1 start as Annex K's, as decoders take them for a file without any.
    let mut dc = vec![Table::default(); 4];
    let mut ac = vec![Table::default(); 4];
    for i in 0..2 {
        dc[i] = Table::new(&DC_COUNTS[i], &DC_SYMBOLS);
        ac[i] = Table::new(&AC_COUNTS[i], &AC_SYMBOLS[i]);
    }
    let mut restart_interval = 0usize;
    let mut at = 2;
    loop {
        // Bytes between segments are skipped to the next marker, as decoders do.
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
            0xC0..=0xC2 => frame = Some(read_frame(segment, marker == 0xC2)?),
            // Arithmetic, lossless or hierarchical coding: the decoders refuse those.
            0xC3 | 0xC5..=0xC7 | 0xC9..=0xCB | 0xCD..=0xCF => return Ok(()),
            0xC4 => read_tables(segment, &mut dc, &mut ac)?,
            0xDD if segment.len() >= 2 => {
                restart_interval = usize::from(u16::from_be_bytes([segment[0], segment[1]]));
            }
            0xDA => {
                let frame = frame.as_mut().ok_or("a scan before its frame")?;
                let scan = read_scan(segment, frame)?;
                let mut bits = Bits {
                    data: bytes,
                    at,
                    acc: 0,
                    n: 0,
                    pad: 0,
                    overrun: false,
                };
                walk(frame, &scan, &dc, &ac, restart_interval, &mut bits)?;
                at = bits.at;
            }
            _ => {}
        }
    }
    let frame = frame.ok_or("no frame header")?;
    let last_bit = if frame.progressive { 63 } else { 0 };
    for c in &frame.components {
        if c.reached[..=last_bit].iter().any(|r| *r != Some(0)) {
            return Err(
                "scans are missing: its picture stops short of full detail (the file was cut short)"
                    .into(),
            );
        }
    }
    Ok(())
}

fn damaged(what: &str) -> String {
    what.to_string()
}

pub(super) fn read_frame(s: &[u8], progressive: bool) -> Result<Frame, String> {
    if s.len() < 6 {
        return Err(damaged("a short frame header"));
    }
    let h = usize::from(u16::from_be_bytes([s[1], s[2]]));
    let w = usize::from(u16::from_be_bytes([s[3], s[4]]));
    let n = usize::from(s[5]);
    if w == 0 || h == 0 {
        return Err(damaged("a frame of no width or no height"));
    }
    if n == 0 || s.len() < 6 + 3 * n {
        return Err(damaged("a short frame header"));
    }
    let sampling: Vec<(u8, usize, usize)> = (0..n)
        .map(|i| {
            let b = s[7 + 3 * i];
            (s[6 + 3 * i], usize::from(b >> 4), usize::from(b & 15))
        })
        .collect();
    if sampling
        .iter()
        .any(|&(_, h, v)| !(1..=4).contains(&h) || !(1..=4).contains(&v))
    {
        return Err(damaged("a sampling factor out of range"));
    }
    let hmax = sampling.iter().map(|c| c.1).max().unwrap_or(1);
    let vmax = sampling.iter().map(|c| c.2).max().unwrap_or(1);
    let mcus = (w.div_ceil(8 * hmax), h.div_ceil(8 * vmax));
    let components = sampling
        .into_iter()
        .map(|(id, ch, cv)| Component {
            id,
            h: ch,
            v: cv,
            grid: (mcus.0 * ch, mcus.1 * cv),
            own: (
                (w * ch).div_ceil(hmax).div_ceil(8),
                (h * cv).div_ceil(vmax).div_ceil(8),
            ),
            nonzero: Vec::new(),
            reached: [None; 64],
        })
        .collect();
    Ok(Frame {
        progressive,
        components,
        mcus,
    })
}

fn read_tables(mut s: &[u8], dc: &mut [Table], ac: &mut [Table]) -> Result<(), String> {
    while s.len() >= 17 {
        let (class, id) = (s[0] >> 4, usize::from(s[0] & 15));
        let counts = &s[1..17];
        let total: usize = counts.iter().map(|&c| usize::from(c)).sum();
        let symbols = s
            .get(17..17 + total)
            .ok_or_else(|| damaged("a short Huffman table"))?;
        let table = Table::new(counts, symbols);
        match (class, id) {
            (0, 0..=3) => dc[id] = table,
            (1, 0..=3) => ac[id] = table,
            _ => return Err(damaged("a Huffman table of unknown kind")),
        }
        s = &s[17 + total..];
    }
    Ok(())
}

pub(super) fn read_scan(s: &[u8], frame: &Frame) -> Result<Scan, String> {
    let n = usize::from(*s.first().unwrap_or(&0));
    if n == 0 || s.len() < 1 + 2 * n + 3 {
        return Err(damaged("a short scan header"));
    }
    let components = (0..n)
        .map(|i| {
            let id = s[1 + 2 * i];
            let tables = s[2 + 2 * i];
            let c = frame.components.iter().position(|c| c.id == id);
            let c = c.ok_or_else(|| damaged("a scan of a component the frame lacks"))?;
            Ok((
                c,
                usize::from(tables >> 4) & 3,
                usize::from(tables & 15) & 3,
            ))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let tail = &s[1 + 2 * n..];
    let (ss, se) = (usize::from(tail[0]), usize::from(tail[1]));
    let (ah, al) = (tail[2] >> 4, tail[2] & 15);
    let (ss, se) = if frame.progressive {
        (ss.min(63), se.min(63))
    } else {
        (0, 63)
    };
    Ok(Scan {
        components,
        ss,
        se,
        ah: if frame.progressive { ah } else { 0 },
        al: if frame.progressive { al } else { 0 },
    })
}

/// Decodes one scan's data block by block: an error if it runs out before the last block.
fn walk(
    frame: &mut Frame,
    scan: &Scan,
    dc: &[Table],
    ac: &[Table],
    restart_interval: usize,
    outer: &mut Bits,
) -> Result<(), String> {
    let mut bits = *outer;
    let bits = &mut bits;
    let interleaved = scan.components.len() > 1;
    // Units: MCUs of every component in the scan, or one component's blocks.
    let (across, down) = match scan.components[..] {
        [(c, _, _)] if !interleaved => frame.components[c].own,
        _ => frame.mcus,
    };
    if frame.progressive && scan.se > 0 {
        for &(c, _, _) in &scan.components {
            let comp = &mut frame.components[c];
            if comp.nonzero.is_empty() {
                comp.nonzero = vec![0; comp.grid.0 * comp.grid.1];
            }
        }
    }
    let mut eobrun = 0u32;
    let units = across * down;
    for unit in 0..units {
        if restart_interval > 0 && unit > 0 && unit % restart_interval == 0 {
            if !bits.restart() {
                return Err("the data ends early: a restart marker is missing".into());
            }
            eobrun = 0;
        }
        let (ux, uy) = (unit % across, unit / across);
        for &(c, td, ta) in &scan.components {
            let comp = &mut frame.components[c];
            let (bh, bv) = if interleaved {
                (comp.h, comp.v)
            } else {
                (1, 1)
            };
            for by in 0..bv {
                for bx in 0..bh {
                    let block = (uy * bv + by) * comp.grid.0 + ux * bh + bx;
                    block_data(
                        frame.progressive,
                        scan,
                        comp,
                        block,
                        (&dc[td], &ac[ta]),
                        &mut eobrun,
                        bits,
                    )?;
                }
            }
        }
        if bits.overrun {
            return Err(format!(
                "the data ends before the picture does (at block row {} of {down})",
                uy + 1
            ));
        }
    }
    for &(c, _, _) in &scan.components {
        let reached = &mut frame.components[c].reached;
        for r in &mut reached[scan.ss..=scan.se.max(scan.ss)] {
            if scan.ah == 0 || *r == Some(scan.ah) {
                *r = Some(scan.al);
            }
        }
    }
    *outer = *bits;
    Ok(())
}

/// Reads one block's data in `scan`, noting which coefficients become non-zero.
#[inline(always)]
fn block_data(
    progressive: bool,
    scan: &Scan,
    comp: &mut Component,
    block: usize,
    (dc, ac): (&Table, &Table),
    eobrun: &mut u32,
    bits: &mut Bits,
) -> Result<(), String> {
    if !progressive {
        bits.symbol_past_bits(dc)?;
        let mut k = 1;
        while k < 64 {
            let rs = bits.symbol_past_bits(ac)?;
            let (r, s) = (usize::from(rs >> 4), rs & 15);
            if s == 0 && r != 15 {
                break;
            }
            k += r + 1;
        }
        return Ok(());
    }
    if scan.ss == 0 {
        // DC scans: a difference first, then one bit per refinement.
        if scan.ah == 0 {
            let s = bits.decode(dc)?;
            bits.bits(u32::from(s & 15));
        } else {
            bits.bits(1);
        }
        return Ok(());
    }
    let nonzero = comp
        .nonzero
        .get_mut(block)
        .ok_or_else(|| damaged("a block outside the frame"))?;
    let band = scan.ss..=scan.se;
    if scan.ah == 0 {
        if *eobrun > 0 {
            *eobrun -= 1;
            return Ok(());
        }
        let mut k = scan.ss;
        while k <= scan.se {
            let rs = bits.decode(ac)?;
            let (r, s) = (usize::from(rs >> 4), u32::from(rs & 15));
            if s == 0 {
                if r < 15 {
                    *eobrun = (1 << r) + bits.bits(r as u32) - 1;
                    break;
                }
                k += 16;
                continue;
            }
            k += r;
            bits.bits(s);
            if band.contains(&k) {
                *nonzero |= 1 << k;
            }
            k += 1;
        }
        return Ok(());
    }
    // A refinement: a correction bit for each coefficient already non-zero, and new ones.
    let mut k = scan.ss;
    if *eobrun == 0 {
        while k <= scan.se {
            let rs = bits.decode(ac)?;
            let (mut r, s) = (rs >> 4, rs & 15);
            if s == 0 && r < 15 {
                *eobrun = (1 << r) + bits.bits(u32::from(r));
                break;
            }
            if s != 0 {
                bits.bits(1);
            }
            while k <= scan.se {
                if *nonzero & (1 << k) != 0 {
                    bits.bits(1);
                } else {
                    if r == 0 {
                        if s != 0 {
                            *nonzero |= 1 << k;
                        }
                        k += 1;
                        break;
                    }
                    r -= 1;
                }
                k += 1;
            }
        }
    }
    if *eobrun > 0 {
        while k <= scan.se {
            if *nonzero & (1 << k) != 0 {
                bits.bits(1);
            }
            k += 1;
        }
        *eobrun -= 1;
    }
    Ok(())
}

#[cfg(test)]
#[path = "jpeg_scans_tests.rs"]
mod tests;
