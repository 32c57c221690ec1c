//! The last step of a build: the manifest of every file, and the release files made from it
//! (proofs, signature), put among the site's files.

use std::sync::Arc;

use super::files::Merge;
use super::{BuildOptions, Notice, Notices, Publishing, State, Stopwatch, release, tokens};
use crate::error::Result;
use crate::integrity::manifest::{self, FileHashes};
use crate::output::{self, Output};

/// Makes the manifest and the release files made from it (proofs, signature) from the files
/// of `merge`, and puts them there; `before` them, the files of the last step.
pub(super) fn make(
    options: &BuildOptions,
    mut publishing: Option<&mut Publishing>,
    mut hashes: Option<&mut FileHashes>,
    state: &State,
    merge: &mut Merge,
    watch: &mut Stopwatch,
) -> Result<()> {
    // The manifest hashes only the files that changed since the last manifest.
    if let Some(hashes) = hashes.as_deref_mut() {
        for path in &merge.changed {
            hashes.remove(path);
        }
    }
    // The manifest and what is made from it are made again from the files they cover.
    let before = &state.files;
    merge
        .files
        .retain(|path, _| !crate::signing::is_unlisted(path));
    let mut listed: Vec<&Output> = merge
        .files
        .values()
        .map(Arc::as_ref)
        .filter(|o| !crate::signing::HOST_FILES.contains(&o.path.as_str()))
        .collect();
    listed.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    let (manifest, tree) = manifest::build_cached(
        &listed,
        &state.images,
        release::case_records(state),
        release::withdrawn_records(state),
        hashes,
    )?;
    if let Some(publishing) = publishing.as_deref_mut() {
        publishing.digests = hashed_bytes(&listed, &manifest.files);
    }
    watch.lap("manifest");
    // A one-shot build leaves the published manifest as it is when nothing in it changed.
    let published = (publishing.as_deref_mut())
        .filter(|p| p.prior.is_some())
        .and_then(|p| p.published(&[manifest::MANIFEST], manifest.fingerprint()))
        .and_then(|files| files.into_iter().next());
    // Independent of each other: the manifest's bytes and the proofs.
    let (manifest_file, mut made) = rayon::join(
        || published.unwrap_or_else(|| manifest.output()),
        || release::proofs(&tree, &manifest, options.publishes_proofs()),
    );
    watch.lap("manifest file and proofs");
    if let Some(signing) = &options.signing {
        let signature = release::signature(
            signing,
            &manifest_file,
            &manifest.merkle_root,
            &state.config.base_url,
        )?;
        watch.lap("signature");
        if !signing.authorities.is_empty() {
            let record = publishing.as_ref().map(|p| {
                let cache = state.config.root.join(&state.config.images.cache_dir);
                tokens::Record::of(&cache, &p.out)
            });
            let (stamped, warnings, received) =
                tokens::tokens(signing, &signature, record.as_ref())?;
            made.extend(stamped);
            if let (Some(p), Some(record)) = (publishing.as_deref_mut(), record) {
                p.tokens = Some((record, received));
            }
            for warning in warnings {
                Notices::tell(options.notices.as_ref(), Notice::Warning(warning));
            }
            watch.lap("time-stamp tokens");
        }
        made.push(signature);
    }
    made.push(manifest_file);
    for out in made {
        match before.get(&out.path) {
            Some(prev) if **prev == out => {
                merge.files.insert(out.path.clone(), prev.clone());
            }
            _ => {
                let stage = publishing.as_ref().and_then(|p| p.stage.as_ref());
                merge.put(output::Stage::put_in(stage, out))
            }
        }
    }
    for path in before.keys().filter(|p| crate::signing::is_unlisted(p)) {
        if !merge.files.contains_key(path) {
            merge.note(path);
        }
    }
    watch.lap("release files");
    Ok(())
}

/// The SHA-256 the manifest made of each of `listed` that is bytes in memory (`records`,
/// in the same order), which the write step would otherwise make again.
fn hashed_bytes(listed: &[&Output], records: &[crate::integrity::FileRecord]) -> output::Digests {
    (listed.iter().zip(records))
        .filter(|(o, r)| matches!(o.data, output::Data::Bytes(_)) && o.path == r.path)
        .filter_map(|(o, r)| {
            let sha256 = crate::hashing::unhex(&r.sha256)?;
            Some((o.path.clone(), (r.size, sha256)))
        })
        .collect()
}
