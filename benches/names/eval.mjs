// Scores search over a built corpus against its judged queries (benches/names/corpus.mjs).
//
//   node benches/names/eval.mjs SITE_DIR [--pagefind] [--detail] [--files]
//
// For casebook it runs the published client (SITE_DIR/public/casebook-search.js) on the
// index files read from disk; with --pagefind, Pagefind's own client on SITE_DIR/public/
// pagefind (after `pagefind --site SITE_DIR/public`). Per class of query it prints:
// precision in the first ten (relevant results among the first min(10, relevant) shown, so a
// perfect ranking scores 1), recall over all results, mean reciprocal rank; and per query
// from a cold start the files fetched and their gzip -6 bytes (the client included, as a
// browser would fetch it, and for casebook the index's meta file).
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const [site, ...flags] = process.argv.slice(2);
if (!site) {
  console.error("usage: node benches/names/eval.mjs SITE_DIR [--pagefind] [--detail] [--files]");
  process.exit(2);
}
const pub = join(site, "public");
const queries = JSON.parse(readFileSync(join(site, "queries.json"), "utf8"));
const gz = (bytes) => gzipSync(bytes, { level: 6 }).length;
const idOf = (url) => (url.match(/syn-\d+/i) || [""])[0].toLowerCase();

// ---- casebook: the published client, with files read from disk instead of <script>.
async function casebookEngine() {
  const clientPath = join(pub, "casebook-search.js");
  const search = createRequire(import.meta.url)(clientPath);
  const dir = join(pub, "search/en");
  const metaPath = join(dir, readdirSync(dir).find((f) => f.startsWith("meta.")));
  const parse = (path) => {
    const text = readFileSync(path, "utf8");
    const body = text.slice("casebook.search.add(".length, text.lastIndexOf(")"));
    return { data: JSON.parse("[" + body + "]")[1], bytes: gz(Buffer.from(text)) };
  };
  const meta = parse(metaPath);
  const client = gz(readFileSync(clientPath));
  return {
    name: "casebook",
    // A cold engine per query: every file it loads counts.
    facets: meta.data.facetsFile ? parse(join(dir, meta.data.facetsFile)).bytes : 0,
    async run(q, filters, all, typing) {
      const fetched = [], names = [];
      const engine = new search.Engine(all ? { ...meta.data, perPage: 1e9 } : meta.data, (name) => {
        const f = parse(join(dir, name));
        fetched.push(f.bytes);
        names.push([name.replace(/\..*/, ""), f.bytes]);
        return Promise.resolve(f.data);
      });
      // As on a narrow screen, filters folded: their counts (the facets file) load when
      // they are opened or a filter is on (the facets file's size is printed apart).
      const r = await engine.search({ q, filters: filters || {}, page: 1, typing: !!typing, counts: false });
      // Exact results, then near matches group by group (not fetched by a cold query: the
      // first groups' first items are, in `r.near.groups[].items`).
      const exact = (r.items || []).map((i) => idOf(i.path));
      const near = [];
      if (all && r.near) for (const g of r.near.groups) near.push(...(await engine.records(g.docs)).map((i) => idOf(i.path)));
      return {
        ids: exact.concat(near),
        exact,
        files: fetched.length + 2,
        names: [["meta", meta.bytes], ["client", client]].concat(names),
        bytes: fetched.reduce((a, b) => a + b, 0) + meta.bytes + client,
      };
    },
  };
}

// ---- Pagefind: its own client, with fetch answered from disk.
async function pagefindEngine() {
  const dir = join(pub, "pagefind");
  if (!existsSync(join(dir, "pagefind.js"))) throw new Error(`no ${dir}/pagefind.js: run pagefind --site ${pub}`);
  let fetched = [];
  const realFetch = globalThis.fetch;
  globalThis.fetch = async (url) => {
    const path = decodeURIComponent(new URL(url, pathToFileURL(dir + "/")).pathname);
    const bytes = readFileSync(path);
    fetched.push(/\.(pf_\w+|pagefind)$/.test(path) ? bytes.length : gz(bytes));
    return new Response(bytes);
  };
  const client = gz(readFileSync(join(dir, "pagefind.js")));
  let pf = null;
  return {
    name: "Pagefind",
    async run(q, filters, all) {
      // A fresh module per query, so nothing is cached between queries.
      fetched = [];
      pf = await import(pathToFileURL(join(dir, "pagefind.js")).href + "?" + Math.random());
      await pf.options({ basePath: pathToFileURL(dir + "/").href });
      await pf.init();
      const r = await pf.search(q, { filters: filters || {} });
      const shown = all ? r.results : r.results.slice(0, 10);
      const data = await Promise.all(shown.map((x) => x.data()));
      return {
        ids: data.map((d) => idOf(d.url)),
        files: fetched.length + 1,
        bytes: fetched.reduce((a, b) => a + b, 0) + client,
      };
    },
    done() { globalThis.fetch = realFetch; },
  };
}

