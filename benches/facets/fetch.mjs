// The facet data a query fetches (issue 43, item 5), over a built corpus:
//
//   node benches/facets/fetch.mjs SITE_DIR
//
// Runs the published client (SITE_DIR/public/casebook-search.js) on the index files read
// from disk, each query from a cold start with the filters open (their counts shown, as on
// a wide screen). Per query: results, the facet files fetched and their gzip -6 bytes,
// against the whole facets file (what every such query fetched before the slices); and
// that the counts are the ones the whole file gives.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { createRequire } from "node:module";
import assert from "node:assert/strict";

const [site] = process.argv.slice(2);
const pub = join(site, "public");
const search = createRequire(import.meta.url)(join(pub, "casebook-search.js"));
const dir = join(pub, "search/en");
const gz = (bytes) => gzipSync(bytes, { level: 6 }).length;
const read = (name) => {
  const text = readFileSync(join(dir, name), "utf8");
  return { data: JSON.parse("[" + text.slice("casebook.search.add(".length, text.lastIndexOf(")")) + "]")[1], bytes: gz(Buffer.from(text)) };
};
const meta = read(readdirSync(dir).find((f) => f.startsWith("meta."))).data;
const whole = read(meta.facetsFile).bytes;
const isFacets = (name) => /^f\d|^facets\./.test(name);

function engine(m) {
  const fetched = [];
  const e = new search.Engine(m, (name) => {
    const f = read(name);
    fetched.push([name, f.bytes]);
    return Promise.resolve(f.data);
  });
  return { e, fetched };
}
const queries = [
  ["a detainee number", { q: "100042" }],
  ["a case id", { q: "syn-004242" }],
  ["a forensic number and a word", { q: "7375 ligature" }],
  ["a branch and a hospital", { q: "s1 tishreen" }],
  ["a word in every case", { q: "examination" }],
  ["a filter alone", { q: "", filters: { branch: ["s1"] } }],
  ["a word and a filter", { q: "emaciation", filters: { sex: ["female"] } }],
];
console.log(`${meta.n} documents; the whole facets file: ${whole} bytes gzipped; ${meta.files.f ? Math.ceil(meta.n / meta.facetSlice) + " slices of " + meta.facetSlice + " documents" : "no slices"}`);
console.log("query | results | facet files | facet bytes (gzip) | before (the whole file)");
for (const [label, state] of queries) {
  const now = engine(meta);
  const r = await now.e.search({ ...state, page: 1, counts: true });
  const facets = now.fetched.filter(([n]) => isFacets(n));
  const bytes = facets.reduce((a, [, b]) => a + b, 0);
  // The same query with the slices hidden: the whole file, as before. Same counts.
  const before = engine({ ...meta, files: { ...meta.files, f: null } });
  const b = await before.e.search({ ...state, page: 1, counts: true });
  assert.deepEqual(r.counts, b.counts, label);
  assert.equal(r.total, b.total, label);
  console.log(`${label} (${JSON.stringify(state)}) | ${r.total} | ${facets.length} | ${bytes} | ${whole}`);
}
