// Generates the name-search evaluation corpus: a site of synthetic cases whose people have
// names written in Latin letters (in the spellings families use), in Arabic, or both, and a
// query set with judged answers by class. Deterministic for a given size.
//
//   node benches/names/corpus.mjs CASES OUT_DIR
//
// Writes OUT_DIR/casebook.toml, OUT_DIR/content/** and OUT_DIR/queries.json. Every name is
// assembled from common given and family names: no record describes a real person, and
// every page is marked synthetic.
import { mkdirSync, writeFileSync, rmSync } from "node:fs";
import { join } from "node:path";

const [cases = "2000", out = "target/names-corpus"] = process.argv.slice(2);
const N = parseInt(cases, 10);

// A small PRNG (mulberry32) so the corpus is the same on every machine.
let seed = 0x5eed2900;
function rand() {
  seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (list) => list[Math.floor(rand() * list.length)];
// The first spelling is the most common; the others share the rest.
const spelling = (list) => (rand() < 0.4 ? list[0] : pick(list));

// [Arabic, Latin spellings...]
const GIVEN = [
  ["محمد", "Mohammed", "Muhammad", "Mohamed", "Mohammad", "Muhammed"],
  ["أحمد", "Ahmad", "Ahmed"],
  ["يوسف", "Youssef", "Yusuf", "Yousef", "Yousif"],
  ["حسن", "Hassan", "Hasan"],
  ["علي", "Ali", "Aly"],
  ["عمر", "Omar", "Umar"],
  ["خالد", "Khaled", "Khalid"],
  ["إبراهيم", "Ibrahim", "Ebrahim", "Ibraheem"],
  ["عبد الرحمن", "Abdulrahman", "Abd al-Rahman", "Abdel Rahman", "Abdelrahman"],
  ["عبد الله", "Abdullah", "Abdallah", "Abd Allah"],
  ["مصطفى", "Mustafa", "Moustafa", "Mostafa"],
  ["أسامة", "Osama", "Usama", "Oussama"],
  ["حمزة", "Hamza", "Hamzeh", "Hamzah"],
  ["بشار", "Bashar", "Bachar"],
  ["وليد", "Walid", "Waleed"],
  ["سمير", "Samir", "Sameer"],
  ["طارق", "Tariq", "Tarek", "Tarik"],
  ["زياد", "Ziad", "Ziyad"],
  ["فادي", "Fadi", "Fady"],
  ["رامي", "Rami", "Ramy"],
  ["ياسر", "Yasser", "Yasir", "Yaser"],
  ["جمال", "Jamal", "Gamal"],
  ["نزار", "Nizar"],
  ["أنس", "Anas"],
  ["سعيد", "Said", "Saeed", "Sa'id"],
  ["يحيى", "Yahya", "Yehia", "Yahia"],
  ["هشام", "Hisham", "Hesham", "Hicham"],
  ["فؤاد", "Fouad", "Fuad"],
  ["وائل", "Wael", "Wail"],
];
const FAMILY = [
  ["الخطيب", "al-Khatib", "el-Khatib", "Al Khatib", "Khatib"],
  ["حداد", "Haddad", "Hadad"],
  ["المصري", "al-Masri", "el-Masri", "Masri"],
  ["الحلبي", "al-Halabi", "Halabi"],
  ["الشامي", "al-Shami", "Shami", "Chami"],
  ["درويش", "Darwish", "Darwich"],
  ["قاسم", "Qassem", "Kassem", "Qasim"],
  ["النجار", "al-Najjar", "Najjar"],
  ["الصباغ", "al-Sabbagh", "Sabbagh"],
  ["الكردي", "al-Kurdi", "Kurdi"],
  ["الحمصي", "al-Homsi", "Homsi"],
  ["العطار", "al-Attar", "Attar"],
  ["الزعبي", "al-Zoubi", "Zoubi", "Zubi"],
  ["عيسى", "Issa", "Eissa"],
  ["سليمان", "Suleiman", "Sulaiman", "Soliman"],
  ["قباني", "Qabbani", "Kabbani", "Qabani"],
];
// Names no case has, on purpose, each with a near neighbour that some have (Hassan, Mohammed,
// Samir, Jamal, Omar): searched for, they must give no exact result (the must-not-match class).
const ABSENT = ["Hussein", "حسين", "Mahmoud", "محمود", "Samer", "سامر", "Ghassan", "غسان", "Jamil", "جميل", "Amer", "عامر", "Hosni"];
const PLACES = [
  ["دمشق", "Damascus"],
  ["حلب", "Aleppo"],
  ["حمص", "Homs"],
  ["حماة", "Hama"],
  ["درعا", "Daraa", "Deraa"],
  ["دوما", "Douma", "Duma"],
  ["اللاذقية", "Latakia", "Lattakia"],
  ["إدلب", "Idlib", "Idleb"],
  ["الزبداني", "Zabadani"],
];
const BRANCHES = ["215", "227", "235", "248", "251"];
const CAUSES = ["starvation", "beating", "strangulation", "untreated-illness", "eye-injury"];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

const people = [];
for (let i = 0; i < N; i++) {
  const given = Math.floor(rand() * GIVEN.length);
  let father = Math.floor(rand() * GIVEN.length);
  const family = Math.floor(rand() * FAMILY.length);
  const place = Math.floor(rand() * PLACES.length);
  const r = rand();
  const script = r < 0.5 ? "latin" : r < 0.7 ? "arabic" : "both";
  const latin = script === "arabic" ? null : [spelling(GIVEN[given].slice(1)), spelling(GIVEN[father].slice(1)), spelling(FAMILY[family].slice(1))];
  const arabic = script === "latin" ? null : [GIVEN[given][0], GIVEN[father][0], FAMILY[family][0]];
  const day = new Date(Date.UTC(2011, 4, 1) + Math.floor(rand() * 1000) * 86400000);
  people.push({
    id: "syn-" + String(i + 1).padStart(5, "0"),
    // Detainee numbers repeat across branches, as in the photographs' labels.
    number: 1000 + Math.floor(rand() * 8000),
    branch: pick(BRANCHES),
    cause: pick(CAUSES),
    date: day.toISOString().slice(0, 10),
    given, father, family, place,
    placeName: spelling(PLACES[place].slice(1)),
    latin, arabic,
  });
}

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "content/cases"), { recursive: true });
writeFileSync(join(out, "casebook.toml"), `# Name-search evaluation corpus (benches/names): synthetic people, names in two scripts.
title = "Name search corpus"
base_url = "https://example.org/names/"

[search]
identifiers = ["case_id", "detainee_number", "detainee_number/branch"]
names = ["name", "name_ar", "place"]

[cases]
section = "cases"
id_field = "case_id"
synthetic_field = "synthetic"

[[cases.fields]]
name = "case_id"
type = "string"
required = true
label = "Case"

[[cases.fields]]
name = "name"
type = "string"
label = "Name"
column = true

[[cases.fields]]
name = "name_ar"
type = "string"
label = "Name in Arabic"

[[cases.fields]]
name = "detainee_number"
type = "integer"
required = true
label = "Detainee number"

[[cases.fields]]
name = "branch"
type = "enum"
values = [${BRANCHES.map((b) => `"${b}"`).join(", ")}]
required = true
label = "Branch"
facet = true

[[cases.fields]]
name = "photographed"
type = "date"
required = true
label = "Date photographed"
facet = true
facet_name = "year"
column = true

[[cases.fields]]
name = "place"
type = "string"
label = "Place of arrest"

[[cases.fields]]
name = "cause"
type = "enum"
values = [${CAUSES.map((c) => `"${c}"`).join(", ")}]
label = "Apparent cause"
facet = true

[[cases.fields]]
name = "synthetic"
type = "boolean"
required = true
label = "Synthetic"
`);
writeFileSync(join(out, "content/_index.md"), '+++\ntitle = "Name search corpus"\n+++\nSynthetic cases for measuring name search.\n');
writeFileSync(join(out, "content/cases/_index.md"), '+++\ntitle = "Cases"\n+++\nSynthetic cases.\n');
const toml = (s) => JSON.stringify(s);
for (const p of people) {
  const name = p.latin ? p.latin.join(" ") : null;
  const nameAr = p.arabic ? p.arabic.join(" ") : null;
  const month = MONTHS[+p.date.slice(5, 7) - 1] + " " + p.date.slice(0, 4);
  const lines = [
    "+++",
    `title = ${toml(name || nameAr)}`,
    `case_id = "${p.id}"`,
    name ? `name = ${toml(name)}` : null,
    nameAr ? `name_ar = ${toml(nameAr)}` : null,
    `detainee_number = ${p.number}`,
    `branch = "${p.branch}"`,
    `photographed = ${p.date}`,
    `place = ${toml(p.placeName)}`,
    `cause = "${p.cause}"`,
    "synthetic = true",
    "+++",
    `Synthetic record. Arrested in ${p.placeName} and held in branch ${p.branch}; photographed in ${month}. The body shows signs consistent with ${p.cause.replace("-", " ")}.`,
  ];
  writeFileSync(join(out, "content/cases", p.id + ".md"), lines.filter((l) => l !== null).join("\n") + "\n");
}

