//! Failure injection for the tests that prove a build never damages its output.
//!
//! Every step of the write stage that changes the file system first calls [`point`]. In a
//! debug build (what `cargo test` runs), the environment variable `CASEBOOK_FAULT` then
//! stops the process at a chosen step:
//!
//! - `kill:N` sends the process SIGKILL at the Nth step, as a power cut or `kill -9` would;
//! - `fail:N` makes the Nth step fail with an I/O error, as a full disk or a lost
//!   permission would;
//! - `count` prints `casebook-fault-points: N` on standard error when the process exits
//!   normally, so a test knows how many steps there are to stop at.
//!
//! Release builds compile [`point`] to nothing: the variable is not even read.

/// One step of the write stage that is about to change the file system.
#[inline]
pub(crate) fn point(step: &str) -> std::io::Result<()> {
    #[cfg(debug_assertions)]
    {
        injected::point(step)
    }
    #[cfg(not(debug_assertions))]
    {
        let _ = step;
        Ok(())
    }
}

/// Whether failures are being injected: then every build runs all its steps, none is
/// skipped as having nothing to do.
pub(crate) fn active() -> bool {
    #[cfg(debug_assertions)]
    {
        injected::plan().is_some()
    }
    #[cfg(not(debug_assertions))]
    {
        false
    }
}

#[cfg(debug_assertions)]
mod injected {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[derive(Clone, Copy)]
    pub(super) enum Plan {
        Kill(u64),
        Fail(u64),
        Count,
    }

    static STEPS: AtomicU64 = AtomicU64::new(0);

    pub(super) fn plan() -> Option<Plan> {
        static PLAN: OnceLock<Option<Plan>> = OnceLock::new();
        *PLAN.get_or_init(|| {
            let spec = std::env::var("CASEBOOK_FAULT").ok()?;
            let (what, n) = spec.split_once(':').unwrap_or((spec.as_str(), ""));
            match (what, n.parse::<u64>()) {
                ("kill", Ok(n)) => Some(Plan::Kill(n)),
                ("fail", Ok(n)) => Some(Plan::Fail(n)),
                ("count", _) => {
                    extern "C" fn print_count() {
                        eprintln!("casebook-fault-points: {}", STEPS.load(Ordering::SeqCst));
                    }
                    // SAFETY: registers a plain function with no captured state to run at exit.
                    unsafe { libc::atexit(print_count) };
                    Some(Plan::Count)
                }
                _ => None,
            }
        })
    }

    pub(super) fn point(step: &str) -> std::io::Result<()> {
        let Some(plan) = plan() else {
            return Ok(());
        };
        let n = STEPS.fetch_add(1, Ordering::SeqCst) + 1;
        match plan {
            Plan::Kill(at) if n == at => {
                // SAFETY: kill(2) on our own process id; nothing after it runs.
                unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
                std::process::abort()
            }
            Plan::Fail(at) if n == at => Err(std::io::Error::other(format!(
                "injected failure at step {n} ({step})"
            ))),
            _ => Ok(()),
        }
    }
}
