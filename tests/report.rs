//! The drawn report end to end: `run --quick` leaves the charts (SVG and PNG) and an index.html showing all of
//! them, `report` redraws them from the results alone, charts render with no system fonts, sweeps write their
//! folder, bad input is one line and exit 2, and (where Chromium is installed, always under `CI=true`) the page
//! renders in a browser.

use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::sync::OnceLock;

use assert_cmd::Command;

fn budgetlab() -> Command {
    Command::cargo_bin("budgetlab").unwrap()
}

/// One `run --quick` report shared by the tests that only read it.
fn quick_report() -> &'static Path {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, path) = DIR.get_or_init(|| {
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("quick");
        budgetlab()
            .args(["run", "--quick", "--out"])
            .arg(&out)
            .assert()
            .success();
        (root, out)
    });
    path
}

/// Copies a report folder's files (not its charts or page) into a fresh folder.
fn copy_results(from: &Path, files: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in files {
        std::fs::copy(from.join(f), dir.path().join(f)).unwrap();
    }
    dir
}

fn chart_stems(dir: &Path) -> Vec<String> {
    let mut stems: Vec<String> = std::fs::read_dir(dir.join("charts"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "svg"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    stems.sort();
    stems
}

/// Decodes a PNG into (width, height, RGB bytes).
fn decode_png(path: &Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    let rgb = match info.color_type {
        png::ColorType::Rgb => buf,
        png::ColorType::Rgba => buf.chunks(4).flat_map(|p| [p[0], p[1], p[2]]).collect(),
        other => panic!("{}: unexpected colour type {other:?}", path.display()),
    };
    (info.width, info.height, rgb)
}

/// Dark pixels in the top `rows` rows of a PNG: the title's text.
fn ink_in_title(path: &Path, rows: u32) -> usize {
    let (w, _, rgb) = decode_png(path);
    rgb[..(w * rows * 3) as usize]
        .chunks(3)
        .filter(|p| p.iter().all(|&c| c < 100))
        .count()
}

#[test]
fn run_leaves_eight_charts_in_both_formats_and_a_page_showing_them_all() {
    let dir = quick_report();
    let stems = chart_stems(dir);
    assert_eq!(
        stems,
        [
            "budget-curves",
            "compliance",
            "cost",
            "cost-floor",
            "needles",
            "overshoot",
            "pareto",
            "persistence",
            "retention-cdf"
        ]
    );
    let page = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(
        !page.contains("http://") && !page.contains("https://"),
        "the page must not need the network"
    );
    for stem in &stems {
        let svg = std::fs::read_to_string(dir.join(format!("charts/{stem}.svg"))).unwrap();
        assert!(svg.contains("<svg") && svg.contains("<text"), "{stem}.svg");
        let png = dir.join(format!("charts/{stem}.png"));
        assert!(ink_in_title(&png, 40) > 200, "{stem}.png has no title text");
        assert!(
            page.contains(&format!("src=\"charts/{stem}.svg\"")),
            "{stem}.svg not shown"
        );
        assert!(
            page.contains(&format!("href=\"charts/{stem}.png\"")),
            "{stem}.png not linked"
        );
        assert!(
            page.contains(&format!("id=\"chart-{stem}\"")),
            "{stem} has no figure"
        );
    }
    assert_eq!(page.matches("<figcaption>").count(), stems.len());
    for input in [
        "mixed-realistic",
        "reference",
        "swe-agent",
        "digest (SHA-256)",
        "seed",
    ] {
        assert!(page.contains(input), "the page lacks {input}");
    }
}

#[test]
fn report_redraws_charts_and_page_from_the_results_alone() {
    let quick = quick_report();
    let full = copy_results(quick, &["results.json", "batches.jsonl"]);
    let out = budgetlab().arg("report").arg(full.path()).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(chart_stems(full.path()), chart_stems(quick));
    for stem in chart_stems(quick) {
        let svg = |d: &Path| std::fs::read(d.join(format!("charts/{stem}.svg"))).unwrap();
        if stem != "cost" {
            // Everything but the timings is deterministic.
            assert_eq!(
                svg(full.path()),
                svg(quick),
                "{stem}.svg differs after a redraw"
            );
        }
    }
    assert_eq!(
        std::fs::read_to_string(full.path().join("index.html")).unwrap(),
        std::fs::read_to_string(quick.join("index.html")).unwrap()
    );

    // Without batches.jsonl: the per-turn charts fall back on the rows and the cost chart is left out.
    let rows_only = copy_results(quick, &["results.json"]);
    budgetlab()
        .arg("report")
        .arg(rows_only.path())
        .assert()
        .success();
    let stems = chart_stems(rows_only.path());
    assert_eq!(
        stems,
        [
            "budget-curves",
            "compliance",
            "cost-floor",
            "needles",
            "overshoot",
            "pareto",
            "persistence",
            "retention-cdf"
        ]
    );
    let page = std::fs::read_to_string(rows_only.path().join("index.html")).unwrap();
    assert!(page.contains("no <code>batches.jsonl</code>"));
}

#[test]
fn charts_render_with_no_system_fonts() {
    let quick = quick_report();
    let dir = copy_results(quick, &["results.json"]);
    let empty = dir.path().join("fonts.conf");
    std::fs::write(
        &empty,
        "<?xml version=\"1.0\"?>\n<fontconfig></fontconfig>\n",
    )
    .unwrap();
    let out = budgetlab()
        .env("FONTCONFIG_FILE", &empty)
        .env("FONTCONFIG_PATH", dir.path())
        .env("XDG_DATA_HOME", dir.path())
        .env("HOME", dir.path())
        .arg("report")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for stem in chart_stems(dir.path()) {
        let png = dir.path().join(format!("charts/{stem}.png"));
        assert!(ink_in_title(&png, 40) > 200, "{stem}.png has no title text");
    }
    // plotters' `ttf` feature would look fonts up through the system (font-kit): it must not be compiled in,
    // not even through a dev-dependency's features.
    let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.lock")).unwrap();
    assert!(
        !lock.contains("name = \"font-kit\""),
        "font-kit is in Cargo.lock"
    );
    assert!(
        !lock.contains("name = \"yeslogic-fontconfig-sys\""),
        "fontconfig is in Cargo.lock"
    );
}

#[test]
fn sweeps_write_results_charts_and_a_page() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("sweep");
    budgetlab()
        .args([
            "sweep",
            "--scenario",
            "many-small",
            "--budgets",
            "2000..20000",
            "--steps",
            "3",
            "--batches",
            "2",
            "--strategies",
            "reference,greedy",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    let sweep: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("sweep.json")).unwrap()).unwrap();
    assert_eq!(sweep["axis"], "budget");
    let points = sweep["points"].as_array().unwrap();
    let values: Vec<f64> = points
        .iter()
        .map(|p| p["value"].as_f64().unwrap())
        .collect();
    assert_eq!(values.len(), 3);
    assert_eq!(values[0], 2000.0);
    assert_eq!(values[2], 20_000.0);
    assert!(points
        .iter()
        .all(|p| p["rows"].as_array().unwrap().len() == 2));
    assert_eq!(
        chart_stems(&out),
        [
            "sweep-compliance",
            "sweep-needles",
            "sweep-retention",
            "sweep-writes"
        ]
    );
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(page.contains("src=\"charts/sweep-retention.svg\""));

    // The folder redraws from sweep.json.
    std::fs::remove_dir_all(out.join("charts")).unwrap();
    budgetlab().arg("report").arg(&out).assert().success();
    assert_eq!(chart_stems(&out).len(), 4);

    // Head shares: one line per budget, the points the shares.
    let shares = root.path().join("shares");
    budgetlab()
        .args([
            "sweep",
            "--scenario",
            "many-small",
            "--head-shares",
            "--steps",
            "3",
            "--batches",
            "1",
            "--out",
        ])
        .arg(&shares)
        .assert()
        .success();
    let sweep: serde_json::Value =
        serde_json::from_slice(&std::fs::read(shares.join("sweep.json")).unwrap()).unwrap();
    assert_eq!(sweep["axis"], "head-share");
    assert_eq!(
        sweep["strategies"],
        serde_json::json!(["head-tail-0", "head-tail-0.5", "head-tail-1"])
    );
}

fn expect_bad_input(args: &[&str], needle: &str) {
    let out = budgetlab().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_report_and_sweep_input_is_one_line_and_exit_2() {
    let empty = tempfile::tempdir().unwrap();
    let dir = empty.path().to_str().unwrap();
    expect_bad_input(&["report", dir], "results.json");
    let sweep = |range: &str| {
        vec![
            "sweep",
            "--scenario",
            "mixed-realistic",
            "--budgets",
            range,
            "--out",
            dir,
        ]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>()
    };
    for (range, needle) in [
        ("5..2", "FROM must be less than TO"),
        ("x..y", "invalid --budgets \"x..y\""),
        ("2000", "expected FROM..TO"),
    ] {
        let args = sweep(range);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        expect_bad_input(&args, needle);
    }
    expect_bad_input(
        &[
            "sweep",
            "--scenario",
            "no-such-scenario",
            "--budgets",
            "2000..20000",
            "--out",
            dir,
        ],
        "not a shipped scenario",
    );
    expect_bad_input(
        &[
            "sweep",
            "--scenario",
            "mixed-realistic",
            "--budgets",
            "2000..20000",
            "--steps",
            "1",
            "--out",
            dir,
        ],
        "--steps",
    );
    expect_bad_input(&["sweep", "--scenario", "mixed-realistic"], "required");
    expect_bad_input(
        &[
            "sweep",
            "--scenario",
            "mixed-realistic",
            "--budgets",
            "1..9",
            "--windows",
            "1..9",
        ],
        "cannot be used with",
    );
    // Nothing was written by the failed commands.
    assert_eq!(std::fs::read_dir(empty.path()).unwrap().count(), 0);
}

/// A Chromium-family browser on PATH, if any.
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ]
    .iter()
    .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
    .find(|p| p.is_file())
}

