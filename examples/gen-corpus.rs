//! Generates a synthetic archive in the bundled site's schema, for benchmarks.
//!
//! `cargo run --release --example gen-corpus -- --cases 11000 --out /tmp/corpus`
//!
//! The output is deterministic (a fixed-seed generator), so runs are comparable. Every case
//! is marked synthetic; no names are generated.

use std::fmt::Write as _;
use std::path::PathBuf;

const CONFIG: &str = include_str!("../casebook.toml");
const BRANCHES: [&str; 5] = ["215", "227", "235", "248", "251"];
const AGES: [&str; 6] = ["under-20", "20-29", "30-39", "40-49", "50-plus", "unknown"];
const INDICATORS: [&str; 6] = [
    "starvation",
    "strangulation",
    "beating",
    "eye-injury",
    "mutilation",
    "untreated-wounds",
];
const STATUSES: [&str; 3] = ["unidentified", "identified", "under-review"];
const WORDS: [&str; 24] = [
    "the",
    "record",
    "notes",
    "bruising",
    "across",
    "back",
    "marked",
    "emaciation",
    "card",
    "beside",
    "body",
    "reads",
    "branch",
    "number",
    "examination",
    "shows",
    "ligature",
    "mark",
    "neck",
    "wrists",
    "restraint",
    "injuries",
    "consistent",
    "with",
];

/// xorshift64*: small, fast and the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn main() {
    let mut cases = 1000usize;
    let mut out = PathBuf::from("corpus");
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--cases" => cases = args.next().and_then(|v| v.parse().ok()).expect("--cases N"),
            "--out" => out = PathBuf::from(args.next().expect("--out DIR")),
            "-h" | "--help" => {
                println!("gen-corpus --cases N --out DIR");
                return;
            }
            other => panic!("unknown argument {other}; usage: gen-corpus --cases N --out DIR"),
        }
    }
    if out.exists() {
        std::fs::remove_dir_all(&out).expect("remove the previous corpus");
    }
    let content = out.join("content");
    std::fs::create_dir_all(content.join("cases")).unwrap();
    std::fs::write(out.join("casebook.toml"), CONFIG).unwrap();
    std::fs::write(
        content.join("_index.md"),
        "+++\ntitle = \"Benchmark corpus\"\n+++\nA generated corpus. See [the cases](@/cases/_index.md).\n",
    )
    .unwrap();
    std::fs::write(
        content.join("cases/_index.md"),
        "+++\ntitle = \"Cases\"\nweight = 1\n+++\nSynthetic benchmark cases.\n",
    )
    .unwrap();
    for (i, title) in ["Report", "Methodology", "Sources"].iter().enumerate() {
        std::fs::write(
            content.join(format!("{}.md", title.to_lowercase())),
            format!("+++\ntitle = \"{title}\"\nweight = {}\ndate = 2014-01-2{i}\n+++\n## Overview\n\nText.\n\n## Details\n\nMore text.\n", i + 2),
        )
        .unwrap();
    }

    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for n in 1..=cases {
        let id = format!("syn-{n:06}");
        let branch = BRANCHES[rng.below(BRANCHES.len())];
        let year = 2011 + rng.below(3);
        let month = 1 + rng.below(12);
        let day = 1 + rng.below(28);
        let mut indicators: Vec<&str> = Vec::new();
        for _ in 0..1 + rng.below(3) {
            let ind = INDICATORS[rng.below(INDICATORS.len())];
            if !indicators.contains(&ind) {
                indicators.push(ind);
            }
        }
        let mut body = String::from(
            "This is a synthetic sample record; it does not describe a real person.\n\n",
        );
        for p in 0..3 {
            for w in 0..50 {
                body.push_str(WORDS[rng.below(WORDS.len())]);
                body.push(if w == 49 { '.' } else { ' ' });
            }
            body.push_str(if p == 2 { "\n" } else { "\n\n" });
        }
        let mut text = String::new();
        writeln!(text, "+++").unwrap();
        writeln!(
            text,
            "title = \"Sample case {} (synthetic)\"",
            id.to_uppercase()
        )
        .unwrap();
        writeln!(
            text,
            "description = \"Synthetic benchmark record from branch {branch}.\""
        )
        .unwrap();
        writeln!(text, "case_id = \"{id}\"").unwrap();
        writeln!(text, "detainee_number = {}", 100_000 + n).unwrap();
        writeln!(text, "branch = \"{branch}\"").unwrap();
        writeln!(text, "forensic_number = {}", 1 + rng.below(9999)).unwrap();
        writeln!(
            text,
            "hospital = \"{}\"",
            if rng.below(2) == 0 { "601" } else { "tishreen" }
        )
        .unwrap();
        writeln!(text, "photographed = {year}-{month:02}-{day:02}").unwrap();
        writeln!(
            text,
            "sex = \"{}\"",
            if rng.below(200) == 0 {
                "female"
            } else {
                "male"
            }
        )
        .unwrap();
        writeln!(text, "age_range = \"{}\"", AGES[rng.below(AGES.len())]).unwrap();
        let quoted: Vec<String> = indicators.iter().map(|i| format!("\"{i}\"")).collect();
        writeln!(text, "indicators = [{}]", quoted.join(", ")).unwrap();
        writeln!(text, "status = \"{}\"", STATUSES[rng.below(STATUSES.len())]).unwrap();
        writeln!(text, "synthetic = true").unwrap();
        writeln!(text, "+++").unwrap();
        text.push_str(&body);
        let dir = content.join("cases").join(&id);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("index.md"), text).unwrap();
    }
    println!("wrote {cases} synthetic cases to {}", out.display());
}
