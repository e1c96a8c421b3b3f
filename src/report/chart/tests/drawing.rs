//! How the charts look, from the same hand-made runs: one look per strategy, the lines, the bound, the files of
//! every source and the hotspots of line charts.

use super::*;

#[test]
fn every_strategy_has_one_look_on_every_chart_and_row_and_no_two_share_one() {
    let strategies = every_strategy();
    let results = run_with(
        &strategies,
        vec![
            ScenarioBudget::absolute(1000),
            ScenarioBudget::absolute(4000),
        ],
    );
    let curves = budget_curves(&results).unwrap().curves;
    let cdf = retention_cdf(&results, None);
    // Four rows of panels (batch allocations, head shares, content-aware allocations, policies) in both charts.
    assert_eq!(curves.panels.len(), 8);
    assert_eq!(cdf.panels.len(), 4);
    let mut looks: BTreeMap<String, StrategyStyle> = BTreeMap::new();
    for series in curves
        .panels
        .iter()
        .chain(&cdf.panels)
        .flat_map(|p| &p.series)
    {
        let look = style_of(series);
        assert_eq!(
            *looks.entry(series.name.clone()).or_insert(look),
            look,
            "{}",
            series.name
        );
        assert_eq!(look, style::strategy(&series.name));
    }
    assert_eq!(looks.len(), strategies.len());
    // Each row's legend shows the looks its lines are drawn in.
    for row in curves
        .panels
        .chunks(curves.columns)
        .chain(cdf.panels.chunks(1))
    {
        for entry in row_legend(row) {
            match entry.swatch {
                Swatch::Line {
                    style,
                    marker: true,
                } => assert_eq!(style, looks[&entry.label], "{}", entry.label),
                Swatch::Line {
                    style,
                    marker: false,
                } if entry.label.starts_with("upper bound") => assert_eq!(style, style::BOUND),
                other => panic!("{}: {other:?}", entry.label),
            }
        }
    }
    // The first line of each row after the reference used to take the first colour in every row.
    assert_eq!(looks["reference"], style::REFERENCE);
    for (a, b) in [
        ("send-guard", "head-tail-0"),
        ("send-guard", "legacy-layers"),
        ("head-tail-0", "legacy-layers"),
    ] {
        assert_ne!(looks[a], looks[b], "{a} and {b}");
    }
    let all: Vec<&StrategyStyle> = looks.values().collect();
    for (i, a) in all.iter().enumerate() {
        for b in &all[i + 1..] {
            assert_ne!(a, b);
        }
    }
}

#[test]
fn no_two_registered_strategies_share_a_colour_marker_and_dash_nor_in_grey_a_marker_and_dash() {
    let looks: Vec<StrategyStyle> = StrategyName::all()
        .iter()
        .map(|n| style::strategy(&n.as_str()))
        .collect();
    // Every registered strategy (19 today; the 8 markers and 3 dashes give 24 different pairs).
    assert!(looks.len() > 1 && looks.len() <= 24, "{}", looks.len());
    // The reference is listed first: black, solid and wider than every other line.
    assert_eq!(looks[0], style::REFERENCE);
    assert_eq!(
        (looks[0].colour, looks[0].width, looks[0].dash),
        (style::BASELINE, 4, Dash::Solid)
    );
    for (i, a) in looks.iter().enumerate().skip(1) {
        assert_eq!(a.width, 2);
        assert_ne!(a.colour, style::BASELINE);
        assert_ne!(a.colour, style::BOUND.colour);
        for b in &looks[i + 1..] {
            assert_ne!((a.colour, a.marker, a.dash), (b.colour, b.marker, b.dash));
            assert_ne!((a.marker, a.dash), (b.marker, b.dash));
        }
    }
    // Two spellings of one strategy look alike; a strategy the registry does not list (an external one) keeps
    // one look of its own, as does a line that is no strategy.
    assert_eq!(
        style::strategy("head-tail-1/2"),
        style::strategy("head-tail-0.5")
    );
    let external = style::strategy("headtail");
    assert_eq!(external, style::strategy("headtail"));
    assert!(!looks.contains(&external));
    assert!(!looks.contains(&style::strategy("head-tail-0.25")));
    assert!(!looks.contains(&style::other(0)));
}

