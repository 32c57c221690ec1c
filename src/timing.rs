//! Timing the steps of a run, for `--timings`.

use std::time::{Duration, Instant};

/// Times stages of a run.
#[derive(Debug, Default)]
pub(crate) struct Stopwatch {
    last: Option<Instant>,
    pub(crate) laps: Vec<(&'static str, Duration)>,
}

impl Stopwatch {
    pub(crate) fn start() -> Self {
        Stopwatch {
            last: Some(Instant::now()),
            laps: Vec::new(),
        }
    }

    pub(crate) fn lap(&mut self, stage: &'static str) {
        let now = Instant::now();
        if let Some(last) = self.last.replace(now) {
            self.laps.push((stage, now - last));
        }
    }
}
