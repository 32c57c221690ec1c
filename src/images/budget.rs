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
    free: Mutex<u64>,
    freed: Condvar,
}

/// Bytes held from a [`Budget`] until dropped.
#[derive(Debug)]
pub(crate) struct Held<'a> {
    budget: &'a Budget,
    bytes: u64,
}

impl Budget {
    pub(crate) fn new(total: u64) -> Budget {
        Budget {
            total,
            free: Mutex::new(total),
            freed: Condvar::new(),
        }
    }

    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// Waits until `bytes` are free and holds them; `None` if the budget could never hold
    /// them. A holder never asks for more, so waiting always ends.
    pub(crate) fn reserve(&self, bytes: u64) -> Option<Held<'_>> {
        if bytes > self.total {
            return None;
        }
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        while *free < bytes {
            free = self.freed.wait(free).unwrap_or_else(|e| e.into_inner());
        }
        *free -= bytes;
        Some(Held {
            budget: self,
            bytes,
        })
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        // The holder has freed its pixels by now, but mimalloc (the binary's allocator) keeps
        // freed memory resident for a second before it purges it, and a photograph admitted
        // in that second holds its own beside it: eight 100-megapixel PNGs peaked at
        // 1,097 MiB against a budget of 768 (benches/README.md). The budget's bytes go back
        // only once the memory has.
        // SAFETY: mi_collect only walks mimalloc's own structures; memory another allocator
        // holds is left alone.
        unsafe { libmimalloc_sys::mi_collect(true) };
        let mut free = self.budget.free.lock().unwrap_or_else(|e| e.into_inner());
        *free += self.bytes;
        self.budget.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn holders_never_exceed_the_budget_and_too_much_is_refused() {
        let budget = Budget::new(100);
        assert!(budget.reserve(101).is_none());
        let (held, peak) = (AtomicU64::new(0), AtomicU64::new(0));
        std::thread::scope(|s| {
            for i in 0..16u64 {
                let (budget, held, peak) = (&budget, &held, &peak);
                s.spawn(move || {
                    for _ in 0..50 {
                        let bytes = 10 + (i * 7) % 60;
                        let _h = budget.reserve(bytes).unwrap();
                        let now = held.fetch_add(bytes, Ordering::SeqCst) + bytes;
                        peak.fetch_max(now, Ordering::SeqCst);
                        std::thread::yield_now();
                        held.fetch_sub(bytes, Ordering::SeqCst);
                    }
                });
            }
        });
        assert!(peak.load(Ordering::SeqCst) <= 100);
        assert_eq!(*budget.free.lock().unwrap(), 100);
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

    /// What a holder allocated and freed through mimalloc (the binary's allocator) is back
    /// with the system once its reservation is: mimalloc keeps freed memory resident for a
    /// second, and the next photograph admitted would hold its own beside it.
    #[test]
    fn memory_freed_by_a_holder_is_returned_before_its_bytes_are() {
        let len = 64 << 20;
        let budget = Budget::new(len as u64);
        let held = budget.reserve(len as u64).unwrap();
        // SAFETY: a block of `len` bytes, written, then freed and never touched again.
        let p = unsafe {
            let p = libmimalloc_sys::mi_malloc(len).cast::<u8>();
            assert!(!p.is_null());
            std::ptr::write_bytes(p, 1, len);
            libmimalloc_sys::mi_free(p.cast());
            p
        };
        // Freed, it is still resident: what the reservation must not outlive.
        assert!(resident(p, len) > len / 2, "{}", resident(p, len));
        drop(held);
        assert!(resident(p, len) < len / 16, "{}", resident(p, len));
    }
}