#[test]
fn budget_curves_draw_every_budget_of_the_scenario_window_budgets_included() {
    let window = ScenarioBudget::window(100_000, 16_000);
    assert_eq!(window.units, 4800);
    // A window budget of the units of an absolute one would put two points of a line at one x.
    let twin = ScenarioBudget {
        label: BudgetLabel::Window(200_000),
        units: 4000,
        window_tokens: Some(200_000),
    };
    let results = run_with(
        &names(&["reference", "codex"]),
        vec![
            ScenarioBudget::absolute(4000),
            window.clone(),
            twin.clone(),
            ScenarioBudget::absolute(1000),
        ],
    );
    let curves = budget_curves(&results).unwrap();
    assert_eq!(
        curves.drawn,
        vec![
            ScenarioBudget::absolute(1000),
            ScenarioBudget::absolute(4000),
            window
        ]
    );
    assert_eq!(
        curves.left_out,
        vec![(
            twin,
            "the same 4,000 units as abs-4000, which is drawn".to_string()
        )]
    );
    for panel in &curves.curves.panels {
        assert_eq!(panel.marks, vec![(4800.0, "16k-token window".to_string())]);
        assert_eq!(panel.series.len(), 2);
        for series in &panel.series {
            let xs: Vec<f64> = series.points.iter().map(|p| p.0).collect();
            assert_eq!(xs, [1000.0, 4000.0, 4800.0], "{}", series.name);
        }
    }
    let plot = crate::report::chart::curves::plot(&crate::report::chart::Run {
        results: &results,
        turns: None,
    })
    .unwrap();
    assert!(
        plot.caption.contains(
            "at each of its 3 budgets drawn: 1,000, 4,000 and 4,800 (window-16000, the budget of a \
16,000-token window) UTF-16 units"
        ),
        "{}",
        plot.caption
    );
    assert!(
        plot.caption.contains(
            "Not drawn: window-200000 (the same 4,000 units as abs-4000, which is drawn)"
        ),
        "{}",
        plot.caption
    );
}

