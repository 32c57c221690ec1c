//! One memory budget for every photograph being decoded at once.
//!
//! Decoding holds a photograph's pixels: width × height × channels × bytes per sample,
//! 800 MB for a 100-megapixel 16-bit RGBA PNG. One photograph per core would let the peak
//! grow with the number of cores; instead each derivation first reserves what it will hold
//! (`decode::memory_needed`), and waits while other photographs hold the rest. A
//! photograph that needs more than the whole budget is refused, so the peak never goes
//! over it, on any machine.

use std::sync::{Condvar, Mutex};

/// The bytes all derivations may hold at once.
#[derive(Debug)]
pub(crate) struct Budget {
    total: u64,
    state: Mutex<State>,
    freed: Condvar,
}

#[derive(Debug)]
struct State {
    free: u64,
    /// Photographs waiting for bytes: while any waits, no worker keeps bytes it is not using.
    waiting: usize,
}

/// One worker's share of a [`Budget`], kept from one photograph to the next.
///
/// A photograph's freed pixels stay with mimalloc (the binary's allocator) for a moment
/// before they go back to the system, and the worker's next photograph reuses them. So a
/// worker keeps its bytes after a photograph while nobody waits for them, and the next
/// photograph that fits in them starts at once, in memory already mapped. Handing bytes
/// back first returns that memory (`mi_collect`): making every photograph map and clear its
/// memory again cost a cold build of 1,000 photographs a third of its time.
#[derive(Debug)]
pub(crate) struct Keeper<'a> {
    budget: &'a Budget,
    kept: u64,
}

/// A photograph's hold on its worker's bytes, until dropped.
#[derive(Debug)]
pub(crate) struct Held<'k, 'a> {
    keeper: &'k mut Keeper<'a>,
}

impl Budget {
    pub(crate) fn new(total: u64) -> Budget {
        Budget {
            total,
            state: Mutex::new(State {
                free: total,
                waiting: 0,
            }),
            freed: Condvar::new(),
        }
    }

    /// Runs `each` on every item, on every thread of rayon's pool at once, each thread with
    /// one keeper for all the items it takes: a thread takes the next item when it is done
    /// with one (no thread idles while items remain), and its bytes pass from one
    /// photograph to its next. (Rayon's own `map_init` makes a keeper per split of the
    /// work, dozens a stage, each handing its memory back to the system when dropped.)
    /// Results come in the items' order.
    pub(crate) fn each<T: Sync, R: Send>(
        &self,
        items: &[T],
        each: impl Fn(&mut Keeper, &T) -> R + Sync,
    ) -> Vec<R> {
        let _unhurried = UnhurriedPurge::new();
        let next = std::sync::atomic::AtomicUsize::new(0);
        let per_thread = rayon::broadcast(|_| {
            let mut keeper = self.keeper();
            let mut done = Vec::new();
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(item) = items.get(i) else {
                    return done;
                };
                done.push((i, each(&mut keeper, item)));
            }
        });
        let mut all: Vec<(usize, R)> = per_thread.into_iter().flatten().collect();
        all.sort_unstable_by_key(|(i, _)| *i);
        all.into_iter().map(|(_, r)| r).collect()
    }

    /// A worker's share, empty until it holds a photograph.
    pub(crate) fn keeper(&self) -> Keeper<'_> {
        Keeper {
            budget: self,
            kept: 0,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl<'a> Keeper<'a> {
    pub(crate) fn total(&self) -> u64 {
        self.budget.total
    }

    /// Holds `bytes` for one photograph: from what this worker kept, when that is enough
    /// and no other photograph waits, else from the budget, waiting until they are free.
    /// `None` if the budget could never hold them. A holder never asks for more while it
    /// holds, so waiting always ends.
    pub(crate) fn hold(&mut self, bytes: u64) -> Option<Held<'_, 'a>> {
        if bytes > self.budget.total {
            return None;
        }
        let keep = self.kept >= bytes && self.budget.lock().waiting == 0;
        if !keep {
            self.give_back();
            let mut state = self.budget.lock();
            state.waiting += 1;
            while state.free < bytes {
                state = self
                    .budget
                    .freed
                    .wait(state)
                    .unwrap_or_else(|e| e.into_inner());
            }
            state.waiting -= 1;
            state.free -= bytes;
            self.kept = bytes;
        }
        Some(Held { keeper: self })
    }

    /// Returns what this worker's photographs freed to the system, then their bytes to the
    /// budget: the next photograph admitted into those bytes must not find them still
    /// resident beside its own.
    fn give_back(&mut self) {
        if self.kept == 0 {
            return;
        }
        // SAFETY: mi_collect only walks mimalloc's own structures; memory another allocator
        // holds is left alone.
        unsafe { libmimalloc_sys::mi_collect(true) };
        let mut state = self.budget.lock();
        state.free += std::mem::take(&mut self.kept);
        self.budget.freed.notify_all();
    }
}

/// mimalloc's `mi_option_purge_delay` (its place in `mi_option_e`, the same in mimalloc 2
/// and 3; `libmimalloc-sys` names no constant for it).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// While photographs are derived, freed pages wait a second before going back to the
/// system, not the 2 ms the binary sets for its other steps (main.rs): each photograph frees
/// its pixels (about 11 MB at 1300x975) just before the next one on its worker asks for as
/// much, and returning them in between made every photograph fault and clear its memory
/// again (2,750 page faults each, a quarter of a cold build's CPU). The peak stays within
/// the budget: a worker handing its bytes back still returns them at once (`mi_collect`).
/// Stages that overlap (tests) share one guard: the first sets, the last restores.
struct UnhurriedPurge;

/// How many guards are alive, and the delay the first one found.
static UNHURRIED: Mutex<(usize, std::ffi::c_long)> = Mutex::new((0, 0));

impl UnhurriedPurge {
    const DELAY_MS: std::ffi::c_long = 1000;

    fn new() -> UnhurriedPurge {
        let mut held = UNHURRIED.lock().unwrap_or_else(|e| e.into_inner());
        if held.0 == 0 {
            // SAFETY: reads and sets one of mimalloc's options; it only changes when freed
            // pages are returned.
            held.1 = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
            unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, Self::DELAY_MS) };
        }
        held.0 += 1;
        UnhurriedPurge
    }
}

