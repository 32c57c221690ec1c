//! When memory a build frees goes back to the system. mimalloc keeps a freed page for a
//! while (its purge delay) before returning it; a page returned and then needed again is
//! faulted in afresh by the kernel, which was a quarter of a one-case edit's CPU.
//!
//! A build from nothing returns freed memory after 2 ms: its steps free tens of megabytes
//! while the next ones grow, and held longer they would add up past 300 MB at 11,000
//! cases (`main`). A build after an edit takes nearly everything from its caches and peaks
//! near 200 MB: it holds freed pages for 50 ms, so the next step reuses them (benches/
//! README.md, "Pages kept"). A step that is about to make most of its part anew sets the
//! short delay back first.

/// mimalloc's `mi_option_purge_delay` (its place in `mi_option_e`, the same in mimalloc 2
/// and 3; `libmimalloc-sys` names no constant for it).
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// The delay of a build that makes most of its data anew (milliseconds).
pub const FROM_NOTHING: std::ffi::c_long = 2;

/// The delay of a build that takes nearly everything from its caches.
const FROM_CACHES: std::ffi::c_long = 50;

/// Freed memory goes back to the system `ms` after it is freed.
pub fn return_freed_after(ms: std::ffi::c_long) {
    // SAFETY: sets one of mimalloc's options, read each time it decides whether to return
    // freed pages; it changes only when they are returned.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, ms) };
}

/// Whether `kept` of `all` is nearly everything: the same rule (1 in 32) by which the
/// caches are written anew.
pub(super) fn nearly_all(kept: usize, all: usize) -> bool {
    kept * 32 >= all * 31
}

/// Sets the long delay: this build will most likely take nearly everything from its caches.
pub(super) fn return_freed_later() {
    return_freed_after(FROM_CACHES);
}

/// Sets the delay for a build that found `kept` of its `all` content files in its caches:
/// the long one when it found nearly all of them, else the short one.
pub(super) fn return_freed_after_finding(kept: usize, all: usize) {
    if nearly_all(kept, all) {
        return_freed_later();
    } else {
        return_freed_after(FROM_NOTHING);
    }
}

/// Sets the short delay back before a step that found only `kept` of its `all` items kept
/// and will make the rest anew.
pub(super) fn return_freed_soon_unless(kept: usize, all: usize) {
    if !nearly_all(kept, all) {
        return_freed_after(FROM_NOTHING);
    }
}

/// Memory freed by any thread, back to the system now, after a step that freed tens of
/// megabytes. mimalloc returns freed pages a while after, on the thread that allocated them,
/// when it next allocates: now and then a pool thread waited for work instead, and a cold
/// build made its next step beside what the last one freed, peaking 40 to 80 MB higher
/// (benches/README.md, "What else was tried"). Not after smaller steps: what is returned
/// is faulted in again by the next.
pub(super) fn return_freed_memory() {
    let collect = || {
        // SAFETY: mi_collect only walks mimalloc's own structures; memory another allocator
        // holds is left alone.
        unsafe { libmimalloc_sys::mi_collect(true) }
    };
    rayon::broadcast(|_| collect());
    collect();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearly_all_is_all_but_one_in_32() {
        assert!(nearly_all(11_000, 11_000) && nearly_all(10_657, 11_000));
        assert!(!nearly_all(10_655, 11_000) && !nearly_all(0, 11_000));
        // A first build keeps nothing of nothing: nothing to take from caches either way.
        assert!(nearly_all(0, 0));
    }
}
