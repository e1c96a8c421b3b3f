//! The seeded workload generator: realistic tool-response batches and the needles planted in them.
//!
//! A [`Generator`] is built from a [`Scenario`] and produces batch `i` as a pure function of
//! (scenario, seed, i): each batch draws from its own `Stream`, so a batch is the same
//! whether it is generated alone, in a shard, in parallel or in sequence. `kinds` holds one file per kind of tool
//! output (the workload's [`Kind`]s), `hook_text` the text parts hooks add, `producer` the previews the runtime's
//! producers make of large outputs, `call_ids` the call ids of a batch, `cjk` and
//! `vocab` the Chinese and English text the kinds share, `exact` the results written to exactly the size an
//! empirical model draws, and `shapes` the fixed batch shapes the benches measure.
//! The size models and kinds themselves are the workload vocabulary ([`crate::workload`]). Text is
//! built by appending template fragments to a pre-sized buffer (`buf`), never one random character at a time, so
//! generation runs at hundreds of MB/s.

mod buf;
mod call_ids;
mod cjk;
mod context;
mod exact;
mod focus;
mod hook_text;
mod job;
mod kinds;
mod producer;
mod repeat;
mod shapes;
mod splice;
mod texture;
mod vocab;

pub use context::{SESSION_BATCHES, TASK_SESSIONS};
pub use job::{GenerateJob, GenerateRequest, GenerateStats, Shard, MAX_SHARDS};
pub use repeat::LOOKBACK;
pub use shapes::{BenchShape, ShapeText, SHAPE_SEED};

use std::sync::Arc;

use serde_json::Value;

use crate::batch_line::BatchGroup;
use crate::budget::PlanReminders;
use crate::context::TurnContext;
use crate::model::{Batch, Entry, Field, Part};
use crate::needles::Needle;
use crate::rng::{Seed, Stream};
use crate::scenario::Scenario;
use crate::workload::{Kind, SizeKey, SizeModel};
use buf::Written;

/// The per-scenario switches the kinds' generators read.
#[derive(Debug, Clone)]
pub(crate) struct Knobs {
    /// Share of shell logs written with ANSI colour codes.
    pub ansi_rate: f64,
    /// Share of JSON results that are pretty-printed.
    pub pretty_json_rate: f64,
    /// Share of MCP results whose `output` is a JSON object rather than a string.
    pub object_output_rate: f64,
    /// Share of prose (log messages, comments, docstrings, documentation, issues) written in Chinese.
    pub cjk_share: f64,
    /// Share of file reads and edits written as windowed file views.
    pub file_view_share: f64,
    /// Results drawn shorter than this are written by their kind's short form, when it has one (`kinds`); 0: never.
    pub short_units: usize,
    /// The plan-mode lifecycle reminders.
    pub reminders: PlanReminders,
    /// The model of a media part's base64 data, in bytes (the scenario's model of the media kind).
    pub media: SizeModel,
}

/// What one kind's generator is given: the batch's stream and the scenario's switches.
pub(crate) struct Ctx<'a> {
    /// The batch's random stream.
    pub rng: Stream,
    /// The scenario's switches.
    pub knobs: &'a Knobs,
}

/// An entry's output value: text, or a JSON value that is not a text field.
#[derive(Debug, Clone)]
pub(crate) enum Body {
    /// A string output, with its needles.
    Text(Written),
    /// A non-string output (finalizers leave it alone).
    Json(Value),
}

/// One entry as a kind's generator writes it, before it gets its call id and place in the batch.
#[derive(Debug, Clone)]
pub(crate) struct Draft {
    /// The tool (function) name.
    pub tool: String,
    /// `functionResponse.response.output`, if any.
    pub output: Option<Body>,
    /// `functionResponse.response.error`, if any.
    pub error: Option<Written>,
    /// Parts after the function response (media).
    pub media: Vec<Part>,
    /// `persistedOutputFiles`.
    pub persisted: Option<Vec<String>>,
    /// The entry's `status` key, for responses the runtime makes rather than a tool (see `simulate::Origin`).
    pub status: Option<&'static str>,
}

