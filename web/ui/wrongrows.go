package ui

import "strings"

// The salted join's teaching variant (salted_naive_wrong) runs an outer join as written on every worker, so a
// row of the expanded side that finds no partner on one worker is null-extended there: up to W copies of an
// unmatched row, and a matched row both matched and null-extended. The trace has no event per output row, so
// the salted view finds those rows in the output itself: a row with empty (null) cells that repeats, or that a
// matched row covers (agrees with it on every cell it has, and has a value where it has none). A correct outer
// join makes neither: it null-extends a row once, and only a row that matched nothing.

// WrongRows are a run's wrong rows as the salted view marks them.
type WrongRows struct {
	// Rows are the wrong rows in output order; Checked the output rows looked at; Skipped is set when the
	// output was too large to check here.
	Rows    []WrongRow
	Checked int
	Skipped bool
}

// WrongRow is one output row marked wrong, with its position (from 1) and why.
type WrongRow struct {
	N      int
	Cells  []string
	Reason string
}

// maxWrongScan bounds the rows the page checks: the teaching runs are small, and the check holds every row.
const maxWrongScan = 50_000

// wrongRows computes the run's wrong rows once it is done, and keeps them.
func (r *Run) wrongRows() *WrongRows {
	if r.Status != StatusDone {
		return nil
	}
	if r.wrong != nil && r.wrong.Checked == r.Rows.Len() {
		return r.wrong
	}
	n := r.Rows.Len()
	if n > maxWrongScan {
		r.wrong = &WrongRows{Checked: n, Skipped: true}
		return r.wrong
	}
	r.wrong = findWrongRows(r.Rows.Slice(0, n, len(r.Columns)))
	return r.wrong
}

// findWrongRows marks, among rows with empty cells, every copy after the first and every one a matched row
// covers.
func findWrongRows(rows [][]string) *WrongRows {
	out := &WrongRows{Checked: len(rows)}
	type nullRow struct {
		i    int
		mask string // '1' where the cell is empty
	}
	var nulls []nullRow
	masks := map[string]bool{}
	for i, row := range rows {
		var m strings.Builder
		empty := false
		for _, cell := range row {
			if cell == "" {
				m.WriteByte('1')
				empty = true
			} else {
				m.WriteByte('0')
			}
		}
		if empty {
			nulls = append(nulls, nullRow{i, m.String()})
			masks[m.String()] = true
		}
	}
	if len(nulls) == 0 {
		return out
	}
	// For each pattern of empty cells, the rows with a value in at least one of them, by their other cells.
	covered := map[string]map[string]bool{}
	for mask := range masks {
		set := map[string]bool{}
		for _, row := range rows {
			if hasValueWhere(row, mask) {
				set[cellsWhere(row, mask, '0')] = true
			}
		}
		covered[mask] = set
	}
	seen := map[string]int{}
	for _, nr := range nulls {
		row := rows[nr.i]
		key := nr.mask + "\x00" + strings.Join(row, "\x00")
		seen[key]++
		var reason string
		switch {
		case covered[nr.mask][cellsWhere(row, nr.mask, '0')]:
			reason = "null-extended, yet its row matched (a matched row carries the same values)"
		case seen[key] > 1:
			reason = "a second null-extended copy of the same row"
		default:
			continue
		}
		out.Rows = append(out.Rows, WrongRow{N: nr.i + 1, Cells: row, Reason: reason})
	}
	return out
}

// hasValueWhere reports whether row has a value in a cell mask marks empty.
func hasValueWhere(row []string, mask string) bool {
	for i, cell := range row {
		if i < len(mask) && mask[i] == '1' && cell != "" {
			return true
		}
	}
	return false
}

// cellsWhere joins the cells at the mask's positions holding want.
func cellsWhere(row []string, mask string, want byte) string {
	var b strings.Builder
	for i, cell := range row {
		if i < len(mask) && mask[i] == want {
			b.WriteString(cell)
			b.WriteByte(0)
		}
	}
	return b.String()
}
