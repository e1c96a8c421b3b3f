//! The fitted scenario as a scenario file: every knob the fit set, and the tools' mapping and the corpus it came
//! from as comments. The text is what the fit generates from (it is parsed back with [`Scenario::parse`]), so the
//! file written is exactly the scenario that was checked.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::scenario::ExitStyle;
use crate::workload::Kind;

/// Everything a fit sets: the scenario's knobs.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Params {
    /// Entries per batch: median, sigma, min, max.
    pub width: (f64, f64, u64, u64),
    /// Share of later entries repeating a call id of their batch.
    pub duplicate_rate: f64,
    /// The kinds' relative weights (only kinds with outputs).
    pub weights: BTreeMap<Kind, f64>,
    /// Each kind's size model, a table of quantiles: `[share, units]` points.
    pub tables: BTreeMap<Kind, Vec<[f64; 2]>>,
    /// The kinds whose table is written as an empirical model (`[empirical.KIND]`: the result's own size) rather
    /// than `[sizes.KIND]` (the size the kind writes its text to).
    pub empirical: BTreeSet<Kind>,
    /// The texture shares.
    pub astral: f64,
    /// See `astral`.
    pub non_ascii: f64,
    /// See `astral`.
    pub crlf: f64,
    /// See `astral`.
    pub ansi: f64,
    /// See `astral`.
    pub empty: f64,
    /// See `astral`.
    pub repeat: f64,
    /// See `astral`.
    pub summary_start: f64,
    /// See `astral`.
    pub file_view: f64,
    /// The exit styles' weights (empty: the generator's own).
    pub exit_styles: BTreeMap<ExitStyle, f64>,
    /// More exit styles, as last lines with `N` for the status, and their weights.
    pub exit_lines: BTreeMap<String, f64>,
    /// Results drawn shorter than this are written as short outputs (0: never).
    pub short_units: u64,
}

/// A number as TOML writes it: the shortest text that reads back as the same `f64`, with a decimal point.
fn num(v: f64) -> String {
    let s = format!("{v}");
    if s.contains(['.', 'e', 'E']) || s.contains("inf") || s.contains("NaN") {
        s
    } else {
        format!("{s}.0")
    }
}