const median = (v) => {
  const s = [...v].sort((a, b) => a - b), n = s.length;
  return n ? (n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2) : 0;
};
async function evaluate(engine) {
  const byClass = new Map(), detail = [];
  const bytes = [], files = [], perFile = [], absent = [];
  for (const query of queries) {
    const cold = await engine.run(query.q, query.filters, false, query.typing);
    const all = await engine.run(query.q, query.filters, true, query.typing);
    bytes.push(cold.bytes);
    files.push(cold.files);
    if (!query.relevant.length) {
      // Must not match: any exact result is false (near matches are shown apart, so allowed).
      const wrong = all.exact ? all.exact.length : all.ids.length;
      absent.push([query.q, wrong]);
      detail.push(`${query.class}\t${query.q}\t${wrong} exact results, ${all.ids.length} in all`);
      continue;
    }
    const rel = new Set(query.relevant);
    const top = all.ids.slice(0, Math.min(10, rel.size));
    const p10 = top.filter((id) => rel.has(id)).length / Math.min(10, rel.size);
    const recall = all.ids.filter((id) => rel.has(id)).length / rel.size;
    const first = all.ids.findIndex((id) => rel.has(id));
    const rr = first < 0 ? 0 : 1 / (first + 1);
    if (cold.names) {
      // Bytes by kind of file (t3 -> t): where a cold query's bytes go.
      const kinds = {};
      for (const [name, b] of cold.names) { const k = name.replace(/\d+$/, ""); kinds[k] = (kinds[k] || 0) + b; }
      perFile.push([cold.bytes, query.q, Object.entries(kinds).map(([k, b]) => `${k} ${(b / 1024).toFixed(1)}`).join(", ")]);
    }
    const c = byClass.get(query.class) || { n: 0, p10: 0, recall: 0, rr: 0, bytes: [] };
    c.n++; c.p10 += p10; c.recall += recall; c.rr += rr; c.bytes.push(cold.bytes);
    byClass.set(query.class, c);
    detail.push(`${query.class}\t${query.q}\tP@10 ${p10.toFixed(2)}\trecall ${recall.toFixed(2)}\t${all.ids.length} results, ${rel.size} relevant`);
  }
  return { byClass, bytes, files, detail, perFile, absent, facets: engine.facets };
}

const engines = [await casebookEngine()];
if (flags.includes("--pagefind")) engines.push(await pagefindEngine());
const results = [];
for (const e of engines) {
  results.push([e.name, await evaluate(e)]);
  if (e.done) e.done();
}
const classes = [...results[0][1].byClass.keys()];
const f2 = (x) => x.toFixed(2);
console.log(`${queries.length} judged queries over ${site}\n`);
console.log("| class | queries | " + results.map(([n]) => `${n} P@10 | ${n} recall | ${n} MRR`).join(" | ") + " |");
console.log("| --- | --- | " + results.map(() => "--- | --- | ---").join(" | ") + " |");
const totals = results.map(() => ({ n: 0, p10: 0, recall: 0, rr: 0 }));
for (const cls of classes) {
  const cells = results.map(([, r], i) => {
    const c = r.byClass.get(cls);
    totals[i].n += c.n; totals[i].p10 += c.p10; totals[i].recall += c.recall; totals[i].rr += c.rr;
    return `${f2(c.p10 / c.n)} | ${f2(c.recall / c.n)} | ${f2(c.rr / c.n)}`;
  });
  console.log(`| ${cls} | ${results[0][1].byClass.get(cls).n} | ${cells.join(" | ")} |`);
}
console.log(`| **all** | ${queries.length} | ` + totals.map((t) => `**${f2(t.p10 / t.n)}** | **${f2(t.recall / t.n)}** | **${f2(t.rr / t.n)}**`).join(" | ") + " |");
console.log("");
for (const [name, r] of results) {
  // Names in no case: precision of the exact list alone (1 when it is empty).
  const a = r.absent, wrong = a.reduce((n, x) => n + x[1], 0);
  if (a.length) console.log(`${name}: must-not-match (${a.length} absent names), exact-list precision ${f2(a.filter((x) => !x[1]).length / a.length)}, ${wrong} false exact results${wrong ? ": " + a.filter((x) => x[1]).map((x) => x[0] + " " + x[1]).join(", ") : ""}`);
}
for (const [name, r] of results) {
  if (r.facets) console.log(`${name}: with the filters open (wide screens) a cold query also fetches the facets file, ${(r.facets / 1024).toFixed(1)} KB gzipped`);
  console.log(`${name}: per cold query, median ${(median(r.bytes) / 1024).toFixed(1)} KB gzipped (max ${(Math.max(...r.bytes) / 1024).toFixed(1)}), median ${median(r.files)} files`);
}
if (flags.includes("--files")) {
  // The largest cold queries and the median one, by kind of file (KB gzipped).
  const list = results[0][1].perFile.sort((a, b) => b[0] - a[0]);
  for (const [b, q, kinds] of list.slice(0, 8).concat([list[list.length >> 1]])) console.log(`${(b / 1024).toFixed(1)} KB\t${q}\t${kinds}`);
}
if (flags.includes("--detail")) for (const [name, r] of results) console.log(`\n${name}\n` + r.detail.join("\n"));
