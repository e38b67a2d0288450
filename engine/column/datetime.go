package column

import "time"

// dateTimeLayouts are the ISO-8601 forms read as datetimes. A time without a zone is UTC, as in KQL.
var dateTimeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04",
	"2006-01-02 15:04",
	"2006-01-02",
}

// ParseDateTime reads an ISO-8601 datetime such as 2024-05-01T12:00:00Z, returning Unix nanoseconds.
func ParseDateTime(s string) (int64, bool) {
	// Cheap shape check first: type inference calls this on every string value of a source.
	if len(s) < 10 || s[4] != '-' || s[7] != '-' || !isDigit(s[0]) || !isDigit(s[9]) {
		return 0, false
	}
	if ns, ok := parseDateTimeFast(s); ok {
		return ns, true
	}
	return parseDateTimeLayouts(s)
}

// parseDateTimeLayouts reads s with each of dateTimeLayouts in turn: every form, at time.Parse's cost.
func parseDateTimeLayouts(s string) (int64, bool) {
	for _, layout := range dateTimeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixNano(), true
		}
	}
	return 0, false
}

// parseDateTimeFast reads the forms files mostly hold, a date alone or a date, T or a space, and a time to the
// second with up to nine fraction digits and an optional Z, straight into nanoseconds; it reports false for
// anything else, valid or not, which parseDateTimeLayouts then reads. Scans parse every value of a datetime
// column and type a sample's every field that looks like one, and time.Parse was most of that.
func parseDateTimeFast(s string) (int64, bool) {
	y, ok1 := digits(s, 0, 4)
	mo, ok2 := digits(s, 5, 2)
	d, ok3 := digits(s, 8, 2)
	if !ok1 || !ok2 || !ok3 || mo < 1 || mo > 12 || d < 1 || d > daysIn(mo, y) {
		return 0, false
	}
	sec := daysFromCivil(y, mo, d) * 86400
	if len(s) == 10 {
		return sec * 1e9, true
	}
	h, ok1 := digits(s, 11, 2)
	mi, ok2 := digits(s, 14, 2)
	se, ok3 := digits(s, 17, 2)
	if len(s) < 19 || s[10] != 'T' && s[10] != ' ' || s[13] != ':' || s[16] != ':' || !ok1 || !ok2 || !ok3 ||
		h > 23 || mi > 59 || se > 59 {
		return 0, false
	}
	ns, rest := int64(0), s[19:]
	if rest != "" && rest[0] == '.' {
		n := 1
		for n < len(rest) && isDigit(rest[n]) {
			n++
		}
		if n == 1 || n > 10 {
			return 0, false
		}
		frac, _ := digits(rest, 1, n-1)
		for range 10 - n {
			frac *= 10
		}
		ns, rest = frac, rest[n:]
	}
	if rest != "" && rest != "Z" {
		return 0, false
	}
	return (sec+h*3600+mi*60+se)*1e9 + ns, true
}

// digits reads the n decimal digits of s at i, reporting false if s is shorter or one is not a digit. It is
// small enough to inline.
func digits(s string, i, n int) (x int64, ok bool) {
	if i < 0 || n < 0 || i+n > len(s) {
		return 0, false
	}
	for j := i; j < i+n; j++ {
		d := s[j] - '0'
		if d > 9 {
			return 0, false
		}
		x = x*10 + int64(d)
	}
	return x, true
}

// daysIn is the number of days of month m (1–12) of year y in the proleptic Gregorian calendar.
func daysIn(m, y int64) int64 {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is the number of days from 1970-01-01 to year y, month m, day d (Howard Hinnant's
// days_from_civil: years counted from March, so the leap day ends a year, in eras of 400 years).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y
	if era < 0 {
		era -= 399
	}
	era /= 400
	yoe := y - era*400
	doy := (153*((m+9)%12)+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// FormatDateTime writes Unix nanoseconds as ISO-8601 UTC ending in Z, with as many fractional digits as needed.
func FormatDateTime(ns int64) string {
	return time.Unix(0, ns).UTC().Format(time.RFC3339Nano)
}
