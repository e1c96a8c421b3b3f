//! Which kind of output an agent's tool gives, by the tool's name: the one table that `calibrate` (mapping a
//! recorded tool to a kind), `tokens` (tallying recorded fields by kind) and the generator (whose tool names are
//! among these) read. The names are those the seven recorded agents use (see docs/formats) and the generator's
//! own; `mcp__*` is always an MCP server's output.

use super::Kind;

/// The prefix of every MCP tool's name.
pub const MCP_PREFIX: &str = "mcp__";

/// Tool names the agents and the generator use, and the kind of their outputs.
pub const TOOL_KINDS: &[(&str, Kind)] = &[
    // Shell commands.
    ("bash", Kind::Shell),
    ("Bash", Kind::Shell),
    ("BashOutput", Kind::Shell),
    ("shell", Kind::Shell),
    ("local_shell", Kind::Shell),
    ("exec_command", Kind::Shell),
    ("run_shell_command", Kind::Shell),
    ("execute_bash", Kind::Shell),
    ("execute_command", Kind::Shell),
    ("run_command", Kind::Shell),
    ("terminal", Kind::Shell),
    ("execute_ipython_cell", Kind::Shell),
    // File reads and views.
    ("read_file", Kind::FileRead),
    ("Read", Kind::FileRead),
    ("read_many_files", Kind::FileRead),
    ("NotebookRead", Kind::FileRead),
    ("view", Kind::FileRead),
    ("view_file", Kind::FileRead),
    ("open", Kind::FileRead),
    ("goto", Kind::FileRead),
    ("scroll_up", Kind::FileRead),
    ("scroll_down", Kind::FileRead),
    // Edits that show the edited region.
    ("edit", Kind::Edit),
    ("Edit", Kind::Edit),
    ("MultiEdit", Kind::Edit),
    ("NotebookEdit", Kind::Edit),
    ("edit_file", Kind::Edit),
    ("str_replace_editor", Kind::Edit),
    ("str_replace_based_edit_tool", Kind::Edit),
    ("apply_patch", Kind::Edit),
    // Searches.
    ("grep", Kind::Search),
    ("Grep", Kind::Search),
    ("search_file_content", Kind::Search),
    ("search_dir", Kind::Search),
    ("search_file", Kind::Search),
    ("rg", Kind::Search),
    // File names.
    ("ls", Kind::Listing),
    ("LS", Kind::Listing),
    ("list_directory", Kind::Listing),
    ("list_dir", Kind::Listing),
    ("glob", Kind::Listing),
    ("Glob", Kind::Listing),
    ("find_file", Kind::Listing),
    // Short confirmations.
    ("write_file", Kind::ShortSuccess),
    ("Write", Kind::ShortSuccess),
    ("replace", Kind::ShortSuccess),
    ("create", Kind::ShortSuccess),
    ("create_file", Kind::ShortSuccess),
    ("create_directory", Kind::ShortSuccess),
    ("write_todos", Kind::ShortSuccess),
    ("TodoWrite", Kind::ShortSuccess),
    ("update_plan", Kind::ShortSuccess),
    ("save_memory", Kind::ShortSuccess),
    ("think", Kind::ShortSuccess),
    ("submit", Kind::ShortSuccess),
    ("finish", Kind::ShortSuccess),
    // The plan-mode lifecycle.
    ("enter_plan_mode", Kind::PlanMode),
];

/// The kind of output the tool `name` gives, when the name is known.
pub fn kind_of_tool(name: &str) -> Option<Kind> {
    if name.starts_with(MCP_PREFIX) {
        return Some(Kind::Mcp);
    }
    TOOL_KINDS.iter().find(|(n, _)| *n == name).map(|(_, k)| *k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_listed_once_and_maps_to_its_kind() {
        let mut names: Vec<&str> = TOOL_KINDS.iter().map(|(n, _)| *n).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before, "a tool name listed twice");
        assert_eq!(kind_of_tool("bash"), Some(Kind::Shell));
        assert_eq!(kind_of_tool("Read"), Some(Kind::FileRead));
        assert_eq!(kind_of_tool("Edit"), Some(Kind::Edit));
        assert_eq!(kind_of_tool("edit"), Some(Kind::Edit));
        assert_eq!(kind_of_tool("Glob"), Some(Kind::Listing));
        assert_eq!(kind_of_tool("mcp__github__list_issues"), Some(Kind::Mcp));
        assert_eq!(kind_of_tool("enter_plan_mode"), Some(Kind::PlanMode));
        assert_eq!(kind_of_tool("frobnicate"), None);
    }
}
