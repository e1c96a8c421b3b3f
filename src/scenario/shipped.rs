//! The scenarios shipped in `scenarios/`, compiled into the binary so that `--scenario mixed-realistic` works from
//! any directory. A test checks that this list and the folder hold the same scenarios.

use std::path::Path;

use super::Scenario;

/// The scenarios shipped in `scenarios/`, compiled in: (name, TOML source).
pub const SHIPPED: &[(&str, &str)] = &[
    ("cjk-heavy", include_str!("../../scenarios/cjk-heavy.toml")),
    (
        "context-focus",
        include_str!("../../scenarios/context-focus.toml"),
    ),
    (
        "large-window",
        include_str!("../../scenarios/large-window.toml"),
    ),
    (
        "many-small",
        include_str!("../../scenarios/many-small.toml"),
    ),
    ("mcp-heavy", include_str!("../../scenarios/mcp-heavy.toml")),
    (
        "mixed-realistic",
        include_str!("../../scenarios/mixed-realistic.toml"),
    ),
    ("one-giant", include_str!("../../scenarios/one-giant.toml")),
    (
        "persist-failures",
        include_str!("../../scenarios/persist-failures.toml"),
    ),
    ("plan-mode", include_str!("../../scenarios/plan-mode.toml")),
    (
        "pre-persisted",
        include_str!("../../scenarios/pre-persisted.toml"),
    ),
    (
        "shell-heavy",
        include_str!("../../scenarios/shell-heavy.toml"),
    ),
    (
        "small-window",
        include_str!("../../scenarios/small-window.toml"),
    ),
    (
        "surrogate-storm",
        include_str!("../../scenarios/surrogate-storm.toml"),
    ),
    (
        "swe-agent-recorded",
        include_str!("../../scenarios/swe-agent-recorded.toml"),
    ),
];

impl Scenario {
    /// A shipped scenario by name.
    pub fn shipped(name: &str) -> Option<Scenario> {
        SHIPPED.iter().find(|(n, _)| *n == name).map(|(n, src)| {
            Scenario::parse(src, &format!("scenarios/{n}.toml"))
                .expect("shipped scenarios are valid")
        })
    }

    /// Every shipped scenario, sorted by name.
    pub fn all_shipped() -> Vec<Scenario> {
        SHIPPED
            .iter()
            .filter_map(|(n, _)| Scenario::shipped(n))
            .collect()
    }

    /// What to tell a user whose scenario arguments (`flag`, `--scenarios` or `--scenario`, and its values; none:
    /// every shipped scenario) name a scenario two ways: a shipped scenario and a file of the same scenario name whose
    /// content differs (the file `scenarios/<name>.toml` of the working folder, for a shipped scenario run by
    /// name or by default; the shipped scenario, for a file or folder given). One line per such scenario, saying
    /// which one runs and how to run the other; nothing when they agree. Arguments that do not load are left to
    /// the command, which refuses them.
    pub fn shadow_notes(flag: &str, args: &[String]) -> Vec<String> {
        let mut notes = Vec::new();
        if args.is_empty() {
            for (name, _) in SHIPPED {
                notes.extend(local_file_note(flag, name));
            }
            return notes;
        }
        for arg in args {
            let path = Path::new(arg);
            if path.is_dir() {
                let Ok(mut files) = std::fs::read_dir(path).map(|d| {
                    d.filter_map(|e| e.ok().map(|e| e.path()))
                        .filter(|p| p.extension().is_some_and(|x| x == "toml") && p.is_file())
                        .collect::<Vec<_>>()
                }) else {
                    continue;
                };
                files.sort();
                notes.extend(files.iter().filter_map(|f| file_note(flag, f)));
            } else if path.exists() || arg.ends_with(".toml") || arg.contains('/') {
                notes.extend(file_note(flag, path));
            } else {
                notes.extend(local_file_note(flag, arg));
            }
        }
        notes
    }
}

/// The folder of the working directory whose files look like the shipped scenarios.
const LOCAL_DIR: &str = "scenarios";

/// The note for the shipped scenario `name` run by name when `scenarios/<name>.toml` differs from it.
fn local_file_note(flag: &str, name: &str) -> Option<String> {
    let shipped = Scenario::shipped(name)?;
    let file = Path::new(LOCAL_DIR).join(format!("{name}.toml"));
    if !file.is_file() {
        return None;
    }
    let how = match Scenario::load(&file) {
        Ok(local) if local.name == shipped.name && local.digest() == shipped.digest() => {
            return None
        }
        Ok(local) if local.name != shipped.name => return None,
        Ok(_) => "which differs from it",
        Err(_) => "which does not load",
    };
    Some(format!(
        "note: the shipped scenario {name} runs, not {}, {how}; `{flag} {}` runs the file",
        file.display(),
        file.display()
    ))
}

/// The note for the scenario file `file` when its scenario has the name of a shipped one and differs from it.
fn file_note(flag: &str, file: &Path) -> Option<String> {
    let local = Scenario::load(file).ok()?;
    let shipped = Scenario::shipped(&local.name)?;
    (local.digest() != shipped.digest()).then(|| {
        format!(
            "note: {} runs, not the shipped scenario {}, which differs from it; `{flag} {}` runs the shipped \
             one",
            file.display(),
            local.name,
            local.name
        )
    })
}