#[test]
fn the_upper_bound_is_drawn_over_the_lines_and_in_the_legend_only_where_there_is_one() {
    let (results, _) = run();
    let curves = budget_curves(&results).unwrap().curves;
    let bound = |entries: &[crate::report::chart::draw::legend::Entry]| {
        entries.iter().any(|e| e.label.starts_with("upper bound"))
    };
    assert!(bound(&row_legend(&curves.panels)));
    // Drawn over the lines: in the picture of the needle panel the bound's grey comes after the reference's wide
    // black line (and before the legend, which shows both again).
    let needles = crate::report::chart::curves::Curves {
        panels: vec![curves.panels[1].clone()],
        columns: 1,
    };
    let svg = String::from_utf8(
        crate::report::chart::curves::draw_grid(&needles, "t", crate::report::chart::Format::Svg)
            .unwrap()
            .bytes,
    )
    .unwrap();
    let black = svg.find(r##"stroke="#000000" stroke-width="4""##).unwrap();
    let grey = svg.find(r##"stroke="#6E6E6E" stroke-width="2""##).unwrap();
    assert!(black < grey);

    // Without needles there is no bound, in the panels or the legend.
    let mut none = results.clone();
    for r in &mut none.rows {
        r.needles.upper_bound = None;
    }
    let curves = budget_curves(&none).unwrap().curves;
    assert!(curves.panels.iter().all(|p| p.bound.is_none()));
    assert!(!bound(&row_legend(&curves.panels)));
}

#[test]
fn lines_on_the_same_pixels_are_named_together() {
    let a = vec![(0, 0), (10, 10)];
    let near_a = vec![(1, 2), (10, 8)];
    let apart = vec![(0, 0), (10, 20)];
    let shorter = vec![(0, 0)];
    assert_eq!(
        coinciding(&[a.clone(), apart, near_a, shorter, a]),
        vec![vec![0, 2, 4]]
    );
    assert!(coinciding(&[vec![], vec![]]).is_empty());
}

#[test]
fn the_cost_floor_chart_holds_each_rows_ratio_and_leaves_the_unmeasured_absent() {
    let (mut results, _) = run();
    for r in &mut results.rows {
        if r.strategy == "codex" && r.scenario == "b" {
            r.cost.floor_ratio = None;
        }
    }
    results
        .rows
        .retain(|r| !(r.strategy == "reference" && r.budget_label == "abs-4000"));
    let grid = cost_floor_grid(&results);
    assert_eq!(grid.strategies, names(&["reference", "codex"]));
    let lines: Vec<(String, String)> = grid
        .rows
        .iter()
        .map(|r| (r.scenario.clone(), r.budget.to_string()))
        .collect();
    assert_eq!(
        lines,
        [("a", "abs-1000"), ("a", "abs-4000"), ("b", "abs-1000")]
            .map(|(s, b)| (s.to_string(), b.to_string()))
    );
    for line in &grid.rows {
        for (strategy, ratio) in grid.strategies.iter().zip(&line.ratios) {
            let row = results.rows.iter().find(|r| {
                r.scenario == line.scenario
                    && r.budget_label == line.budget
                    && r.strategy == *strategy
            });
            assert_eq!(*ratio, row.and_then(|r| r.cost.floor_ratio));
        }
    }
    // Measured: the fixture's strategy took twice the floor's time.
    assert!(grid.rows[0]
        .ratios
        .iter()
        .all(|r| r.is_some_and(|r| (r - 2.0).abs() < 0.1)));
    // Not run, and not measured: absent, never 1 or 0.
    assert_eq!(grid.rows[1].ratios[0], None);
    assert_eq!(grid.rows[2].ratios[1], None);
    assert!(grid.rows[2].ratios[0].is_some());
}

#[test]
fn cost_is_binned_by_powers_of_two_of_the_batch_size() {
    let (results, records) = run();
    let cost = cost_curves(&results, Some(&tallied(&results, &records))).unwrap();
    let reference = &cost.panels[0].series[0];
    // Inputs of 3000 units (bin 2^11) and 33000 (bin 2^15); the median of 1000 and 1001 ns... per bin.
    assert_eq!(reference.points.len(), 2);
    assert!((reference.points[0].0 - 2f64.powf(11.5)).abs() < 1e-6);
    assert!((reference.points[0].1 - 1.0).abs() < 1e-9);
    assert!((reference.points[1].1 - 1.001).abs() < 1e-9);
    assert!(cost_curves(&results, None).is_none());
}

#[test]
fn the_overview_pools_every_row_of_a_strategy() {
    let (results, _) = run();
    let rows = overview(&results);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1].turns, 6);
    assert!((rows[1].compliance.unwrap() - 4.0 / 6.0).abs() < 1e-9);
    assert_eq!(rows[1].max_overshoot, 400);
    assert!((rows[1].retention.unwrap() - 0.25).abs() < 1e-9);
    // 50,000 ns is in the histogram bucket that starts at 49,152 (48 x 1,024: buckets 1/32 of their value wide).
    assert_eq!(rows[1].median_cost_ns, 49_152);
}

fn profile_info() -> SourceInfo {
    SourceInfo {
        name: "hand".into(),
        kind: SourceKind::Recorded,
        digest: "d".into(),
        seed: None,
        batches: 2,
    }
}

/// Outputs of several sizes and shapes: an exit line, CRLF, an astral character, JSON, an empty one and a long
/// coloured one.
fn profile_batches_fixture() -> Vec<Batch> {
    let entry = |tool: &str, output: &str| {
        Entry::new(
            "c",
            tool,
            vec![Part::function_response(
                "c",
                tool,
                Some(serde_json::json!(output)),
                None,
            )],
        )
    };
    let long = format!("\x1b[31merror: boom\x1b[0m\n{}", "x".repeat(12_000));
    vec![
        vec![
            entry("bash", "Exit code: 0\nhello\n"),
            entry("grep", "Found 2 matches\na.rs:1: x\r\nb.rs:2: y"),
        ],
        vec![
            entry("bash", ""),
            entry("read", "\u{1F600} caf\u{e9}\n"),
            entry("mcp", "{\"a\": 1, \"b\": [2]}"),
            entry("bash", &long),
        ],
    ]
}

