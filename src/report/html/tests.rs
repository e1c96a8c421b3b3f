//! The pages' tests: what each shows, in which order, and that every number sorts by its raw value.

use super::super::export::tests::{known_row, one_batch};
use super::*;

#[test]
fn the_run_page_shows_the_pareto_fronts_after_the_answer() {
    let results = crate::report::pareto::tests::with_figures(
        crate::report::pareto::tests::small_run(),
        crate::report::pareto::tests::FIGURES,
    );
    let page = run_page(&results, &[], true, None);
    let answer = page.find("<h2 id=\"answer\">").unwrap();
    let pareto = page.find("<h2 id=\"pareto\">").unwrap();
    let inputs = page.find("<h2 id=\"inputs\">").unwrap();
    assert!(answer < pareto && pareto < inputs);
    assert!(page.contains("<a href=\"#pareto\">Trade-offs</a>"));
    assert!(
        page.contains(
            "<tr><td>surrogate-storm</td><td class=\"text\">1,000</td>\
<td class=\"text\">greedy = head-tail-0 (80% / 70%, 1.0 KiB)<br>reference (90% / 80%, 8.0 KiB)</td>\
<td class=\"text\">uniform (80% / 60%, 1.01x)<br>reference (90% / 80%, 1.02x)</td><td>4 of 5</td></tr>\n"
        ),
        "{page}"
    );
    // One line per scenario and budget, the scenario named once.
    let table = &page[pareto..inputs];
    assert_eq!(table.matches("<tr><td>").count(), 3);
    assert_eq!(table.matches("surrogate-storm").count(), 1);
}

#[test]
fn the_lines_the_agent_used_have_a_section_after_the_trade_offs_only_when_measured() {
    let results = crate::report::used::tests::used_run();
    let page = run_page(&results, &[], true, None);
    let pareto = page.find("<h2 id=\"pareto\">").unwrap();
    let used = page
        .find("<h2 id=\"used\">Needles the agent used</h2>")
        .unwrap();
    let inputs = page.find("<h2 id=\"inputs\">").unwrap();
    assert!(pareto < used && used < inputs);
    assert!(page.contains("<a href=\"#used\">Needles the agent used</a>"));
    let table = &page[used..inputs];
    assert!(
        table.contains(
            "<tr><td>surrogate-storm</td><td class=\"text\">1,000</td><td class=\"best\">1</td>\
<td class=\"text\">reference</td><td>6 of 10 (3 results)</td><td>60%</td><td>70%</td><td>8 (80%)</td><td>75%</td>\
<td>– / 14 of 20</td></tr>\n\
<tr><td></td><td class=\"text\"></td><td>2</td><td class=\"text\">greedy, head-tail-0</td><td>–</td><td>–</td>\
<td>–</td><td>–</td><td>–</td><td>– / 9 of 20</td></tr>\n"
        ),
        "{table}"
    );
    assert!(
        table.contains(
            "<td>over budget</td><td class=\"text\">codex (50% over)</td><td>–</td><td>–</td><td>–</td><td>–</td><td>–</td><td>– / 20 of 20</td>"
        ),
        "{table}"
    );
    assert!(
        table.contains(
            "<tr><td></td><td class=\"text\">7,001</td><td class=\"best\">1</td><td class=\"text\">reference</td>"
        ),
        "{table}"
    );
    assert!(
        table.contains("<td>–</td><td class=\"text\">greedy, head-tail-0, uniform</td><td>–</td>")
    );
    assert_eq!(table.matches("<tr><td").count(), 7);
    assert!(table.contains("<code>budgetlab import</code>"));

    // Without used lines: no section and no link to it, rather than a table of zeros.
    let plain = crate::report::pareto::tests::small_run();
    let page = run_page(&plain, &[], true, None);
    assert!(
        !page.contains("id=\"used\"") && !page.contains("#used") && !page.contains("agent used")
    );
}