impl Drop for UnhurriedPurge {
    fn drop(&mut self) {
        let mut held = UNHURRIED.lock().unwrap_or_else(|e| e.into_inner());
        held.0 -= 1;
        if held.0 == 0 {
            // SAFETY: as in `new`.
            unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, held.1) };
        }
    }
}

impl Drop for Keeper<'_> {
    fn drop(&mut self) {
        self.give_back();
    }
}

impl Drop for Held<'_, '_> {
    fn drop(&mut self) {
        // Done with the photograph: keep its bytes for the next unless another waits.
        if self.keeper.budget.lock().waiting > 0 {
            self.keeper.give_back();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn holders_never_exceed_the_budget_and_too_much_is_refused() {
        let budget = Budget::new(100);
        assert!(budget.keeper().hold(101).is_none());
        let (held, peak) = (AtomicU64::new(0), AtomicU64::new(0));
        std::thread::scope(|s| {
            for i in 0..16u64 {
                let (budget, held, peak) = (&budget, &held, &peak);
                s.spawn(move || {
                    let mut keeper = budget.keeper();
                    for j in 0..50 {
                        // Sizes that grow and shrink, so kept bytes are reused and given back.
                        let bytes = 10 + (i * 7 + j * 13) % 60;
                        let _h = keeper.hold(bytes).unwrap();
                        let now = held.fetch_add(bytes, Ordering::SeqCst) + bytes;
                        peak.fetch_max(now, Ordering::SeqCst);
                        std::thread::yield_now();
                        held.fetch_sub(bytes, Ordering::SeqCst);
                    }
                });
            }
        });
        assert!(peak.load(Ordering::SeqCst) <= 100);
        assert_eq!(budget.lock().free, 100);
    }

    /// Every item once, results in order, and one keeper per thread for the whole run
    /// (not one per split of the work, each handing its memory back when dropped).
    #[test]
    fn photographs_are_derived_with_an_unhurried_purge_then_the_delay_is_restored() {
        // SAFETY: reads one of mimalloc's options.
        let delay = || unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        {
            // The binary's own delay, set while no stage has changed it.
            let held = UNHURRIED.lock().unwrap();
            if held.0 == 0 {
                // SAFETY: sets one of mimalloc's options.
                unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 2) };
            }
        }
        let budget = Budget::new(100);
        let seen = budget.each(&[1, 2, 3, 4], |_, _| delay());
        assert!(
            seen.iter().all(|&d| d == UnhurriedPurge::DELAY_MS),
            "{seen:?}"
        );
        let inner = std::thread::scope(|s| {
            let _outer = UnhurriedPurge::new();
            s.spawn(|| budget.each(&[1], |_, _| delay()))
                .join()
                .unwrap()
        });
        assert_eq!(inner, [UnhurriedPurge::DELAY_MS]);
        // Other tests derive photographs meanwhile: restored once the last guard is gone.
        let held = UNHURRIED.lock().unwrap();
        if held.0 == 0 {
            assert_eq!((held.1, delay()), (2, 2));
        }
    }

