//! The crate's layers, checked from its source: no import cycle between the library's top-level modules, and the
//! library never names the command-line parser. ARCHITECTURE.md describes the layers these tests keep.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Files and folders of `src/` that belong to the binary, not the library.
const BINARY_ONLY: &[&str] = &["main.rs", "cli.rs", "commands"];

/// A top-level module's name and every `.rs` file under it.
fn library_modules() -> BTreeMap<String, Vec<PathBuf>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut modules = BTreeMap::new();
    for entry in fs::read_dir(&src).expect("src/ is readable") {
        let path = entry.expect("a src/ entry").path();
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        if BINARY_ONLY.contains(&file.as_str()) || file == "lib.rs" {
            continue;
        }
        let (name, files) = if path.is_dir() {
            (file.clone(), rust_files(&path))
        } else if let Some(stem) = file.strip_suffix(".rs") {
            (stem.to_string(), vec![path.clone()])
        } else {
            continue;
        };
        modules.insert(name, files);
    }
    modules
}

/// Every `.rs` file under `dir`, in a stable order.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).expect("a readable folder") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The top-level modules a source text reaches through `crate::NAME`, among `known`.
fn crate_paths(text: &str, known: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("crate::") {
        let after = &rest[at + "crate::".len()..];
        let name: String = after
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        // `$crate::` (macros) and `budgetlab_crate::`-like identifiers are not paths into this crate.
        let preceded_by_ident = rest[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$');
        if !preceded_by_ident && known.contains(&name) {
            found.insert(name);
        }
        rest = after;
    }
    found
}

/// The edges module -> modules it uses, self-uses left out.
fn import_graph() -> BTreeMap<String, BTreeSet<String>> {
    let modules = library_modules();
    let known: BTreeSet<String> = modules.keys().cloned().collect();
    modules
        .iter()
        .map(|(name, files)| {
            let mut uses = BTreeSet::new();
            for file in files {
                let text = fs::read_to_string(file).expect("a readable source file");
                uses.extend(crate_paths(&text, &known));
            }
            uses.remove(name);
            (name.clone(), uses)
        })
        .collect()
}

/// One cycle of `graph` as the path `a -> b -> ... -> a`, if there is any.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        marks: &mut BTreeMap<String, Mark>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match marks.get(node) {
            Some(Mark::Done) => return None,
            Some(Mark::Open) => {
                let start = path
                    .iter()
                    .position(|n| n == node)
                    .expect("an open node is on the path");
                let mut cycle = path[start..].to_vec();
                cycle.push(node.to_string());
                return Some(cycle);
            }
            None => {}
        }
        marks.insert(node.to_string(), Mark::Open);
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, marks, path) {
                return Some(cycle);
            }
        }
        path.pop();
        marks.insert(node.to_string(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for node in graph.keys() {
        if let Some(cycle) = visit(node, graph, &mut marks, &mut Vec::new()) {
            return Some(cycle);
        }
    }
    None
}

#[test]
fn no_import_cycle_between_top_level_modules() {
    let graph = import_graph();
    // The graph is read, not empty: the engines are reached from the layers above them.
    assert!(graph["run"].contains("finalize"), "{graph:?}");
    assert!(graph["scenario"].contains("workload"), "{graph:?}");
    assert!(!graph.contains_key("main"));
    if let Some(cycle) = find_cycle(&graph) {
        panic!(
            "import cycle between top-level modules: {}",
            cycle.join(" -> ")
        );
    }
}

#[test]
fn the_cycle_finder_reports_a_planted_cycle_as_a_path() {
    let edges = |list: &[(&str, &[&str])]| -> BTreeMap<String, BTreeSet<String>> {
        list.iter()
            .map(|(a, bs)| (a.to_string(), bs.iter().map(|b| b.to_string()).collect()))
            .collect()
    };
    let acyclic = edges(&[("a", &["b", "c"]), ("b", &["c"]), ("c", &[])]);
    assert_eq!(find_cycle(&acyclic), None);
    let cyclic = edges(&[("a", &["b"]), ("b", &["c"]), ("c", &["a"]), ("d", &["a"])]);
    assert_eq!(find_cycle(&cyclic).unwrap(), ["a", "b", "c", "a"]);
}

#[test]
fn crate_paths_are_read_from_uses_and_inline_paths_only() {
    let known: BTreeSet<String> = ["alloc", "model", "text"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let text = "use crate::model::Entry;\nlet n = crate::text::len(s);\n$crate::alloc::x();\nmy_crate::alloc::y();";
    let found: Vec<String> = crate_paths(text, &known).into_iter().collect();
    assert_eq!(found, ["model", "text"]);
}

#[test]
fn the_library_never_names_the_command_line_parser() {
    for (module, files) in library_modules() {
        for file in files {
            let text = fs::read_to_string(&file).expect("a readable source file");
            assert!(
                !text.contains("clap::") && !text.contains("use clap"),
                "{} (module {module}) uses clap; parsing belongs to the binary",
                file.display()
            );
        }
    }
}

#[test]
fn commands_spell_out_every_field_of_a_request_they_build() {
    // A request built with `..Default::default()` compiles when the library adds a field the command should map
    // from a shared flag, and silently ignores the flag; spelled out, the new field does not compile.
    let commands = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/commands");
    for file in rust_files(&commands) {
        let text = fs::read_to_string(&file).expect("a readable source file");
        let mut in_request = false;
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.ends_with("Request {") {
                in_request = true;
            } else if line == "}" || line == "}," || line == "})" {
                in_request = false;
            }
            assert!(
                !(line.contains("Request::default()") || in_request && line.starts_with("..")),
                "{}:{}: a request built from defaults; spell out every field",
                file.display(),
                i + 1
            );
        }
    }
}

/// The layer table of ARCHITECTURE.md: each library module's layer number, from the rows `| N name | `m`, ... |`
/// of the table under "## Layers". The binary's row (no library modules) is left out.
fn stated_layers(text: &str) -> BTreeMap<String, u32> {
    let section = text
        .split("## Layers")
        .nth(1)
        .expect("ARCHITECTURE.md has a Layers section");
    let section = section.split("\n## ").next().unwrap_or(section);
    let mut layers = BTreeMap::new();
    for row in section.lines().filter(|l| l.starts_with("| ")) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let (Some(first), Some(modules)) = (cells.get(1), cells.get(2)) else {
            continue;
        };
        let Some(Ok(layer)) = first.split_whitespace().next().map(str::parse::<u32>) else {
            continue;
        };
        for module in modules.split(',').map(str::trim) {
            let name = module.trim_matches('`');
            if !name.is_empty() && !name.contains('/') && !name.contains(' ') {
                layers.insert(name.to_string(), layer);
            }
        }
    }
    layers
}