#[test]
fn the_charts_draw_every_source_and_the_compared_one() {
    // A size CDF of one line per source on a log axis, the compared source last and marked; the shape features
    // side by side, one bar per source, and the mean summary position.
    let a = profile_batches(profile_info(), &profile_batches_fixture());
    let mut b = profile_scenario(&Scenario::shipped("shell-heavy").unwrap(), 5);
    b.source.name = "shell-heavy".into();
    let report = ProfileReport {
        schema_version: PROFILE_SCHEMA_VERSION,
        crate_version: "x".into(),
        profiles: vec![a.clone()],
        compare: Some(b.clone()),
    };
    let cdf = crate::report::chart::size_cdf::size_cdf(&report);
    let lines = &cdf.panels[0].series;
    assert_eq!(lines.len(), 2);
    assert_eq!((lines[0].baseline, lines[1].baseline), (false, true));
    assert_eq!(lines[1].name, "shell-heavy");
    for line in lines {
        assert!(line
            .points
            .windows(2)
            .all(|w| w[0].0 <= w[1].0 && w[0].1 <= w[1].1));
        assert!(line.points.iter().all(|p| p.0 >= 1.0));
        assert_eq!(line.points.last().unwrap().1, 100.0);
    }
    // The hand-built corpus's largest output is the last point of its line.
    assert_eq!(
        lines[0].points.last().unwrap().0,
        a.sizes.distribution.max.unwrap() as f64
    );
    let shape = crate::report::chart::shape::shape(&report);
    assert_eq!(
        shape.series,
        [a.source.name.clone(), "shell-heavy".to_string()]
    );
    assert_eq!(shape.groups.len(), 9);
    let group = |name: &str| &shape.values[shape.groups.iter().position(|g| g == name).unwrap()];
    assert_eq!(group("empty")[0], a.shape.empty.share.map(|s| s * 100.0));
    assert_eq!(
        group("repeated")[1],
        b.repeats.repeated.share.map(|s| s * 100.0)
    );
    assert_eq!(
        group("summary position")[0],
        a.shape.summary_position.mean.map(|m| m * 100.0)
    );
}

#[test]
fn every_chart_has_its_own_file_name() {
    let mut stems: Vec<&str> = crate::report::chart::CHARTS
        .iter()
        .map(|c| c.stem)
        .collect();
    let all = stems.len();
    stems.sort_unstable();
    stems.dedup();
    assert_eq!(stems.len(), all);
}

/// The RGB pixel at `(x, y)` shares of a PNG's width and height.
/// The darkest pixel (least sum of its channels) within `r` pixels of the point at shares `x`, `y` of a PNG: a
/// hollow marker is white at its centre and coloured on its ring.
fn darkest_near(png_bytes: &[u8], x: f64, y: f64, r: usize) -> [u8; 3] {
    let mut reader = png::Decoder::new(std::io::Cursor::new(png_bytes))
        .read_info()
        .unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    let (w, h) = (info.width as usize, info.height as usize);
    let (px, py) = (
        (x * w as f64).round() as usize,
        (y * h as f64).round() as usize,
    );
    let mut best = [255; 3];
    for qy in py.saturating_sub(r)..=(py + r).min(h - 1) {
        for qx in px.saturating_sub(r)..=(px + r).min(w - 1) {
            let at = (qy * w + qx) * 3;
            let p = [buf[at], buf[at + 1], buf[at + 2]];
            if p.iter().map(|&c| u32::from(c)).sum::<u32>()
                < best.iter().map(|&c| u32::from(c)).sum()
            {
                best = p;
            }
        }
    }
    best
}

