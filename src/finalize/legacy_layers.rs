//! `legacy-layers`: the layered behaviour final-tool-response-budget.md replaces, in two stages.
//!
//! 1. Producers shorten their own output, each on its own: a shell output over 30,000 units becomes a marked
//!    head-and-tail preview of 30,000 units and its complete output is persisted; any other tool's output over
//!    25,000 units becomes a marked preview of 2,000 units, persisted the same way. Only `functionResponse`
//!    outputs of entries without a persistence decision are producer output (an entry with one has been
//!    through its producer already).
//! 2. The batch scheduler, when the batch is over its budget, offloads results to files, largest first, each to
//!    a marked 2,000-unit preview, until the batch fits, but skips every result with a field that starts with
//!    the truncation marker: it takes the marker as proof that the result was already dealt with. So several
//!    marker-bearing shell previews still exceed the budget together, which is the failure the design
//!    describes. The scheduler infers "done" from text, exactly what invariant 4 forbids.
//!
//! A marked preview is a note line (starting with [`LEGACY_MARKER`], naming the original length and the file)
//! followed by a one-fifth-head, four-fifths-tail preview with `\n...\n` between, all within its length. The two
//! stages are also available on their own ([`LegacyLayers::produce`], [`LegacyLayers::schedule`]) for the
//! runtime simulation, where the legacy headless mode runs one scheduler per call.

use super::artifacts::{slots_of_entry, EntryWriter};
use super::config::{LegacyLayersConfig, StrategyConfig, UNITS};
use super::head_share::HeadShare;
use super::param::{Param, Search, Setting};
use super::per_result::{join_paths, slot_tool};
use super::slots::{collect_slots, Slot, SlotScope};
use super::spec::{Build, Family, StrategySpec};
use super::{Finalizer, Outcome};
use crate::budget::BudgetContext;
use crate::model::{Batch, Field};
use crate::persist::ArtifactStore;
use crate::text::{head, tail, utf16_len};

/// The strategy's entry in the registry (see `finalize/spec.rs`).
pub(super) const SPEC: StrategySpec = StrategySpec {
    name: "legacy-layers",
    description: "replaced behaviour: producer previews (shell 30,000, others 2,000); the scheduler skips marked results",
    family: Family::Policy,
    caps: None,
    gives_up: &["budget-fits", "disabled-budget-noop"],
    params: &[
        Param {
            name: "shell_trigger",
            key: "legacy_layers.shell_trigger",
            description: "shell output longer than this (UTF-16 units) is shortened by its producer",
            field: Setting::Units(UNITS, |c| &mut c.legacy_layers.shell_trigger),
            search: Search::Log {
                low: 2_000,
                high: 100_000,
                points: 8,
            },
        },
        Param {
            name: "shell_preview",
            key: "legacy_layers.shell_preview",
            description: "the length of the shell producer's preview (at most shell_trigger)",
            field: Setting::Units(UNITS, |c| &mut c.legacy_layers.shell_preview),
            search: Search::Log {
                low: 500,
                high: 30_000,
                points: 8,
            },
        },
        Param {
            name: "other_trigger",
            key: "legacy_layers.other_trigger",
            description: "other tools' output longer than this is shortened by its producer",
            field: Setting::Units(UNITS, |c| &mut c.legacy_layers.other_trigger),
            search: Search::Log {
                low: 2_000,
                high: 100_000,
                points: 8,
            },
        },
        Param {
            name: "other_preview",
            key: "legacy_layers.other_preview",
            description: "the length of the other producers' preview (at most other_trigger)",
            field: Setting::Units(UNITS, |c| &mut c.legacy_layers.other_preview),
            search: Search::Log {
                low: 500,
                high: 20_000,
                points: 8,
            },
        },
        Param {
            name: "offload_preview",
            key: "legacy_layers.offload_preview",
            description: "the length of the preview the batch scheduler offloads a result to",
            field: Setting::Units(UNITS, |c| &mut c.legacy_layers.offload_preview),
            search: Search::Log {
                low: 500,
                high: 20_000,
                points: 8,
            },
        },
    ],
    build: Build::One(|config| Box::new(LegacyLayers::from_config(config))),
};

/// One stage of the legacy layers over a batch.
type Stage =
    fn(&LegacyLayers, &mut Batch, &BudgetContext, &mut dyn ArtifactStore, &mut EntryWriter);

/// How every legacy preview starts; the legacy scheduler skips results that start with it.
pub(crate) const LEGACY_MARKER: &str = "[tool output shortened";

/// The legacy layers.
#[derive(Debug, Clone)]
pub struct LegacyLayers {
    /// The producers' and the scheduler's thresholds.
    pub layers: LegacyLayersConfig,
    /// Tool names whose output is shell output.
    pub shell_tools: Vec<String>,
}

impl Default for LegacyLayers {
    fn default() -> Self {
        LegacyLayers::from_config(&StrategyConfig::default())
    }
}

impl LegacyLayers {
    /// The layers as `config` sets them.
    pub fn from_config(config: &StrategyConfig) -> Self {
        LegacyLayers {
            layers: config.legacy_layers,
            shell_tools: config.shell_tools.clone(),
        }
    }

