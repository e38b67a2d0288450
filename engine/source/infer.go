package source

import "github.com/joinlab/joinlab/engine/column"

// kinds records which kinds of non-null value a column has shown, so that one pass over the data can pick the
// narrowest type that holds them all.
type kinds uint8

const (
	sawBool kinds = 1 << iota
	sawLong
	sawReal
	sawDateTime
	sawString
	sawNested // a JSON object or array
)

// columnType is the narrowest type that holds every kind seen: longs and reals widen to real, datetimes and other
// strings to string, and any other mix to string (each value as written), or dynamic once nested JSON appears.
// A column that held only nulls is dynamic: nothing fixes its type.
func (k kinds) columnType() column.Type {
	switch {
	case k == 0:
		return column.Dynamic
	case k&sawNested != 0:
		return column.Dynamic
	case k == sawBool:
		return column.Bool
	case k == sawLong:
		return column.Long
	case k&^(sawLong|sawReal) == 0:
		return column.Real
	case k == sawDateTime:
		return column.DateTime
	default:
		return column.String
	}
}
