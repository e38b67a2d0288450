// Package join holds the join operators. Each strategy is one file named after it, whose doc comment states
// what the operator holds, its phases, its output order and its cost:
//
//	hash.go        hash join: builds the smaller side in memory, streams the other
//	nestedloop.go  nested-loop join: compares every pair; the oracle the other strategies are tested against
//
// Every strategy serves every KQL join kind with the same output: the left side's columns, then the right
// side's (renamed with a numeric suffix where a name is taken), except for the semi and anti kinds, which output
// one side only. A null key never matches anything, not even another null.
package join

import (
	"fmt"
	"strconv"

	"github.com/joinlab/joinlab/engine/column"
)

// Kind is a KQL join kind.
type Kind int

const (
	// InnerUnique is KQL's default: the left side is first reduced to one row per key (the first seen), then
	// joined as inner.
	InnerUnique Kind = iota
	Inner
	LeftOuter
	RightOuter
	FullOuter
	LeftSemi
	LeftAnti
	RightSemi
	RightAnti
)

// Kinds lists every kind, for tests and docs.
var Kinds = []Kind{InnerUnique, Inner, LeftOuter, RightOuter, FullOuter, LeftSemi, LeftAnti, RightSemi, RightAnti}

var kindNames = [...]string{"innerunique", "inner", "leftouter", "rightouter", "fullouter", "leftsemi", "leftanti",
	"rightsemi", "rightanti"}

func (k Kind) String() string { return kindNames[k] }

// ParseKind reads a kind as written in a query; "" is the default, innerunique.
func ParseKind(s string) (Kind, bool) {
	if s == "" {
		return InnerUnique, true
	}
	for i, n := range kindNames {
		if n == s {
			return Kind(i), true
		}
	}
	return 0, false
}

// side describes what a kind asks of one side's rows.
type side struct {
	output    bool // the side's columns are in the output
	pairs     bool // matched rows are output joined with each match
	unmatched bool // rows with no match are output once, null-extended (outer)
	semi      bool // rows with a match are output once, alone
	anti      bool // rows without a match are output once, alone
}

// sides returns what kind asks of the left and the right side.
func (k Kind) sides() (left, right side) {
	switch k {
	case InnerUnique, Inner:
		return side{output: true, pairs: true}, side{output: true, pairs: true}
	case LeftOuter:
		return side{output: true, pairs: true, unmatched: true}, side{output: true, pairs: true}
	case RightOuter:
		return side{output: true, pairs: true}, side{output: true, pairs: true, unmatched: true}
	case FullOuter:
		return side{output: true, pairs: true, unmatched: true}, side{output: true, pairs: true, unmatched: true}
	case LeftSemi:
		return side{output: true, semi: true}, side{}
	case LeftAnti:
		return side{output: true, anti: true}, side{}
	case RightSemi:
		return side{}, side{output: true, semi: true}
	default: // RightAnti
		return side{}, side{output: true, anti: true}
	}
}

// Spec is a validated join: the kind, both inputs' schemas, the key columns on each side and the output schema.
// It is immutable; operators are made from it per execution.
type Spec struct {
	Kind        Kind
	Left, Right column.Schema
	// LeftKeys[i] and RightKeys[i] are the column indexes of the i-th key pair.
	LeftKeys, RightKeys []int
	// KeyTypes[i] is the type both sides' i-th keys are compared in.
	KeyTypes []column.Type
	// Schema is the output: left columns then right columns (renamed where taken), or one side for semi/anti.
	Schema column.Schema
	// LeftOut[i] and RightOut[j] are the output positions of each input column, -1 when not output.
	LeftOut, RightOut []int
	// Live, when set, marks the output columns something above the join reads (the planner's liveness); a
	// join may leave the others nil rather than gather them. A key column read only to match is one of those.
	Live []bool
}

// Outputs reports whether output column o is read above the join, so that the join must fill it.
func (s *Spec) Outputs(o int) bool { return s.Live == nil || s.Live[o] }

// NewSpec validates a join of left and right on the given key pairs and derives its output schema.
func NewSpec(kind Kind, left, right column.Schema, leftKeys, rightKeys []int) (*Spec, error) {
	if len(leftKeys) == 0 || len(leftKeys) != len(rightKeys) {
		return nil, fmt.Errorf("join: needs at least one pair of keys")
	}
	s := &Spec{Kind: kind, Left: left, Right: right, LeftKeys: leftKeys, RightKeys: rightKeys}
	for i := range leftKeys {
		lf, rf := left[leftKeys[i]], right[rightKeys[i]]
		t, ok := KeyType(lf.Type, rf.Type)
		if !ok {
			return nil, fmt.Errorf("join: key type mismatch: left %s is %s, right %s is %s", lf.Name, lf.Type,
				rf.Name, rf.Type)
		}
		s.KeyTypes = append(s.KeyTypes, t)
	}
	l, r := kind.sides()
	s.LeftOut, s.RightOut = make([]int, len(left)), make([]int, len(right))
	taken := map[string]bool{}
	for i, f := range left {
		s.LeftOut[i] = -1
		if l.output {
			s.LeftOut[i] = len(s.Schema)
			s.Schema = append(s.Schema, f)
			taken[f.Name] = true
		}
	}
	for j, f := range right {
		s.RightOut[j] = -1
		if !r.output {
			continue
		}
		name := f.Name
		for n := 1; taken[name]; n++ {
			name = f.Name + strconv.Itoa(n)
		}
		taken[name] = true
		f.Name = name
		s.RightOut[j] = len(s.Schema)
		s.Schema = append(s.Schema, f)
	}
	return s, nil
}

// KeyType is the type in which a left key of type l and a right key of type r are compared: the same type,
// real for a long against a real, and string when either side's type is unknown (dynamic).
func KeyType(l, r column.Type) (column.Type, bool) {
	switch {
	case l == r:
		return l, true
	case l.IsNumeric() && r.IsNumeric():
		return column.Real, true
	case l == column.Dynamic || r == column.Dynamic:
		return column.String, true
	}
	return 0, false
}