    /// The producer stage alone.
    pub fn produce(
        &self,
        batch: Batch,
        ctx: &BudgetContext,
        store: &mut dyn ArtifactStore,
    ) -> Outcome {
        self.stages(batch, ctx, store, &[Self::produce_into])
    }

    /// The scheduler stage alone.
    pub fn schedule(
        &self,
        batch: Batch,
        ctx: &BudgetContext,
        store: &mut dyn ArtifactStore,
    ) -> Outcome {
        self.stages(batch, ctx, store, &[Self::schedule_into])
    }

    /// Runs `stages` in order over one batch, sharing one writer so no entry is persisted twice.
    fn stages(
        &self,
        mut batch: Batch,
        ctx: &BudgetContext,
        store: &mut dyn ArtifactStore,
        stages: &[Stage],
    ) -> Outcome {
        let mut writer = EntryWriter::new(&batch);
        for stage in stages {
            stage(self, &mut batch, ctx, store, &mut writer);
        }
        Outcome {
            batch,
            persisted: writer.into_attempts(),
        }
    }

    fn produce_into(
        &self,
        batch: &mut Batch,
        ctx: &BudgetContext,
        store: &mut dyn ArtifactStore,
        writer: &mut EntryWriter,
    ) {
        let slots = collect_slots(batch, &ctx.reminders, SlotScope::ALL);
        for e in 0..batch.len() {
            if batch[e].persisted_output_files.is_some() {
                continue;
            }
            let over: Vec<(Slot, u64)> = slots_of_entry(&slots, e)
                .iter()
                .filter(|s| s.field == Field::Output)
                .filter_map(|s| {
                    let shell = self
                        .shell_tools
                        .iter()
                        .any(|t| t == slot_tool(&batch[e], s));
                    let l = &self.layers;
                    let (trigger, preview) = if shell {
                        (l.shell_trigger, l.shell_preview)
                    } else {
                        (l.other_trigger, l.other_preview)
                    };
                    (s.len > trigger).then_some((*s, preview))
                })
                .collect();
            if over.is_empty() {
                continue;
            }
            let written: Vec<Slot> = over.iter().map(|(s, _)| *s).collect();
            writer.persist(batch, e, &written, store);
            for (slot, preview) in over {
                let text = slot.text(batch);
                let shortened = marked_preview(text, preview, batch[e].artifact_paths());
                slot.replace(batch, &shortened);
            }
        }
    }

    fn schedule_into(
        &self,
        batch: &mut Batch,
        ctx: &BudgetContext,
        store: &mut dyn ArtifactStore,
        writer: &mut EntryWriter,
    ) {
        let Some(limit) = ctx.budget.limit() else {
            return;
        };
        let slots = collect_slots(batch, &ctx.reminders, SlotScope::ALL);
        let mut total: u64 = slots.iter().map(|s| s.len).sum();
        if total <= limit {
            return;
        }
        let mut results: Vec<(usize, u64)> = (0..batch.len())
            .filter_map(|e| {
                let own = slots_of_entry(&slots, e);
                let marked = own.iter().any(|s| s.text(batch).starts_with(LEGACY_MARKER));
                (!own.is_empty() && !marked).then(|| (e, own.iter().map(|s| s.len).sum()))
            })
            .collect();
        results.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let preview = self.layers.offload_preview;
        for (e, _) in results {
            if total <= limit {
                break;
            }
            let own = slots_of_entry(&slots, e);
            if own.iter().all(|s| s.len <= preview) {
                continue;
            }
            writer.persist(batch, e, own, store);
            for slot in own.iter().filter(|s| s.len > preview) {
                let text = slot.text(batch);
                let shortened = marked_preview(text, preview, batch[e].artifact_paths());
                total -= slot.len - utf16_len(&shortened) as u64;
                slot.replace(batch, &shortened);
            }
        }
    }
}

/// A marked preview of `text` in at most `units` UTF-16 units: the note line, then head, `\n...\n`, tail.
pub(crate) fn marked_preview(text: &str, units: u64, paths: &[String]) -> String {
    let total = utf16_len(text);
    let note = if paths.is_empty() {
        format!("{LEGACY_MARKER} from {total} units; the full text was not saved]\n")
    } else {
        format!(
            "{LEGACY_MARKER} from {total} units; full text in {}]\n",
            join_paths(paths)
        )
    };
    let note_len = utf16_len(&note) as u64;
    if note_len >= units {
        return head(&note, units as usize).to_string();
    }
    let body = units - note_len;
    let mut out = note;
    if body <= 5 {
        out.push_str(head(text, body as usize));
        return out;
    }
    let content = body - 5;
    let head_units = HeadShare::DEFAULT.head_units(content);
    out.push_str(head(text, head_units as usize));
    out.push_str("\n...\n");
    out.push_str(tail(text, (content - head_units) as usize));
    out
}