/// A TOML basic string.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The scenario file: `header` as comment lines, then the knobs. `names` are the tool names the kinds' results
/// are recorded under.
pub(super) fn scenario_toml(
    header: &[String],
    name: &str,
    seed: u64,
    batches: u64,
    p: &Params,
    names: &BTreeMap<Kind, String>,
) -> String {
    let mut t = String::new();
    for line in header {
        if line.is_empty() {
            t.push_str("#\n");
        } else {
            let _ = writeln!(t, "# {line}");
        }
    }
    let _ = writeln!(t, "name = {}", quoted(name));
    let _ = writeln!(
        t,
        "description = {}",
        quoted("Fitted to a recorded corpus by budgetlab calibrate.")
    );
    let _ = writeln!(
        t,
        "seed = {seed}\nbatches = {batches}\nmode = \"interactive\"\n"
    );
    let (median, sigma, min, max) = p.width;
    let _ = writeln!(
        t,
        "[batch_size]\nmedian = {}\nsigma = {}\nmin = {min}\nmax = {max}\n",
        num(median),
        num(sigma)
    );
    t.push_str("[kinds]\n");
    for (kind, w) in &p.weights {
        let _ = writeln!(t, "{} = {}", kind.as_str(), num(*w));
    }
    for (kind, table) in &p.tables {
        let empirical = p.empirical.contains(kind);
        let table_name = if empirical { "empirical" } else { "sizes" };
        let _ = write!(t, "\n[{table_name}.{}]\nquantiles = [", kind.as_str());
        for (i, [share, units]) in table.iter().enumerate() {
            if i > 0 {
                t.push_str(", ");
            }
            let _ = write!(t, "[{}, {}]", num(*share), num(*units));
        }
        if empirical {
            t.push_str("]\n");
            continue;
        }
        let last = table.last().map_or(0.0, |p| p[1]);
        let _ = writeln!(t, "]\nmin = 0\nmax = {}", last.ceil() as u64);
    }
    let _ = writeln!(
        t,
        "\n[shape]\nduplicate_rate = {}\nawkward_id_rate = 0.0\nhook_text_rate = 0.0\ngiant_rate = 0.0\n\
         ansi_rate = 0.0\nobject_output_rate = 0.0\n",
        num(p.duplicate_rate)
    );
    let _ = writeln!(
        t,
        "[texture]\nastral_share = {}\nnon_ascii_share = {}\ncrlf_share = {}\nansi_share = {}\n\
         empty_share = {}\nrepeat_share = {}\nsummary_start_share = {}\nfile_view_share = {}",
        num(p.astral),
        num(p.non_ascii.max(p.astral)),
        num(p.crlf),
        num(p.ansi),
        num(p.empty),
        num(p.repeat),
        num(p.summary_start),
        num(p.file_view)
    );
    if !p.exit_styles.is_empty() {
        let styles: Vec<String> = p
            .exit_styles
            .iter()
            .map(|(s, w)| format!("{} = {}", s.as_str(), num(*w)))
            .collect();
        let _ = writeln!(t, "exit_styles = {{ {} }}", styles.join(", "));
    }
    if !p.exit_lines.is_empty() {
        let lines: Vec<String> = p
            .exit_lines
            .iter()
            .map(|(line, w)| format!("{} = {}", quoted(line), num(*w)))
            .collect();
        let _ = writeln!(t, "exit_lines = {{ {} }}", lines.join(", "));
    }
    if p.short_units > 0 {
        let _ = writeln!(t, "short_units = {}", p.short_units);
    }
    let named: Vec<String> = names
        .iter()
        .filter(|(k, _)| p.weights.contains_key(k))
        .map(|(k, n)| format!("{} = {}", k.as_str(), quoted(n)))
        .collect();
    if !named.is_empty() {
        let _ = writeln!(t, "tool_names = {{ {} }}", named.join(", "));
    }
    t.push_str("\n[budgets]\nabsolute = [20000, 50000, 200000]\n");
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    #[test]
    fn the_file_parses_back_to_the_knobs_it_was_written_from() {
        let p = Params {
            width: (2.0, 0.5, 1, 9),
            duplicate_rate: 0.01,
            weights: BTreeMap::from([(Kind::Shell, 3.0), (Kind::Mcp, 1.0 / 3.0)]),
            tables: BTreeMap::from([
                (
                    Kind::Shell,
                    vec![[0.0, 1.0], [0.5, 53.25], [1.0, 666_756.0]],
                ),
                (Kind::Mcp, vec![[0.0, 100.0], [1.0, 100.0]]),
            ]),
            astral: 0.0,
            non_ascii: 0.004_3,
            crlf: 0.1 + 0.2,
            ansi: 0.0,
            empty: 0.057,
            repeat: 0.02,
            summary_start: 1.0,
            file_view: 0.0,
            exit_styles: BTreeMap::from([(ExitStyle::None, 2.0), (ExitStyle::Returncode, 1.0)]),
            exit_lines: BTreeMap::from([("[The \"command\" ended with code N]".to_string(), 0.5)]),
            short_units: 400,
            empirical: BTreeSet::new(),
        };
        let names = BTreeMap::from([
            (Kind::Shell, "bash \"quoted\"".to_string()),
            (Kind::Edit, "unused".to_string()),
        ]);
        let text = scenario_toml(
            &["from x.jsonl".into(), String::new()],
            "fit",
            7,
            40,
            &p,
            &names,
        );
        assert!(
            text.starts_with("# from x.jsonl\n#\nname = \"fit\"\n"),
            "{text}"
        );
        let s = Scenario::parse(&text, "fit.toml").unwrap();
        assert_eq!((s.seed.0, s.batches), (7, 40));
        assert_eq!(s.kind_weights()[0], (Kind::Shell, 3.0));
        assert_eq!(
            s.kind_weights()
                .iter()
                .find(|k| k.0 == Kind::Mcp)
                .unwrap()
                .1,
            1.0 / 3.0
        );
        let shell = s.size_model(Kind::Shell.into());
        assert_eq!(shell.quantiles, p.tables[&Kind::Shell]);
        assert_eq!(shell.max, 666_756);
        assert_eq!(s.texture.crlf_share, Some(0.1 + 0.2), "exact floats");
        assert_eq!(s.texture.exit_styles, p.exit_styles);
        assert_eq!(s.texture.exit_lines, p.exit_lines);
        assert_eq!(s.texture.short_units, 400);
        assert_eq!(s.texture.tool_names.len(), 1, "only the kinds in use");
        assert_eq!(s.texture.tool_names[&Kind::Shell], "bash \"quoted\"");
        assert_eq!((s.batch_size.min, s.batch_size.max), (1, 9));
        assert!(s.empirical.is_empty());
        // A kind with an empirical model: its table under `[empirical.KIND]`, none under `[sizes.KIND]`.
        let mut p = p;
        p.empirical.insert(Kind::Mcp);
        let text = scenario_toml(&[], "fit", 7, 40, &p, &names);
        assert!(
            text.contains("\n[empirical.mcp]\nquantiles = [[0.0, 100.0], [1.0, 100.0]]\n"),
            "{text}"
        );
        assert!(!text.contains("[sizes.mcp]"), "{text}");
        let s = Scenario::parse(&text, "fit.toml").unwrap();
        assert_eq!(s.empirical[&Kind::Mcp].points(), p.tables[&Kind::Mcp]);
        assert_eq!(s.empirical.len(), 1);
        assert!(!s.sizes.contains_key(&Kind::Mcp.into()));
    }
}