impl Draft {
    /// A draft with only an output.
    pub(crate) fn output(tool: &str, body: Body) -> Draft {
        Draft {
            tool: tool.to_string(),
            output: Some(body),
            error: None,
            media: Vec::new(),
            persisted: None,
            status: None,
        }
    }

    /// A draft with only an error.
    pub(crate) fn error(tool: &str, error: Written) -> Draft {
        Draft {
            tool: tool.to_string(),
            output: None,
            error: Some(error),
            media: Vec::new(),
            persisted: None,
            status: None,
        }
    }
}

/// One generated batch, with the needles planted in it.
#[derive(Debug, Clone, PartialEq)]
pub struct GeneratedBatch {
    /// The batch's index in its run.
    pub index: u64,
    /// The batch, in the format `budgetlab finalize` reads.
    pub batch: Batch,
    /// Every needle planted in the batch's text fields, in entry, part, field and offset order.
    pub needles: Vec<Needle>,
    /// What the runtime knew of the turn when it finalized it (the task, the calls, the assistant's text), when
    /// the source says.
    pub context: Option<Arc<TurnContext>>,
    /// The session and task the batch belongs to, when the source says.
    pub group: Option<BatchGroup>,
}

impl GeneratedBatch {
    /// Total UTF-8 bytes of the batch's text fields (text parts, string outputs, string errors).
    pub fn text_bytes(&self) -> usize {
        self.batch
            .iter()
            .flat_map(|e| &e.response_parts)
            .flat_map(|p| Field::ALL.into_iter().filter_map(move |f| p.field(f)))
            .map(str::len)
            .sum()
    }

    /// The size of each result (entry): UTF-16 units of its text parts, string output and string error.
    pub fn result_sizes(&self) -> Vec<usize> {
        self.batch.iter().map(result_size).collect()
    }
}

/// The size of one result as the calibration counts it: the UTF-16 units of the entry's text parts, string
/// outputs and string errors (media and non-string outputs do not count).
pub fn result_size(entry: &Entry) -> usize {
    entry
        .response_parts
        .iter()
        .flat_map(|p| Field::ALL.into_iter().filter_map(move |f| p.field(f)))
        .map(crate::text::utf16_len)
        .sum()
}

/// Generates the batches of one scenario.
#[derive(Debug, Clone)]
pub struct Generator {
    name: String,
    seed: Seed,
    scenario: Scenario,
    kinds: Vec<Kind>,
    weights: Vec<f64>,
    models: std::collections::BTreeMap<SizeKey, SizeModel>,
    knobs: Knobs,
    /// The exit-line styles' weights, in `ExitStyle::ALL` order.
    exit_weights: Vec<f64>,
}

impl Generator {
    /// A generator for `scenario` (already validated when it was loaded).
    pub fn new(scenario: &Scenario) -> Generator {
        let weights = scenario.kind_weights();
        Generator {
            name: scenario.name.clone(),
            seed: scenario.seed,
            kinds: weights.iter().map(|(k, _)| *k).collect(),
            weights: weights.iter().map(|(_, w)| *w).collect(),
            models: SizeKey::ALL
                .into_iter()
                .map(|k| (k, scenario.size_model(k)))
                .collect(),
            knobs: Knobs {
                ansi_rate: scenario.shape.ansi_rate,
                pretty_json_rate: scenario.shape.pretty_json_rate,
                object_output_rate: scenario.shape.object_output_rate,
                cjk_share: scenario.shape.cjk_share,
                file_view_share: scenario.texture.file_view_share,
                short_units: usize::try_from(scenario.texture.short_units).unwrap_or(usize::MAX),
                reminders: PlanReminders::default(),
                media: scenario.size_model(SizeKey::Kind(Kind::Media)),
            },
            exit_weights: texture::frame_weights(&scenario.texture),
            scenario: scenario.clone(),
        }
    }

