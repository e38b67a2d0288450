package column

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestParseDateTimeMatchesTheLayouts holds ParseDateTime, whose common forms skip time.Parse, to reading every
// layout with time.Parse: on random dates of years 0–9999 (leap days and days past a month's end among them),
// times with and without seconds' fractions of 0–10 digits, T or a space, Z, an offset or nothing, out-of-range
// fields, and strings that only start like a date.
func TestParseDateTimeMatchesTheLayouts(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	two := func(hi int) string { return fmt.Sprintf("%02d", rng.IntN(hi)) }
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	fixed := []string{"2024-02-29", "2023-02-29", "2000-02-29", "1900-02-29", "0000-01-01", "9999-12-31T23:59:59.999999999Z",
		"1970-01-01T00:00:00Z", "1969-12-31T23:59:59.5Z", "2024-06-01T10:00:00.Z", "2024-06-01T24:00:00Z",
		"2024-06-01T10:60:00Z", "2024-06-01T10:00:60Z", "2024-06-01 meeting", "2024-06-01T10:00", "2024-06-01T10:00:00z",
		"2024-06-01t10:00:00Z", "2024-06-01T10:00:00+02:00", "2024-06-01T1:00:00Z", "2024-6-01", "2024-06-01T10:00:00ZZ"}
	for i := 0; i < 40000; i++ {
		var s string
		if i < len(fixed) {
			s = fixed[i]
		} else {
			s = fmt.Sprintf("%04d-%s-%s", rng.IntN(10000), two(14), two(33))
			if rng.IntN(5) > 0 {
				s += pick("T", " ", "t", "_") + two(26) + ":" + two(62) + ":" + two(62)
				if n := rng.IntN(12); n > 0 {
					s += "."
					for range n - 1 {
						s += fmt.Sprint(rng.IntN(10))
					}
				}
				s += pick("", "Z", "Z", "+01:00", "-05:30", "x")
			}
		}
		got, gotOK := ParseDateTime(s)
		want, wantOK := parseDateTimeLayouts(s)
		if got != want || gotOK != wantOK {
			t.Fatalf("ParseDateTime(%q) = %d, %v; the layouts give %d, %v", s, got, gotOK, want, wantOK)
		}
	}
}
