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
	for _, layout := range dateTimeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixNano(), true
		}
	}
	return 0, false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// FormatDateTime writes Unix nanoseconds as ISO-8601 UTC ending in Z, with as many fractional digits as needed.
func FormatDateTime(ns int64) string {
	return time.Unix(0, ns).UTC().Format(time.RFC3339Nano)
}
