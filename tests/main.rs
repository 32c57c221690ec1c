//! casebook's integration tests: one binary over small fixture sites in `tests/fixtures/`.

// Helpers in the support modules are shared across this crate's modules, not exported.
#![allow(unreachable_pub)]

mod support;

mod build;
mod bundled;
mod charts;
mod ci;
mod cite;
mod docs;
mod errors;
mod export;
mod facts;
mod failures;
mod hosting;
mod i18n;
mod images;
mod import;
mod import_bounded;
mod kept_pages;
mod kept_parses;
mod layers;
mod links;
mod package;
mod portable;
mod proofs;
mod review;
mod search;
mod serve;
mod serve_files;
mod serve_guard;
mod serve_watch;
mod signing;
mod swap_race;
mod timestamps;
mod up_to_date;
mod visitors;
mod workbench;