/// The uses of `graph` that reach a higher layer than their own, as `a (N) -> b (M)`.
fn upward_uses(
    graph: &BTreeMap<String, BTreeSet<String>>,
    layers: &BTreeMap<String, u32>,
) -> Vec<String> {
    let mut out = Vec::new();
    for (module, uses) in graph {
        for used in uses {
            if let (Some(a), Some(b)) = (layers.get(module), layers.get(used)) {
                if b > a {
                    out.push(format!("{module} ({a}) -> {used} ({b})"));
                }
            }
        }
    }
    out
}

#[test]
fn every_module_keeps_to_the_layer_architecture_md_states() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md");
    let layers = stated_layers(&fs::read_to_string(path).expect("ARCHITECTURE.md is readable"));
    let graph = import_graph();
    let unplaced: Vec<&String> = graph.keys().filter(|m| !layers.contains_key(*m)).collect();
    assert!(
        unplaced.is_empty(),
        "modules missing from ARCHITECTURE.md's layer table: {unplaced:?}"
    );
    let stale: Vec<&String> = layers.keys().filter(|m| !graph.contains_key(*m)).collect();
    assert!(
        stale.is_empty(),
        "ARCHITECTURE.md's layer table names modules that are gone: {stale:?}"
    );
    assert_eq!(layers["error"], 1);
    assert_eq!(layers["finalize"], 2);
    assert_eq!(layers["report"], 5);
    let upward = upward_uses(&graph, &layers);
    assert!(
        upward.is_empty(),
        "uses of a higher layer: {}",
        upward.join(", ")
    );
}

#[test]
fn the_layer_check_finds_a_planted_upward_use() {
    let table = "## Layers\n\n| layer | modules |\n|---|---|\n| 1 leaves | `text`, `model` |\n\
                 | 2 engines | `finalize` |\n| 6 binary | `src/main.rs` |\n\n## Code map\n| 9 x | `later` |\n";
    let layers = stated_layers(table);
    assert_eq!(
        layers.into_iter().collect::<Vec<_>>(),
        [
            ("finalize".to_string(), 2),
            ("model".to_string(), 1),
            ("text".to_string(), 1)
        ]
    );
    let layers = stated_layers(table);
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("text", vec![]),
        ("model", vec!["text"]),
        ("finalize", vec!["model", "text"]),
    ]
    .iter()
    .map(|(a, bs)| (a.to_string(), bs.iter().map(|b| b.to_string()).collect()))
    .collect();
    assert!(upward_uses(&graph, &layers).is_empty());
    let mut bad = graph.clone();
    bad.get_mut("model").unwrap().insert("finalize".into());
    assert_eq!(upward_uses(&bad, &layers), ["model (1) -> finalize (2)"]);
}