#[test]
fn the_points_of_line_charts_are_hotspots_on_their_markers_and_bars_have_none() {
    let (results, records) = run();
    let turns = tallied(&results, &records);
    let charts = crate::report::chart::render(crate::report::chart::Source::Run(
        crate::report::chart::Run {
            results: &results,
            turns: Some(&turns),
        },
    ))
    .unwrap();
    let chart = |stem: &str| charts.iter().find(|c| c.stem == stem).unwrap();
    let curves = chart("budget-curves");
    let spots: Vec<(&str, &str)> = curves
        .hotspots
        .iter()
        .map(|h| (h.line.as_str(), h.values.as_str()))
        .collect();
    // Two panels, each the reference then codex at 1,000 and 4,000 units, in drawing order.
    let retention = |budget: &str, kept: &str| {
        format!(
            "Retention\nbudget (UTF-16 units): {budget}\nkept share per field, mean (%): {kept}"
        )
    };
    let needles = |budget: &str, kept: &str| {
        format!(
            "Needle survival\nbudget (UTF-16 units): {budget}\nneedles still visible (% of planted): {kept}"
        )
    };
    let expected = [
        ("reference", retention("1,000", "50")),
        ("reference", retention("4,000", "50")),
        ("codex", retention("1,000", "25")),
        ("codex", retention("4,000", "25")),
        ("reference", needles("1,000", "100")),
        ("reference", needles("4,000", "100")),
        ("codex", needles("1,000", "33.3")),
        ("codex", needles("4,000", "33.3")),
    ];
    assert_eq!(
        spots,
        expected
            .iter()
            .map(|(l, v)| (*l, v.as_str()))
            .collect::<Vec<_>>()
    );
    let h = &curves.hotspots;
    // A larger budget is further right, a higher value higher up, the right panel right of the left one.
    assert!(h[0].x < h[1].x && h[2].x < h[3].x && h[1].x < h[4].x);
    assert_eq!((h[0].y, h[0].x), (h[1].y, h[2].x));
    assert!(h[0].y < h[2].y && h[4].y < h[6].y);
    // Each sits on its marker, in the PNG as in the SVG (the same layout): codex, over budget in scenario a, on
    // the ring of a hollow grey one.
    for spot in h {
        let reach = if spot.line == "codex" { 6 } else { 3 };
        let [r, g, b] = darkest_near(&curves.png, spot.x, spot.y, reach);
        assert!(
            u32::from(r) + u32::from(g) + u32::from(b) < 450,
            "{spot:?}: no marker at it ({r}, {g}, {b})"
        );
    }
    // The cost chart: each strategy at its two sizes; the bar charts have no points.
    assert_eq!(chart("cost").hotspots.len(), 4);
    assert!(chart("compliance").hotspots.is_empty());
    assert!(chart("needles").hotspots.is_empty());
}

#[test]
fn a_strategy_over_budget_is_hollow_grey_and_never_first_on_the_needle_and_curve_charts() {
    let (results, _) = run();
    let n = needle_survival(&results);
    let over: Vec<bool> = n.rows.iter().map(|r| r.over_budget).collect();
    assert_eq!(over, [false, true]);
    // Run first, codex (over budget in scenario a) is still drawn after the reference.
    let mut swapped = results.clone();
    swapped.inputs.strategies.reverse();
    let n = needle_survival(&swapped);
    assert_eq!(n.rows[0].strategy, "codex");
    let drawn: Vec<&str> = n.drawn().iter().map(|r| r.strategy.as_str()).collect();
    assert_eq!(drawn, ["reference", "codex"]);
    // On the budget curves, every point of codex (over budget at both budgets of a) is marked, none of the
    // reference's, and the legend says what the hollow grey marker is.
    let curves = budget_curves(&results).unwrap().curves;
    for panel in &curves.panels {
        assert!(panel.series[0].over_budget.is_empty());
        assert_eq!(panel.series[1].name, "codex");
        assert_eq!(panel.series[1].over_budget, panel.series[1].points);
    }
    let legend = row_legend(&curves.panels);
    assert!(legend
        .iter()
        .any(|e| matches!(e.swatch, Swatch::Marker(s) if s == style::OVER_BUDGET)));
}