impl Finalizer for LegacyLayers {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn finalize(
        &self,
        batch: Batch,
        ctx: &BudgetContext,
        store: &mut dyn ArtifactStore,
    ) -> Outcome {
        self.stages(
            batch,
            ctx,
            store,
            &[Self::produce_into, Self::schedule_into],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finalize::slots::budgeted_total;
    use crate::finalize::testing::{output_entry, output_error_entry, output_of, run, text_of};
    use crate::PlanReminders;

    fn total(outcome: &Outcome) -> u64 {
        budgeted_total(&outcome.batch, &PlanReminders::default(), SlotScope::ALL)
    }

    #[test]
    fn marker_bearing_shell_results_stay_over_budget() {
        let batch: Batch = (0..3)
            .map(|i| output_entry(&format!("sh{i}"), "shell", &"s".repeat(40_000)))
            .collect();
        let (out, store) = run(&LegacyLayers::default(), batch, 50_000, None);
        for e in 0..3 {
            let o = output_of(&out, e);
            assert!(o.starts_with(&format!(
                "[tool output shortened from 40000 units; full text in /tmp/sh{e}.txt]\n"
            )));
            assert_eq!(utf16_len(o), 30_000);
        }
        assert_eq!(total(&out), 90_000);
        assert_eq!(store.artifacts().len(), 3);
    }

    #[test]
    fn the_scheduler_offloads_unmarked_results_largest_first() {
        let batch = vec![
            output_entry("sh", "shell", &"s".repeat(40_000)),
            output_entry("small", "grep", &"g".repeat(10_000)),
            output_entry("big", "read_file", &"r".repeat(20_000)),
            output_entry("tiny", "read_file", "ok"),
        ];
        let (out, store) = run(&LegacyLayers::default(), batch, 40_000, None);
        // Producer: 30,000; scheduler: 20,000 and then 10,000 down to 2,000 each.
        assert_eq!(utf16_len(output_of(&out, 0)), 30_000);
        assert_eq!(utf16_len(output_of(&out, 1)), 2_000);
        assert_eq!(utf16_len(output_of(&out, 2)), 2_000);
        assert_eq!(output_of(&out, 3), "ok");
        assert_eq!(total(&out), 34_002);
        let ids: Vec<&str> = store.artifacts().iter().map(|a| a.id.as_str()).collect();
        assert_eq!(ids, ["sh", "big", "small"]);
    }

    #[test]
    fn the_scheduler_stops_once_the_batch_fits_and_keeps_fields_no_longer_than_its_preview() {
        let batch = vec![
            output_entry("sh", "shell", &"s".repeat(40_000)),
            output_entry("small", "grep", &"g".repeat(10_000)),
            output_error_entry("big", "read_file", &"r".repeat(20_000), &"e".repeat(2_000)),
        ];
        let (out, store) = run(&LegacyLayers::default(), batch, 45_000, None);
        // Producer: 30,000; then 62,000 left over 45,000: offloading `big` (its output to 2,000, its error of
        // exactly the preview kept) leaves 44,000, so `small` stays whole.
        assert_eq!(utf16_len(output_of(&out, 2)), 2_000);
        assert_eq!(text_of(&out, 2, 0, Field::Error), "e".repeat(2_000));
        assert_eq!(output_of(&out, 1), "g".repeat(10_000));
        assert_eq!(total(&out), 44_000);
        let ids: Vec<&str> = store.artifacts().iter().map(|a| a.id.as_str()).collect();
        assert_eq!(ids, ["sh", "big"]);
    }

    #[test]
    fn other_producers_cut_only_over_their_trigger() {
        let at = "a".repeat(25_000);
        let batch = vec![
            output_entry("at", "grep", &at),
            output_entry("over", "grep", &format!("{at}b")),
        ];
        let (out, store) = run(&LegacyLayers::default(), batch, -1, None);
        assert_eq!(output_of(&out, 0), at);
        assert_eq!(utf16_len(output_of(&out, 1)), 2_000);
        let ids: Vec<&str> = store.artifacts().iter().map(|a| a.id.as_str()).collect();
        assert_eq!(ids, ["over"]);
    }

    #[test]
    fn other_producers_keep_a_two_thousand_unit_preview() {
        let batch = vec![output_entry("m", "mcp_tool", &"j".repeat(26_000))];
        let (out, _) = run(&LegacyLayers::default(), batch, -1, None);
        let o = output_of(&out, 0);
        let note = "[tool output shortened from 26000 units; full text in /tmp/m.txt]\n";
        assert!(o.starts_with(note));
        assert_eq!(utf16_len(o), 2_000);
        // The note takes 66 units: 1929 of content, 385 head and 1544 tail.
        assert_eq!(
            o,
            format!("{note}{}\n...\n{}", "j".repeat(385), "j".repeat(1544))
        );
    }

    #[test]
    fn a_raw_output_that_starts_with_the_marker_is_taken_as_done() {
        let disguised = format!("{LEGACY_MARKER} by nobody]\n{}", "d".repeat(20_000));
        let batch = vec![output_entry("d", "grep", &disguised)];
        let (out, store) = run(&LegacyLayers::default(), batch, 1_000, None);
        assert_eq!(output_of(&out, 0), disguised);
        assert!(store.artifacts().is_empty());
    }
}
