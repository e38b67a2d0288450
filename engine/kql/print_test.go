package kql

import "testing"

// TestStringReparses checks that String writes expressions the parser reads back to the same tree.
func TestStringReparses(t *testing.T) {
	for _, src := range []string{
		`a + 1 * 2 > 3 and not(b)`,
		`ts > datetime(2024-01-02T03:04:05Z) - 90m`,
		`x in (1, 2, 3) or y !in ("a") or z between (1 .. 5)`,
		`tolower(actor.alternateId) has "bob"`,
		`bin(ts, 1500ms)`,
	} {
		q, err := Parse("@T | where " + src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		printed := String(q.Ops[0].(*Where).Pred)
		q2, err := Parse("@T | where " + printed)
		if err != nil {
			t.Fatalf("%s printed as %s, which does not parse: %v", src, printed, err)
		}
		if a, b := String(q.Ops[0].(*Where).Pred), String(q2.Ops[0].(*Where).Pred); a != b {
			t.Fatalf("%s: printed %s, reprinted %s", src, a, b)
		}
	}
}