    /// The scenario this generator was built from.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    fn model(&self, key: SizeKey) -> &SizeModel {
        &self.models[&key]
    }

    /// Batch `index`: a pure function of the scenario, its seed and `index`, with its turn context and group
    /// (`context`: drawn from streams of their own, so the entries are what they were before contexts).
    pub fn batch(&self, index: u64) -> GeneratedBatch {
        let mut generated = self.with_repeats(self.fresh_batch(index));
        let ident = context::task_ident(self.seed, &self.name, context::task_of(index));
        let focus = focus::apply(
            self.seed,
            &self.name,
            self.scenario.focus.share,
            &ident,
            &mut generated,
        );
        let context = context::turn_context(
            self.seed,
            &self.name,
            index,
            &generated.batch,
            &focus.arguments,
            &focus.assistant,
        );
        generated.context = Some(Arc::new(context));
        generated.group = Some(self.group(index));
        generated
    }

    /// The group of batch `index`: its scenario block (a session of [`SESSION_BATCHES`] consecutive batches, a
    /// task of [`TASK_SESSIONS`] sessions), named `<scenario>/session-<k>` and `<scenario>/task-<k>`.
    pub fn group(&self, index: u64) -> BatchGroup {
        context::group(&self.name, index)
    }

    /// Batch `index` before its repeats of earlier results (`repeat`) are put in.
    fn fresh_batch(&self, index: u64) -> GeneratedBatch {
        let shape = &self.scenario.shape;
        let texture = &self.scenario.texture;
        // The texture's own stream, so that the kinds' draws are the same with or without it.
        let mut textured = (!texture.is_default())
            .then(|| Stream::derive(self.seed, &format!("texture:{}", self.name), index));
        let mut c = Ctx {
            rng: Stream::for_batch(self.seed, &self.name, index),
            knobs: &self.knobs,
        };
        let size = &self.scenario.batch_size;
        let n = SizeModel::body(size.median, size.sigma)
            .clamped(size.min, size.max)
            .sample(&mut c.rng)
            .max(1);
        let giant_at = (c.rng.unit() < shape.giant_rate).then(|| c.rng.index(n));
        let mut batch: Batch = Vec::with_capacity(n);
        let mut needles = Vec::new();
        let mut ids = call_ids::CallIds::new(index);
        for e in 0..n {
            if e > 0 && c.rng.unit() < shape.duplicate_rate {
                let j = c.rng.index(e);
                let (entry, copied) = duplicate(&mut c.rng, &batch[j], &needles, j, e);
                batch.push(entry);
                needles.extend(copied);
                continue;
            }
            // With an empirical model the result is written to exactly the size drawn (`exact`).
            let mut exact = None;
            let (kind, target) = if giant_at == Some(e) {
                let kind = c.rng.pick(&[
                    Kind::Shell,
                    Kind::Shell,
                    Kind::Mcp,
                    Kind::FileRead,
                    Kind::Search,
                ]);
                (kind, self.model(SizeKey::Giant).sample(&mut c.rng))
            } else {
                let kind = self.kinds[c.rng.weighted(&self.weights)];
                match self.scenario.empirical.get(&kind) {
                    Some(table) => {
                        let size = table.sample(&mut c.rng);
                        exact = Some(size);
                        (kind, size)
                    }
                    None => (kind, self.model(kind.into()).sample(&mut c.rng)),
                }
            };
            let call_id = ids.next(&mut c.rng, shape.awkward_id_rate);
            // A shell output's framing is chosen first: the kind writes its own text to the size drawn, whatever
            // framing the style then puts around it.
            let frame = textured
                .as_mut()
                .and_then(|t| texture::frame_of(t, texture, &self.exit_weights, kind));
            let framed = target + frame.map_or(0, texture::framing_allowance);
            let writers = kinds::writers(kind);
            let write = match writers.short {
                Some(short) if target < self.knobs.short_units => short,
                _ => writers.long,
            };
            let mut draft = write(&mut c, framed);
            if let Some(t) = &mut textured {
                texture::frame(t, texture, &self.exit_weights, frame, kind, &mut draft);
            }
            producer::apply(&mut c.rng, &self.scenario, &call_id, &mut draft);
            if let Some(size) = exact {
                exact::fit(&mut c.rng, &mut draft, size);
            }
            let mut hook = (c.rng.unit() < shape.hook_text_rate).then(|| {
                let size = self.model(SizeKey::HookText).sample(&mut c.rng);
                hook_text::write(&mut c.rng, size)
            });
            if let Some(t) = &mut textured {
                texture::surface(t, texture, &mut draft, &mut hook);
            }
            if let Some(name) = texture.tool_names.get(&kind) {
                draft.tool.clone_from(name);
            }
            let (entry, placed) = assemble(e, call_id, draft, hook);
            batch.push(entry);
            needles.extend(placed);
        }
        GeneratedBatch {
            index,
            batch,
            needles,
            context: None,
            group: None,
        }
    }

    /// The results of batches `0..` until at least `count` results have been generated, as their sizes.
    pub fn result_sizes(&self, count: usize) -> Vec<usize> {
        let mut sizes = Vec::with_capacity(count + 64);
        let mut i = 0;
        while sizes.len() < count {
            sizes.extend(self.batch(i).result_sizes());
            i += 1;
        }
        sizes.truncate(count);
        sizes
    }
}

