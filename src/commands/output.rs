//! Where the commands' outputs go: stdout (a complete output in one write, or a stream whose failure names
//! `<stdout>`), whole files written atomically (`-` is stdout), and the progress bar on stderr.

use std::io::{self, Write};
use std::path::Path;

/// A failed write to standard output, naming it.
pub(crate) fn stdout_error(e: io::Error) -> budgetlab::Error {
    budgetlab::Error::io("<stdout>", e)
}

/// A failed JSON write to standard output, naming it.
pub(crate) fn stdout_json_error(e: serde_json::Error) -> budgetlab::Error {
    stdout_error(e.into())
}

/// Writes a complete output to stdout in one go, so an error never leaves half of it behind.
pub(crate) fn emit(bytes: &[u8]) -> anyhow::Result<()> {
    let mut stdout = io::stdout().lock();
    stdout.write_all(bytes).map_err(stdout_error)?;
    stdout.flush().map_err(stdout_error)?;
    Ok(())
}

/// Writes a whole file atomically (`-` is stdout), creating its folder when needed.
pub(crate) fn write_file(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if budgetlab::atomic::is_stdout(path) {
        return emit(bytes);
    }
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| budgetlab::Error::io(parent, e))?;
    }
    let mut file = budgetlab::atomic::AtomicFile::create(path)?;
    file.write_all(bytes)
        .map_err(|e| budgetlab::Error::io(path, e))?;
    file.commit()?;
    Ok(())
}

/// Whether `--junit` sends the XML to stdout, in place of the Markdown a command prints there.
pub(crate) fn junit_on_stdout(junit: Option<&Path>) -> bool {
    junit.is_some_and(budgetlab::atomic::is_stdout)
}

/// A progress bar over `len` simulated turns (or other `units`), drawn on stderr when it is a terminal and silent
/// otherwise.
pub(crate) fn progress(len: u64, units: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template(&format!(
            "{{elapsed_precise}} [{{bar:40}}] {{pos}}/{{len}} {units} ({{eta}} left)"
        ))
        .expect("a valid template")
        .progress_chars("=> "),
    );
    bar
}
