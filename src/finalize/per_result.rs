//! The engine of the per-result policies (`window-relative` and the peer agents): each budgeted field is judged
//! on its own against the policy's rule, with no batch-level cap. Fields the rule shortens are rewritten by the
//! policy; their entries are persisted first when the policy keeps a file, so the rewrite can name its path.
//!
//! A policy that is one rule and nothing more implements [`PerResultPolicy`] and is a strategy as
//! [`PerResult`]; a policy that does more (`claude-code`'s message cap) calls [`apply_rule`] itself.

use super::artifacts::persist_marked;
use super::cut_digests::{CutDigests, CutField};
use super::slots::{collect_slots, Slot, SlotScope};
use super::{Finalizer, Outcome};
use crate::budget::{BudgetContext, PlanReminders};
use crate::digest::KnownDigests;
use crate::model::{Batch, Entry, Field};
use crate::persist::ArtifactStore;

/// One per-result rule: which fields it shortens and how.
pub(crate) trait ResultRule {
    /// Which fields the rule sees: by default a tool response's output and error, not top-level text.
    fn scope(&self) -> SlotScope {
        SlotScope::TOOL_FIELDS
    }

    /// Whether an entry with a shortened field is persisted (once, and only without an earlier decision); by
    /// default not.
    fn persists(&self) -> bool {
        false
    }

    /// Whether `text`, the `field` of a result of `tool`, is shortened.
    fn shortens(&self, tool: &str, field: Field, text: &str) -> bool;

    /// Whether a rewrite names the full text's sha256 (`cut.sha256()`); the digests of the shortened fields are
    /// then computed ahead, on all cores when they are large. By default not.
    fn names_digest(&self) -> bool {
        false
    }

    /// The shortened field `cut`; `paths` are the entry's artifact paths (empty when none or when the write
    /// failed).
    fn rewrite(&self, tool: &str, cut: &CutField<'_>, paths: &[String]) -> String;
}

impl<R: ResultRule + ?Sized> ResultRule for &R {
    fn scope(&self) -> SlotScope {
        (**self).scope()
    }

    fn persists(&self) -> bool {
        (**self).persists()
    }

    fn shortens(&self, tool: &str, field: Field, text: &str) -> bool {
        (**self).shortens(tool, field, text)
    }

    fn names_digest(&self) -> bool {
        (**self).names_digest()
    }

    fn rewrite(&self, tool: &str, cut: &CutField<'_>, paths: &[String]) -> String {
        (**self).rewrite(tool, cut, paths)
    }
}

/// A strategy that is one per-result rule and nothing else; [`PerResult`] makes it a [`Finalizer`].
pub(crate) trait PerResultPolicy: Send + Sync {
    /// The strategy's stable name.
    const NAME: &'static str;

    /// The rule under `ctx`: a policy whose limit follows the context window resolves it here; a fixed rule is
    /// the policy itself.
    fn rule(&self, ctx: &BudgetContext) -> impl ResultRule + '_;
}

/// A [`PerResultPolicy`] as a [`Finalizer`]: its rule applied to every field in the rule's scope.
#[derive(Debug, Clone, Default)]
pub(crate) struct PerResult<P>(pub P);

impl<P: PerResultPolicy> Finalizer for PerResult<P> {
    fn name(&self) -> &str {
        P::NAME
    }

    fn finalize(
        &self,
        batch: Batch,
        ctx: &BudgetContext,
        store: &mut dyn ArtifactStore,
    ) -> Outcome {
        apply_rule(
            &self.0.rule(ctx),
            batch,
            &ctx.reminders,
            ctx.known_digests.as_deref(),
            store,
        )
    }
}

/// The tool a slot's result belongs to: the function response's name, else the entry's tool name.
pub(crate) fn slot_tool<'a>(entry: &'a Entry, slot: &Slot) -> &'a str {
    entry.response_parts[slot.part]
        .function_name(&entry.tool_name)
        .unwrap_or(&entry.tool_name)
}

/// Applies `rule` to every field of `batch` in the rule's scope.
pub(crate) fn apply_rule(
    rule: &dyn ResultRule,
    mut batch: Batch,
    reminders: &PlanReminders,
    known: Option<&KnownDigests>,
    store: &mut dyn ArtifactStore,
) -> Outcome {
    let slots = collect_slots(&batch, reminders, rule.scope());
    let marked: Vec<bool> = slots
        .iter()
        .map(|s| rule.shortens(slot_tool(&batch[s.entry], s), s.field, s.text(&batch)))
        .collect();
    if !marked.contains(&true) {
        return Outcome::unchanged(batch);
    }
    let persisted = if rule.persists() {
        persist_marked(&mut batch, &slots, &marked, store)
    } else {
        Vec::new()
    };
    let shortened = || {
        slots
            .iter()
            .zip(&marked)
            .filter(|(_, &m)| m)
            .map(|(slot, _)| slot)
    };
    let mut digests = if rule.names_digest() {
        CutDigests::new(shortened().map(|slot| slot.text(&batch)), known)
    } else {
        CutDigests::on_demand()
    };
    for slot in shortened() {
        let entry = &batch[slot.entry];
        let cut = CutField::next(slot.text(&batch), &mut digests);
        let rewritten = rule.rewrite(slot_tool(entry, slot), &cut, entry.artifact_paths());
        slot.replace(&mut batch, &rewritten);
    }
    Outcome { batch, persisted }
}

/// `paths` as a comma-separated list, for the notes the policies leave in a preview.
pub(crate) fn join_paths(paths: &[String]) -> String {
    paths.join(", ")
}