/// Chromium's flags for a headless page of `size` with a fresh profile in `profile`.
fn headless(browser: &Path, profile: &Path, size: &str) -> Process {
    let mut cmd = Process::new(browser);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--hide-scrollbars",
    ])
    .arg(format!("--window-size={size}"))
    .arg(format!(
        "--user-data-dir={}",
        profile.join("profile").display()
    ));
    cmd
}

/// What the page does at `size`, measured by a script in a copy of `index.html` (its relative links kept by a
/// `<base>`), as `key=value` words:
/// - where the answer table starts and its first row ends, and whether it fits the page's width;
/// - with every `<details>` open, how many tables there are and by how many pixels the widest of them is cut
///   off (wider than the page's column or than the box scrolling it), before the clicks below or after them;
/// - clicks on headers of the first table of rows: whether its strategy column then reads in ascending and, on a
///   second click, descending order (and not the served order), and its median cost in ascending order of the
///   cells' raw values, a cell without one last;
/// - how many points the budget-curve and cost charts carry, and whether the pointer on one shows its line and
///   values in a tooltip, and away from every point hides it;
/// - how many of the charts' images loaded.
fn probe(browser: &Path, report: &Path, size: &str) -> std::collections::BTreeMap<String, f64> {
    let profile = tempfile::tempdir().unwrap();
    let page = std::fs::read_to_string(report.join("index.html")).unwrap();
    let base = format!(
        "<head><base href=\"file://{}/\">",
        report.canonicalize().unwrap().display()
    );
    let probe = r#"<script>window.addEventListener('load', () => {
  const words = [];
  const put = (k, v) => words.push(k + '=' + Number(v));
  const t = document.querySelector('table.answer');
  const main = document.querySelector('main');
  put('answerTop', t.getBoundingClientRect().top);
  put('firstRowBottom', t.querySelectorAll('tr')[1].getBoundingClientRect().bottom);
  put('overflow', t.parentElement.scrollWidth - t.parentElement.clientWidth);
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const right = main.getBoundingClientRect().right - parseFloat(getComputedStyle(main).paddingRight);
  const tables = [...document.querySelectorAll('table')];
  put('tables', tables.length);
  const cutOff = () => Math.max(...tables.map(x => Math.max(x.getBoundingClientRect().right - right,
    x.parentElement.scrollWidth - x.parentElement.clientWidth)));
  const before = cutOff();
  const rows = document.querySelector('table.sortable.rows');
  const heads = [...rows.tHead.rows[0].cells];
  const column = name => heads.findIndex(h => h.textContent.startsWith(name));
  const cells = c => [...rows.tBodies[0].rows].map(r => r.cells[c]);
  const strategy = column('strategy');
  const names = () => cells(strategy).map(d => d.textContent);
  const served = names();
  const ascending = [...served].sort(), descending = [...ascending].reverse();
  heads[strategy].click();
  const up = names();
  heads[strategy].click();
  const down = names();
  put('sortText', up.join() === ascending.join() && down.join() === descending.join());
  put('sortChanged', up.join() !== served.join());
  const cost = column('median cost');
  heads[cost].click();
  const values = cells(cost).map(d => d.dataset.v === '' ? null : Number(d.dataset.v));
  const known = values.filter(v => v !== null);
  put('sortNumber', values.slice(0, known.length).every((v, i) => v === known[i])
    && known.every((v, i) => i === 0 || known[i - 1] <= v) && known.length > 1);
  put('tableOverflow', Math.max(before, cutOff()));
  const points = id => JSON.parse(document.getElementById(id).dataset.points || '[]');
  put('curvePoints', points('chart-budget-curves').length);
  put('costPoints', points('chart-cost').length);
  const f = document.getElementById('chart-budget-curves'), img = f.querySelector('img');
  f.scrollIntoView();
  const r = img.getBoundingClientRect(), p = points('chart-budget-curves')[0];
  const move = (x, y) => img.dispatchEvent(new MouseEvent('mousemove', { clientX: x, clientY: y, bubbles: true }));
  move(r.left + p[0] * r.width, r.top + p[1] * r.height);
  const tip = f.querySelector('.tip');
  put('tip', tip && !tip.hidden && tip.textContent.includes(p[2]) && tip.textContent.includes(p[3]));
  move(r.left + 2, r.bottom - 2);
  put('tipHides', tip && tip.hidden);
  const imgs = [...document.querySelectorAll('figure img')];
  put('charts', imgs.length);
  put('loaded', imgs.filter(i => i.naturalWidth > 0).length);
  const out = document.createElement('pre'); out.id = 'probe'; out.textContent = words.join(' ');
  document.body.appendChild(out);
});</script></body>"#;
    let copy = page
        .replacen("<head>", &base, 1)
        .replacen("</body>", probe, 1);
    let file = profile.path().join("probe.html");
    std::fs::write(&file, copy).unwrap();
    let out = headless(browser, profile.path(), size)
        .args(["--virtual-time-budget=5000", "--dump-dom"])
        .arg(format!("file://{}", file.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    let words = dom
        .split("<pre id=\"probe\">")
        .nth(1)
        .and_then(|s| s.split("</pre>").next())
        .unwrap_or_else(|| {
            panic!(
                "no probe in the page: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    words
        .split_whitespace()
        .map(|w| {
            let (k, v) = w.split_once('=').unwrap();
            (k.to_string(), v.parse().unwrap())
        })
        .collect()
}

#[test]
fn the_page_renders_in_headless_chromium_and_its_first_screen_shows_the_ranking() {
    let Some(browser) = chromium() else {
        crate::support::tool_missing(
            "no Chromium on PATH (install Debian's `chromium` to check the page in a browser)",
        );
        return;
    };
    let quick = quick_report();
    let url = format!(
        "file://{}",
        quick.join("index.html").canonicalize().unwrap().display()
    );
    for (size, width, height) in [("1280,800", 1280, 800), ("1920,1080", 1920, 1080)] {
        // At a laptop's size and a desktop's, the ranking starts on the first screen with its first line whole;
        // no table is cut off at the side; a click on a header sorts, again reverses; the curves carry their
        // points and show one under the pointer; every chart loads.
        let l = probe(&browser, quick, size);
        assert!(l["answerTop"] < f64::from(height) / 2.0, "{size}: {l:?}");
        assert!(l["firstRowBottom"] <= f64::from(height), "{size}: {l:?}");
        assert_eq!(l["overflow"], 0.0, "{size}: the ranking is cut off: {l:?}");
        assert!(l["tables"] >= 4.0, "{size}: {l:?}");
        assert!(
            l["tableOverflow"] <= 0.0,
            "{size}: a table is cut off: {l:?}"
        );
        assert_eq!(l["sortText"], 1.0, "{size}: a click did not sort: {l:?}");
        assert_eq!(l["sortChanged"], 1.0, "{size}: {l:?}");
        assert_eq!(l["sortNumber"], 1.0, "{size}: numbers did not sort: {l:?}");
        assert!(
            l["curvePoints"] >= 2.0 && l["costPoints"] >= 2.0,
            "{size}: a chart has no hotspots: {l:?}"
        );
        assert_eq!(l["tip"], 1.0, "{size}: no tooltip on a point: {l:?}");
        assert_eq!(l["tipHides"], 1.0, "{size}: {l:?}");
        assert!(l["charts"] >= 9.0, "{size}: {l:?}");
        assert_eq!(
            l["loaded"], l["charts"],
            "{size}: a chart did not load: {l:?}"
        );
        // And the first screen, as a picture kept beside the test binaries, holds text.
        let profile = tempfile::tempdir().unwrap();
        let shot = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("page-first-screen-{width}x{height}.png"));
        let _ = std::fs::remove_file(&shot);
        let out = headless(&browser, profile.path(), size)
            .arg(format!("--screenshot={}", shot.display()))
            .arg(&url)
            .output()
            .unwrap();
        assert!(
            shot.exists(),
            "no screenshot: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let (w, h, rgb) = decode_png(&shot);
        assert_eq!((w, h), (width, height));
        let dark = rgb.chunks(3).filter(|p| p.iter().all(|&c| c < 80)).count();
        assert!(
            dark > 2_000,
            "{size}: no text in the first screen ({})",
            shot.display()
        );
    }
}