#[test]
fn every_number_of_a_row_carries_its_raw_value_for_sorting_and_a_dash_sorts_last() {
    let r = known_row();
    let table = RowTable {
        unit: TimeUnit::Microseconds,
        bound: None,
    };
    assert_eq!(
        row_cells(&r, table),
        "<td class=\"bad\" data-v=\"0.25\">25.0%</td><td data-v=\"7\">7</td><td data-v=\"\">–</td>\
<td data-v=\"0.5\">50.0%</td><td data-v=\"0.75\">75.0% / 100.0%</td><td data-v=\"3\">3</td>\
<td class=\"bad\" data-v=\"1\">1</td><td data-v=\"1\">100.0%</td><td class=\"bad\" data-v=\"4\">4</td>\
<td data-v=\"12345\">12.3</td><td data-v=\"2.5\">2.50x</td>"
    );
    assert_eq!(
        row_columns(RowTable {
            unit: TimeUnit::Nanoseconds,
            ..table
        }),
        "<th>within budget</th><th>max overshoot</th><th>kept per field</th><th>budget used</th>\
<th>needles / possible</th><th>writes</th><th>duplicate writes</th><th>recoverable</th>\
<th>integrity issues</th><th>median cost (ns)</th><th>cost / floor</th>"
    );
    // A bound every row shares is said once, in the header.
    let shared = RowTable::of([&r, &r].into_iter());
    assert_eq!(
        shared,
        RowTable {
            unit: TimeUnit::Microseconds,
            bound: Some(1.0)
        }
    );
    assert!(row_columns(shared).contains("<th>needles kept (of 100.0% possible)</th>"));
    assert!(row_cells(&r, shared).contains("<td data-v=\"0.75\">75.0%</td>"));
    let mut other = r.clone();
    other.needles.upper_bound = Some(0.9);
    other.cost.median_ns = 9_999;
    assert_eq!(
        RowTable::of([&other, &other].into_iter()),
        RowTable {
            unit: TimeUnit::Nanoseconds,
            bound: Some(0.9)
        }
    );
    assert_eq!(RowTable::of([&r, &other].into_iter()).bound, None);
    for k in other.needles.by_kind.values_mut() {
        k.planted = 0;
    }
    assert_eq!(RowTable::of([&other, &other].into_iter()).bound, None);
    assert_eq!(num("", "x<y", None), "<td data-v=\"\">x&lt;y</td>");
    assert_eq!(num("", "–", Some(f64::NAN)), "<td data-v=\"\">–</td>");
}

#[test]
fn the_tables_of_rows_sort_and_the_answer_grouped_by_scenario_does_not() {
    let mut results = one_batch().results;
    results.rows = vec![known_row()];
    results.rows[0].compliance.violations = results.rows[0].batches;
    results.ranking = crate::metrics::ranking::rank(&results.rows);
    let page = run_page(&results, &[], true, None);
    // The answer, its scenario cell blank under the first of a scenario, keeps its order.
    assert_eq!(page.matches("<table class=\"answer\">").count(), 1);
    // The inputs, the overview and the one table of rows sort, with a head and a body.
    assert_eq!(
        page.matches("<table class=\"sortable\">\n<thead>").count(),
        2
    );
    assert_eq!(
        page.matches("<table class=\"sortable rows\">\n<thead>")
            .count(),
        1
    );
    assert_eq!(page.matches("</thead>\n<tbody>").count(), 3);
    assert_eq!(page.matches("</tbody></table>").count(), 3);
    // Over budget: no rank, sorted last; the median cost in the unit its header names.
    assert!(
        page.contains("<td data-v=\"\">over budget</td><td class=\"text\">reference</td>"),
        "{page}"
    );
    assert!(page.contains("<th>median cost (µs)</th>"), "{page}");
    assert!(page.contains("<td data-v=\"12345\">12.3</td>"), "{page}");
    // The script once, at the end, with no network.
    assert_eq!(page.matches("<script>").count(), 1);
    assert!(page.ends_with("</script>\n</body>\n</html>\n"));
    assert!(!page.contains("http://") && !page.contains("https://"));
}

#[test]
fn a_chart_with_points_carries_them_for_the_tooltips() {
    let chart = |hotspots| Rendered {
        stem: "budget-curves".into(),
        title: "Curves".into(),
        caption: "Read them.".into(),
        svg: Vec::new(),
        png: Vec::new(),
        hotspots,
    };
    let mut out = String::new();
    figures(
        &mut out,
        &[chart(vec![
            crate::report::chart::Hotspot {
                x: 0.25,
                y: 0.5,
                line: "reference".into(),
                values: "budget: 20,000\nkept: 94.8".into(),
            },
            crate::report::chart::Hotspot {
                x: 0.0657,
                y: 1.0,
                line: "a \"b\" <c>".into(),
                values: "x".into(),
            },
        ])],
    );
    assert!(
        out.starts_with(
            "<figure id=\"chart-budget-curves\" data-points=\"[[0.25,0.5,&quot;reference&quot;,\
&quot;budget: 20,000\\nkept: 94.8&quot;],[0.0657,1.0,&quot;a \\&quot;b\\&quot; &lt;c&gt;&quot;,&quot;x&quot;]]\">\n"
        ),
        "{out}"
    );
    let mut out = String::new();
    figures(&mut out, &[chart(Vec::new())]);
    assert!(
        out.starts_with("<figure id=\"chart-budget-curves\">\n"),
        "{out}"
    );
}

#[test]
fn text_is_escaped_and_backticks_become_code() {
    assert_eq!(
        escape("<a href=\"x\">&'"),
        "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
    );
    assert_eq!(
        prose("run `budgetlab sweep` <now>"),
        "run <code>budgetlab sweep</code> &lt;now&gt;"
    );
}
