"""Reads a built page's citation the way reference tools do (run by tests/cite.rs).

    python3 check.py PAGE.html CSL.json BIB RIS STYLE.csl

Prints one JSON object: the CSL-JSON rendered by citeproc-py in the harvard1 style it ships
and in STYLE.csl, the BibTeX entries as bibtexparser reads them, the RIS records as rispy
reads them, and what extruct finds in the page (JSON-LD, Dublin Core) with its Highwire
`citation_*` meta tags.
"""
import json
import sys

import bibtexparser
import extruct
import lxml.html
import rispy
from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle, formatter
from citeproc.source.json import CiteProcJSON

page, csl_file, bib_file, ris_file, style_file = sys.argv[1:6]


def render(style_path):
    items = json.load(open(csl_file, encoding="utf-8"))
    source = CiteProcJSON(items)
    style = CitationStylesStyle(style_path, validate=False)
    bibliography = CitationStylesBibliography(style, source, formatter.plain)
    for item in items:
        bibliography.register(Citation([CitationItem(item["id"])]))
    return [str(entry) for entry in bibliography.bibliography()]


html = open(page, encoding="utf-8").read()
data = extruct.extract(html, syntaxes=["json-ld", "dublincore"], uniform=True)
tree = lxml.html.fromstring(html)
highwire = {}
for meta in tree.xpath("//meta[starts-with(@name, 'citation_')]"):
    highwire.setdefault(meta.get("name"), []).append(meta.get("content"))
with open(bib_file, encoding="utf-8") as f:
    bib = bibtexparser.load(f)
with open(ris_file, encoding="utf-8") as f:
    ris = rispy.load(f)
print(json.dumps({
    "harvard1": render("harvard1"),
    "note": render(style_file),
    "bibtex": bib.entries,
    "ris": ris,
    "json_ld": data["json-ld"],
    "dublincore": data["dublincore"],
    "highwire": highwire,
}, ensure_ascii=False, default=str))
