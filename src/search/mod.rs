//! Static search (work in progress for the search issue): text normalization shared with
//! the browser client through `search-vectors.json`.

pub mod normalize;
