//! Rows that pass their checks wait in a batch; a full batch is made into case files and
//! read back on the thread pool while the next one is read and checked. Outcomes and
//! problems are then taken in row order, so the result is the same as one row at a time.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, sync_channel};

use rayon::prelude::*;

use super::readback;
use super::rows::{Layout, Problems, Record};
use super::sheet::Row;
use super::{Existing, KEPT_TEXT_LIMIT, Plan, change, create};
use crate::config::CaseSchema;
use crate::error::{Diagnostic, Error, Result};

/// Rows that passed their checks, waiting to be made into files and read back; the batch
/// before them, being made on the pool; and what the batches before that made.
#[derive(Default)]
pub(super) struct Batches {
    waiting: Vec<Waiting>,
    /// The waiting rows' problems, in row order (the first hundred kept, the rest counted).
    pub(super) problems: Problems,
    bytes: usize,
    in_flight: Option<InFlight>,
    gathered: Gathered,
}

struct Waiting {
    row: Row,
    record: Record,
    /// How many of the batch's problems came before this row's file is made.
    problems_before: usize,
}

/// A batch is made into files when it holds this many rows or this much cell text: enough
/// to keep every core busy, little enough to keep memory bounded.
const BATCH_ROWS: usize = 1024;
const BATCH_BYTES: usize = 4 << 20;

/// What the batches have made.
#[derive(Default)]
pub(super) struct Gathered {
    pub(super) plans: Vec<Plan>,
    pub(super) unchanged: usize,
    /// The text the plans hold, against `KEPT_TEXT_LIMIT`.
    kept: usize,
}

/// What became of one row that passed its checks.
enum Outcome {
    Write(Plan),
    Unchanged,
    Problem(Diagnostic),
}

/// Turns checked rows into the files they would write.
pub(super) struct Planner<'a> {
    pub(super) schema: &'a CaseSchema,
    pub(super) existing: &'a HashMap<String, Existing>,
    pub(super) root: &'a Path,
}

impl Planner<'_> {
    fn outcome(&self, layout: &Layout, waiting: &Waiting) -> Outcome {
        let (schema, record) = (self.schema, &waiting.record);
        let plan = match self.existing.get(&record.id) {
            Some(file) => match change(schema, record, file) {
                Ok(Some(plan)) => plan,
                Ok(None) => return Outcome::Unchanged,
                Err(d) => return Outcome::Problem(d),
            },
            None => {
                let plan = create(schema, record);
                if self.root.join(&plan.file).exists() {
                    return Outcome::Problem(
                        Diagnostic::new(&plan.file, format!("the sheet adds case `{}`, but this file is already there with another {}", record.id, schema.id_field))
                            .hint("correct the id in the sheet or in the file: one folder holds one case"),
                    );
                }
                plan
            }
        };
        match readback::check(schema, layout, &waiting.row, record, &plan) {
            Ok(()) => Outcome::Write(plan),
            Err(d) => Outcome::Problem(d),
        }
    }
}

impl Batches {
    pub(super) fn push(&mut self, row: Row, record: Record) {
        self.bytes += row.byte_size();
        self.waiting.push(Waiting {
            row,
            record,
            problems_before: self.problems.count(),
        });
    }

    /// Once the waiting rows fill a batch: takes in the batch before them, then starts
    /// making theirs on the pool.
    pub(super) fn advance<'scope>(
        &mut self,
        scope: &rayon::Scope<'scope>,
        planner: &'scope Planner<'scope>,
        layout: &Arc<Layout>,
        diags: &mut Problems,
    ) -> Result<()> {
        if self.waiting.len() < BATCH_ROWS && self.bytes < BATCH_BYTES {
            return Ok(());
        }
        self.settle(diags)?;
        self.dispatch(scope, planner, layout);
        Ok(())
    }

    /// Makes the last rows into files and takes in every batch: all the sheet made.
    pub(super) fn finish<'scope>(
        mut self,
        scope: &rayon::Scope<'scope>,
        planner: &'scope Planner<'scope>,
        layout: &Arc<Layout>,
        diags: &mut Problems,
    ) -> Result<Gathered> {
        self.settle(diags)?;
        self.dispatch(scope, planner, layout);
        self.settle(diags)?;
        Ok(self.gathered)
    }

    /// Starts making the waiting rows' files on the pool (the batch before must be settled).
    fn dispatch<'scope>(
        &mut self,
        scope: &rayon::Scope<'scope>,
        planner: &'scope Planner<'scope>,
        layout: &Arc<Layout>,
    ) {
        let waiting = std::mem::take(&mut self.waiting);
        let layout = Arc::clone(layout);
        let (done, outcomes) = sync_channel(1);
        scope.spawn(move |_| {
            let made: Vec<Outcome> = waiting
                .par_iter()
                .map(|w| planner.outcome(&layout, w))
                .collect();
            // The receiver is gone only when the import already failed.
            let _ = done.send((waiting, made, layout));
        });
        self.bytes = 0;
        self.in_flight = Some(InFlight {
            problems: std::mem::take(&mut self.problems),
            outcomes,
        });
    }

    fn settle(&mut self, diags: &mut Problems) -> Result<()> {
        match self.in_flight.take() {
            Some(batch) => batch.settle(&mut self.gathered, diags),
            None => Ok(()),
        }
    }
}

/// A batch whose files are being made on the pool.
struct InFlight {
    problems: Problems,
    outcomes: Receiver<(Vec<Waiting>, Vec<Outcome>, Arc<Layout>)>,
}

impl InFlight {
    /// Takes the batch's outcomes and problems in row order, as if each row had been handled
    /// alone.
    fn settle(self, gathered: &mut Gathered, diags: &mut Problems) -> Result<()> {
        let (waiting, outcomes, layout) = self
            .outcomes
            .recv()
            .expect("a dispatched batch always sends its outcomes");
        let (problems, uncounted) = self.problems.into_parts();
        let mut problems = problems.into_iter().enumerate().peekable();
        for (waiting, outcome) in waiting.into_iter().zip(outcomes) {
            while let Some((_, d)) = problems.next_if(|(i, _)| *i < waiting.problems_before) {
                diags.push(d);
            }
            match outcome {
                Outcome::Unchanged => gathered.unchanged += 1,
                Outcome::Problem(d) => diags.push(d),
                Outcome::Write(plan) => {
                    gathered.kept += plan.text.len() + plan.id.len() + 256;
                    if gathered.kept > KEPT_TEXT_LIMIT {
                        return Err(Error::one(
                            layout
                                .table
                                .at(waiting.row.at, format!("the cases up to this row hold more than {} MiB of text, more than one import takes", KEPT_TEXT_LIMIT >> 20))
                                .hint("split the sheet into smaller sheets and import each"),
                        ));
                    }
                    gathered.plans.push(plan);
                }
            }
        }
        diags.extend(problems.map(|(_, d)| d));
        diags.count_more(uncounted);
        Ok(())
    }
}