// ---- judged queries
const ids = (f) => people.filter(f).map((p) => p.id);
const hasName = (p, g) => p.given === g || p.father === g;
const latinHas = (p, word) => p.latin && p.latin.some((w) => w === word);
// Every spelling in the corpus, normalized roughly as search does: a typo must not be one.
const fold = (w) => w.toLowerCase().replace(/[أإآ]/g, "ا").replace(/ة/g, "ه").replace(/ى/g, "ي");
const spellings = new Set([...GIVEN, ...FAMILY, ...PLACES].flat().flatMap((n) => n.split(/[\s-]+/)).map(fold));
// One edit a hurried thumb makes: a letter dropped, doubled, swapped or replaced.
function typo(word) {
  const cs = Array.from(word);
  for (;;) {
    const i = 1 + Math.floor(rand() * (cs.length - 2));
    const kind = Math.floor(rand() * 4), t = cs.slice();
    if (kind === 0) t.splice(i, 1);
    else if (kind === 1) t.splice(i, 0, t[i]);
    else if (kind === 2) [t[i], t[i + 1]] = [t[i + 1], t[i]];
    else t[i] = pick(Array.from(/[\u0600-\u06ff]/.test(word) ? "بتثجحخدذرزسشصضطظعغفقكلمنهوي" : "abdefhiklmnorstuy"));
    const w = t.join("");
    if (w !== word && t.length >= 4 && !spellings.has(fold(w))) return w;
  }
}
const queries = [];
const add = (cls, q, relevant, filters) => { if (relevant.length) queries.push({ class: cls, q, relevant, ...(filters ? { filters } : {}) }); };
const given = (latin) => GIVEN.findIndex((g) => g[1] === latin);
// Absent names: nothing is relevant, and the exact list alone is judged.
for (const q of ABSENT) queries.push({ class: "must-not-match", q, relevant: [] });
// Typed starts, as the search box sends them while typing: judged on the name's cases.
const typed = (q, relevant) => { if (relevant.length) queries.push({ class: "prefix", q, relevant, typing: true }); };
typed("Darw", ids((p) => p.family === FAMILY.findIndex((f) => f[1] === "Darwish")));
typed("Yous", ids((p) => hasName(p, given("Youssef"))));
typed("Must", ids((p) => hasName(p, given("Mustafa"))));
typed("Qab", ids((p) => p.family === FAMILY.findIndex((f) => f[1] === "Qabbani")));
const single = GIVEN.filter((g) => !g[0].includes(" "));
for (const g of single.slice(0, 12).concat(single.slice(-5))) {
  const gi = GIVEN.indexOf(g);
  // exact: the spelling as written; relevant: the cases that have that spelling.
  add("exact", g[1], ids((p) => latinHas(p, g[1])));
  // variant: another spelling; relevant: every case with the name in Latin letters.
  const v = g.length > 2 ? g[2] : g[1];
  add("variant", v, ids((p) => p.latin && hasName(p, gi)));
  // cross-script, both ways: relevant are the cases with the name in either script, so a
  // case whose name is written only in the other script must be found.
  add("cross-script", g[0], ids((p) => hasName(p, gi)));
  add("cross-script", g[1], ids((p) => hasName(p, gi)));
}
for (const g of GIVEN.filter((g) => Array.from(g[1]).length >= 5).slice(0, 10)) {
  const gi = GIVEN.indexOf(g);
  add("typo", typo(g[1]), ids((p) => p.latin && hasName(p, gi)));
  if (Array.from(g[0]).length >= 4) add("typo", typo(g[0]), ids((p) => p.arabic && hasName(p, gi)));
}
for (const f of FAMILY.slice(0, 8)) {
  const fi = FAMILY.indexOf(f);
  add("variant", f[f.length - 1 > 1 ? 2 : 1], ids((p) => p.latin && p.family === fi));
  if (Array.from(f[1]).length >= 5) add("typo", typo(f[1].replace(/^(al|el)-/, "")), ids((p) => p.latin && p.family === fi));
}
// Arabic forms: the article, hamza on alef, ta marbuta written as ha, vowel marks.
add("arabic forms", "الخطيب", ids((p) => p.arabic && p.family === 0));
add("arabic forms", "خطيب", ids((p) => p.arabic && p.family === 0));
add("arabic forms", "ابراهيم", ids((p) => p.arabic && hasName(p, given("Ibrahim"))));
add("arabic forms", "اسامه", ids((p) => p.arabic && hasName(p, given("Osama"))));
add("arabic forms", "مُحَمَّد", ids((p) => p.arabic && hasName(p, given("Mohammed"))));
add("arabic forms", "علي", ids((p) => p.arabic && hasName(p, given("Ali"))));
add("arabic forms", "عبدالرحمن", ids((p) => p.arabic && hasName(p, given("Abdulrahman"))));
// An Arabic family name typed with the article finds its Latin spellings too.
add("cross-script", "الخطيب", ids((p) => p.family === 0));
add("cross-script", "al-Masri", ids((p) => p.family === 2));
// Full names: given and family name, in either spelling.
for (let k = 0; k < 6; k++) {
  const p = people[Math.floor(rand() * people.length)];
  if (!p.latin) continue;
  add("two words", `${GIVEN[p.given][1]} ${FAMILY[p.family][1]}`, ids((o) => o.latin && hasName(o, p.given) && o.family === p.family));
}
// Phrases: a full name in quotes, as written.
for (let k = 0; k < 6; k++) {
  const p = people[Math.floor(rand() * people.length)];
  if (!p.latin) continue;
  const phrase = `${p.latin[0]} ${p.latin[1]}`;
  add("phrases", `"${phrase}"`, ids((o) => o.latin && (o.latin.join(" ").includes(phrase))));
}
// Phrases of the body text, matched by its words' positions.
for (let k = 0; k < 2; k++) {
  const p = people[Math.floor(rand() * people.length)];
  add("phrases", `"arrested in ${p.placeName}"`, ids((o) => o.placeName === p.placeName));
  add("phrases", `"consistent with ${p.cause.replace("-", " ")}"`, ids((o) => o.cause === p.cause));
}
// Numbers: a case by its detainee number and branch, in Latin and Arabic-Indic digits.
for (let k = 0; k < 5; k++) {
  const p = people[Math.floor(rand() * people.length)];
  add("numbers", `${p.number}/${p.branch}`, ids((o) => o.number === p.number && o.branch === p.branch));
  add("numbers", String(p.number).replace(/[0-9]/g, (d) => "٠١٢٣٤٥٦٧٨٩"[d]), ids((o) => o.number === p.number));
  add("numbers", p.id, [p.id]);
}
// Dates: ISO, written, day first, a month in Arabic.
const AR_MONTHS = ["كانون الثاني", "شباط", "آذار", "نيسان", "أيار", "حزيران", "تموز", "آب", "أيلول", "تشرين الأول", "تشرين الثاني", "كانون الأول"];
for (let k = 0; k < 4; k++) {
  const p = people[Math.floor(rand() * people.length)];
  const [y, m, d] = p.date.split("-");
  const same = ids((o) => o.date === p.date);
  add("dates", p.date, same);
  add("dates", `${+d} ${MONTHS[+m - 1]} ${y}`, same);
  add("dates", `${+d}/${+m}/${y}`, same);
  add("dates", `${AR_MONTHS[+m - 1]} ${y}`, ids((o) => o.date.slice(0, 7) === `${y}-${m}`));
}
// Filters: a name within one branch.
for (const g of single.slice(0, 5)) {
  const gi = GIVEN.indexOf(g), branch = pick(BRANCHES);
  add("filters", g[1], ids((p) => p.latin && hasName(p, gi) && p.branch === branch), { branch: [branch] });
}
// Places, with a typo.
add("variant", "Deraa", ids((p) => p.place === 4));
add("typo", "Damaskus", ids((p) => p.place === 0));
add("typo", "Alepo", ids((p) => p.place === 1));
writeFileSync(join(out, "queries.json"), JSON.stringify(queries, null, 1) + "\n");
console.log(`${N} cases, ${queries.length} judged queries in ${out}`);