    #[test]
    fn each_runs_every_item_once_with_one_keeper_per_thread() {
        let budget = Budget::new(1000);
        let items: Vec<u64> = (0..2000).collect();
        let keepers = Mutex::new(std::collections::HashSet::new());
        let out = budget.each(&items, |keeper, &n| {
            keepers
                .lock()
                .unwrap()
                .insert(std::ptr::from_mut(keeper) as usize);
            let _held = keeper.hold(1 + n % 7).unwrap();
            n * 2
        });
        assert_eq!(out, items.iter().map(|n| n * 2).collect::<Vec<_>>());
        let keepers = keepers.into_inner().unwrap().len();
        assert!(keepers <= rayon::current_num_threads(), "{keepers} keepers");
        assert_eq!(budget.lock().free, 1000, "every keeper gave its bytes back");
    }

    #[test]
    fn a_worker_keeps_its_bytes_until_another_photograph_waits_for_them() {
        let budget = Budget::new(100);
        let mut a = budget.keeper();
        drop(a.hold(80).unwrap());
        // Nobody waits: the worker keeps its 80 bytes, and a smaller photograph uses them.
        assert_eq!(budget.lock().free, 20);
        drop(a.hold(50).unwrap());
        assert_eq!(budget.lock().free, 20);
        std::thread::scope(|s| {
            let held = a.hold(60).unwrap();
            let waiter = s.spawn(|| {
                let mut b = budget.keeper();
                let _h = b.hold(70).unwrap();
            });
            while budget.lock().waiting == 0 {
                std::thread::yield_now();
            }
            // Another photograph waits: the worker's bytes go back when its photograph ends.
            drop(held);
            waiter.join().unwrap();
        });
        assert_eq!(a.kept, 0);
        assert_eq!(budget.lock().free, 100);
    }

    /// Bytes of `len` from `p` the system holds in memory for this process.
    fn resident(p: *const u8, len: usize) -> usize {
        let page = 4096;
        let start = p as usize & !(page - 1);
        let pages = (p as usize + len - start).div_ceil(page);
        let mut flags = vec![0u8; pages];
        // SAFETY: `flags` has one byte for each page of the range.
        let ok = unsafe { libc::mincore(start as *mut _, pages * page, flags.as_mut_ptr()) };
        // Unmapped: nothing of it is resident.
        if ok != 0 {
            return 0;
        }
        flags.iter().filter(|f| *f & 1 == 1).count() * page
    }

    /// What a worker allocated and freed through mimalloc (the binary's allocator) is back
    /// with the system once its bytes are: mimalloc keeps freed memory resident for a
    /// moment, and the next photograph admitted would hold its own beside it.
    #[test]
    fn memory_freed_by_a_worker_is_returned_before_its_bytes_are() {
        let len = 64 << 20;
        let budget = Budget::new(len as u64);
        let mut keeper = budget.keeper();
        let held = keeper.hold(len as u64).unwrap();
        // SAFETY: a block of `len` bytes, written, then freed and never touched again.
        let p = unsafe {
            let p = libmimalloc_sys::mi_malloc(len).cast::<u8>();
            assert!(!p.is_null());
            std::ptr::write_bytes(p, 1, len);
            libmimalloc_sys::mi_free(p.cast());
            p
        };
        // Freed, it is still resident, and the worker still holds its bytes.
        drop(held);
        assert!(resident(p, len) > len / 2, "{}", resident(p, len));
        assert_eq!(budget.lock().free, 0);
        drop(keeper);
        assert!(resident(p, len) < len / 16, "{}", resident(p, len));
        assert_eq!(budget.lock().free, len as u64);
    }
}