/// Places a draft at entry `e`: the function-response part first, then media, then the hook text part.
fn assemble(
    e: usize,
    call_id: String,
    draft: Draft,
    hook: Option<Written>,
) -> (Entry, Vec<Needle>) {
    let mut needles = Vec::new();
    let mut place = |w: &mut Written, part: usize, field: Field| {
        needles.extend(w.needles.drain(..).map(|p| Needle {
            kind: p.kind,
            text: p.text,
            entry: e,
            part,
            field,
            offset: p.offset,
        }));
    };
    let output = draft.output.map(|body| match body {
        Body::Text(mut w) => {
            place(&mut w, 0, Field::Output);
            Value::String(w.text)
        }
        Body::Json(v) => v,
    });
    let error = draft.error.map(|mut w| {
        place(&mut w, 0, Field::Error);
        Value::String(w.text)
    });
    // Output needles come before error needles: both are in part 0, and Field orders Output before Error.
    let mut parts = vec![Part::function_response(
        &call_id,
        &draft.tool,
        output,
        error,
    )];
    parts.extend(draft.media);
    if let Some(mut w) = hook {
        place(&mut w, parts.len(), Field::Text);
        parts.push(Part::text(w.text));
    }
    let mut entry = Entry::new(call_id, draft.tool, parts);
    entry.persisted_output_files = draft.persisted;
    if let Some(status) = draft.status {
        entry
            .extra
            .insert("status".into(), Value::String(status.into()));
    }
    (entry, needles)
}

/// Entry `e` repeating the call id of entry `j`: either the same response again (a duplicate the runtime
/// answers twice) or a short synthetic error.
fn duplicate(
    rng: &mut Stream,
    prev: &Entry,
    needles: &[Needle],
    j: usize,
    e: usize,
) -> (Entry, Vec<Needle>) {
    if rng.chance(0.5) {
        let copied = needles
            .iter()
            .filter(|n| n.entry == j)
            .map(|n| Needle {
                entry: e,
                ..n.clone()
            })
            .collect();
        (prev.clone(), copied)
    } else {
        let text = rng.pick(&[
            "Duplicate tool call: this call id was already answered earlier in the turn.",
            "Skipped: identical call already executed in this turn; see the earlier result.",
            "Synthetic response: the call was issued twice and only the first one ran.",
        ]);
        let part = Part::function_response(
            &prev.call_id,
            &prev.tool_name,
            None,
            Some(Value::String(text.into())),
        );
        let mut entry = Entry::new(prev.call_id.clone(), prev.tool_name.clone(), vec![part]);
        entry
            .extra
            .insert("status".into(), Value::String("duplicate".into()));
        (entry, Vec::new())
    }
}

/// A context for unit tests of the kinds' generators.
#[cfg(test)]
pub(crate) fn test_ctx(seed: u64) -> Ctx<'static> {
    use std::sync::OnceLock;
    static KNOBS: OnceLock<Knobs> = OnceLock::new();
    Ctx {
        rng: Stream::derive(Seed(seed), "unit-test", 0),
        knobs: KNOBS.get_or_init(|| Knobs {
            ansi_rate: 0.5,
            pretty_json_rate: 0.5,
            object_output_rate: 0.1,
            cjk_share: 0.0,
            file_view_share: 0.0,
            short_units: 0,
            reminders: PlanReminders::default(),
            media: SizeModel::body(2_000.0, 0.5),
        }),
    }
}
