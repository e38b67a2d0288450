package kql

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics and keeps its contracts on any text: an error is a non-empty
// ErrorList of at most ten positioned errors and no query; a query formats deterministically; every position,
// in an error or in the tree, points into the text (or just past the end of a line).
func FuzzParse(f *testing.F) {
	// The golden queries seed the fuzzer too, beside the checked-in corpus in testdata/fuzz/FuzzParse.
	if data, err := os.ReadFile(goldenFile); err == nil {
		for block := range strings.SplitSeq(string(data), "\n----\n") {
			_, rest, ok := strings.Cut(block, "query:\n")
			if !ok {
				continue
			}
			for _, end := range []string{"\nast:\n", "\nerror:\n"} {
				if query, _, ok := strings.Cut(rest, end); ok {
					f.Add(query)
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		lines := strings.Split(src, "\n")
		inText := func(p Pos) bool {
			return p.Line >= 1 && p.Line <= len(lines) && p.Col >= 1 && p.Col <= len(lines[p.Line-1])+1
		}
		q, err := Parse(src)
		if err != nil {
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 || len(list) > 10 {
				t.Fatalf("Parse(%q): error %T %v, want an ErrorList of 1 to 10", src, err, err)
			}
			for _, e := range list {
				if !inText(e.Pos) {
					t.Errorf("Parse(%q): error %v positioned outside the text", src, e)
				}
			}
			if q != nil {
				t.Fatalf("Parse(%q) returned a query with its error", src)
			}
			return
		}
		if a, b := Format(q), Format(q); a != b {
			t.Fatalf("Format is not deterministic for %q", src)
		}
		forEachPos(q, func(what string, p Pos) {
			if !inText(p) {
				t.Errorf("Parse(%q): %s at %v, outside the text", src, what, p)
			}
		})
	})
}

// forEachPos calls fn with every position in the tree, naming the node it belongs to.
func forEachPos(q *Query, fn func(what string, p Pos)) {
	fn("query", q.Pos)
	var expr func(e Expr)
	expr = func(e Expr) {
		fn("expression", e.Position())
		switch e := e.(type) {
		case *Unary:
			expr(e.X)
		case *Binary:
			expr(e.L)
			expr(e.R)
		case *In:
			expr(e.X)
			for _, x := range e.List {
				expr(x)
			}
		case *Between:
			expr(e.X)
			expr(e.Lo)
			expr(e.Hi)
		case *Call:
			for _, x := range e.Args {
				expr(x)
			}
		}
	}
	items := func(items []NamedExpr) {
		for _, it := range items {
			fn("item", it.Pos)
			expr(it.Expr)
		}
	}
	keys := func(keys []SortKey) {
		for _, k := range keys {
			expr(k.Expr)
		}
	}
	for _, op := range q.Ops {
		fn("operator", op.Position())
		switch o := op.(type) {
		case *Where:
			expr(o.Pred)
		case *Project:
			items(o.Items)
		case *Extend:
			items(o.Items)
		case *Summarize:
			items(o.Aggs)
			items(o.By)
		case *Sort:
			keys(o.Keys)
		case *Top:
			keys(o.Keys)
		case *ProjectAway:
			for _, c := range o.Columns {
				expr(c)
			}
		case *Distinct:
			for _, c := range o.Columns {
				expr(c)
			}
		case *Join:
			for _, p := range o.Params {
				fn("join parameter", p.Pos)
			}
			forEachPos(o.Right, fn)
			for _, c := range o.On {
				fn("join condition", c.Pos)
			}
		case *MakeIntervals:
			expr(o.Time)
			for _, c := range o.By {
				expr(c)
			}
			if o.Until != nil {
				expr(o.Until)
			}
		}
	}
}
