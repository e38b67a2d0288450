// Package dialect renders a connector.Request as the native query text of a service: KQL for a Sentinel-like
// source, SPL for a Splunk-like one, an FQL-style filter for a CrowdStrike-like API and SQL for an
// S3/Athena-like store. A source's query-size cap applies to this text, and the trace shows it, so what a
// filter costs depends on the dialect it is written in (an IN list of emails is longer in SPL than in KQL).
package dialect

import (
	"fmt"
	"strings"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
)

// Dialect renders requests in one query language.
type Dialect interface {
	// Name is the language's name: kql, spl, fql or sql.
	Name() string
	// Render writes req as a query. It fails only on a predicate it cannot express.
	Render(req connector.Request) (string, error)
}

// ByName returns the named dialect.
func ByName(name string) (Dialect, error) {
	switch strings.ToLower(name) {
	case "kql":
		return KQL{}, nil
	case "spl":
		return SPL{}, nil
	case "fql":
		return FQL{}, nil
	case "sql":
		return SQL{}, nil
	}
	return nil, fmt.Errorf("dialect: unknown dialect %q (want kql, spl, fql or sql)", name)
}

// syntax is how one dialect spells the pieces of a predicate; walk does the rest.
type syntax struct {
	and, or  string
	not      func(string) string
	compare  func(col, op string, v column.Value) string
	in       func(col string, vals []column.Value, negate bool) string
	notNull  func(col string) string
	keyset   func(p connector.Keyset) (string, bool) // a native tuple comparison, when there is one
	group    func(string) string
	trueText string
}

func (s *syntax) walk(p connector.Predicate) (string, error) {
	switch p := p.(type) {
	case connector.And:
		return s.list([]connector.Predicate(p), s.and, s.trueText)
	case connector.Or:
		return s.list([]connector.Predicate(p), s.or, "")
	case connector.Not:
		x, err := s.walk(p.X)
		if err != nil {
			return "", err
		}
		return s.not(x), nil
	case connector.Compare:
		return s.compare(p.Column, p.Op, p.Value), nil
	case connector.In:
		return s.in(p.Column, p.Values, p.Negate), nil
	case connector.NotNull:
		return s.notNull(p.Column), nil
	case connector.Keyset:
		if s.keyset != nil {
			if text, ok := s.keyset(p); ok {
				return text, nil
			}
		}
		return s.walk(p.Expand())
	}
	return "", fmt.Errorf("dialect: cannot render predicate %T", p)
}

func (s *syntax) list(ps []connector.Predicate, sep, empty string) (string, error) {
	if len(ps) == 0 {
		if empty == "" {
			return "", fmt.Errorf("dialect: cannot render an empty or")
		}
		return empty, nil
	}
	if len(ps) == 1 {
		return s.walk(ps[0])
	}
	parts := make([]string, len(ps))
	for i, p := range ps {
		t, err := s.walk(p)
		if err != nil {
			return "", err
		}
		parts[i] = s.group(t)
	}
	return strings.Join(parts, sep), nil
}

func paren(s string) string { return "(" + s + ")" }

// quoteDouble writes s as a double-quoted string with backslash escapes (KQL, SPL).
func quoteDouble(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

// quoteSingle writes s single-quoted, doubling quotes (SQL) or escaping them (FQL).
func quoteSingle(s string, escape string) string {
	return "'" + strings.ReplaceAll(s, "'", escape) + "'"
}

func values(vals []column.Value, lit func(column.Value) string) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = lit(v)
	}
	return strings.Join(parts, ", ")
}
