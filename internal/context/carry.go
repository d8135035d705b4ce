package contextmgr

import "strings"

// What a compaction carries forward beside the summary is read from the
// session's records and from nothing the summariser wrote: the model's
// task list (todos.go) — so no summary can decide what was done. It is
// written into the summary message after the summary and its recall note,
// as the afterword (carriedStart opens it), so that it sits at the end of
// the compacted prefix, where models attend, and stays byte for byte the
// same in every request until the next compaction (a prompt cache can
// serve it). The next compaction does not fold it into its summary
// (summaryBody cuts it off): it writes its own from the records.

// carriedStart opens the afterword.
const carriedStart = "\n\n--- Carried forward from the session's records (not from the summary) ---"

// carry is what the manager keeps for the afterword.
type carry struct {
	todos taskList
}

// afterword is the block that follows the summary ("" = nothing to carry).
func (c *carry) afterword() string {
	var parts []string
	if t := c.todos.text(); t != "" {
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		return ""
	}
	return carriedStart + "\n\n" + strings.Join(parts, "\n\n")
}
