// Package filebench generates the files of the file benchmark (issue 21): a users file and an events file five
// times its size, each record with one nested object, as JSON lines and as CSV (the nested fields flattened),
// and holds the benchmark's queries in KQL and in DuckDB's SQL. `go run mage.go filebench` writes the files and
// runs the joinlab command beside DuckDB on them (magefile_files.go).
//
// The files are a pure function of the row count and the seed: every value comes from a hash of the row
// number, so two runs compare the same bytes, and the expected answer of every query can be checked by both
// engines agreeing.
package filebench

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
)

// Files are the paths Write made.
type Files struct {
	UsersJSONL, EventsJSONL, UsersCSV, EventsCSV string
}

// Paths lists the files of dir for a run of Write.
func Paths(dir string) Files {
	return Files{
		UsersJSONL:  filepath.Join(dir, "users.jsonl"),
		EventsJSONL: filepath.Join(dir, "events.jsonl"),
		UsersCSV:    filepath.Join(dir, "users.csv"),
		EventsCSV:   filepath.Join(dir, "events.csv"),
	}
}

// EventsPerUser is the events file's size over the users file's.
const EventsPerUser = 5

// Write writes users rows of users and EventsPerUser times as many events into dir, in both formats. About one
// event in eleven names a user that does not exist, so the join drops some rows.
func Write(dir string, users int, seed uint64) (Files, error) {
	p := Paths(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return p, err
	}
	for _, f := range []struct {
		path string
		rows int
		row  func(w *bufio.Writer, i int, h uint64)
	}{
		{p.UsersJSONL, users, userJSON},
		{p.UsersCSV, users, userCSV},
		{p.EventsJSONL, users * EventsPerUser, eventJSON(users)},
		{p.EventsCSV, users * EventsPerUser, eventCSV(users)},
	} {
		if err := write(f.path, f.rows, seed, f.row); err != nil {
			return p, err
		}
	}
	return p, nil
}

// WriteKeyPair writes the two files of the --mem table in docs/files.md into dir, rows lines of JSON each:
// a.jsonl holds k (0 to rows-1, each once), v and name; b.jsonl holds k (uniform over a's keys, so every line
// joins exactly one of a's), w and tag. A join of the two on k returns rows rows, and sorts and groups on
// keys of every multiplicity, at a few columns a line: the shape that spills under a small --mem.
func WriteKeyPair(dir string, rows int, seed uint64) (a, b string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	a, b = filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	if err := write(a, rows, seed, func(w *bufio.Writer, i int, h uint64) {
		fmt.Fprintf(w, `{"k":%d,"v":%d,"name":"n%d"}`+"\n", i, h%1000, h>>10%100000)
	}); err != nil {
		return a, b, err
	}
	// Another seed for b, so that its hashes are not a's line by line.
	err = write(b, rows, seed+1, func(w *bufio.Writer, i int, h uint64) {
		fmt.Fprintf(w, `{"k":%d,"w":%d,"tag":"t%d"}`+"\n", h%uint64(rows), h>>32%1000, h>>42%100)
	})
	return a, b, err
}

func write(path string, rows int, seed uint64, row func(w *bufio.Writer, i int, h uint64)) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if filepath.Ext(path) == ".csv" {
		row(w, -1, 0) // the header
	}
	for i := range rows {
		row(w, i, mix(uint64(i)^seed*0x9e3779b97f4a7c15))
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return os.Rename(tmp, path)
}

// mix is a 64-bit finaliser: consecutive row numbers give unrelated values.
func mix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

func userJSON(w *bufio.Writer, i int, h uint64) {
	fmt.Fprintf(w, `{"user_id":%d,"name":"user%d","age":%d,"score":%d.%02d,"active":%t,"signup":"2024-%02d-%02dT10:00:00Z","profile":{"country":"C%d","level":%d}}`+"\n",
		i, h%100000, 18+h%60, h%1000, h>>10%100, h>>20%3 == 0, 1+h>>24%12, 1+h>>28%28, h>>32%50, h>>40%10)
}

func userCSV(w *bufio.Writer, i int, h uint64) {
	if i < 0 {
		fmt.Fprintln(w, "user_id,name,age,score,active,signup,country,level")
		return
	}
	fmt.Fprintf(w, "%d,user%d,%d,%d.%02d,%t,2024-%02d-%02dT10:00:00Z,C%d,%d\n",
		i, h%100000, 18+h%60, h%1000, h>>10%100, h>>20%3 == 0, 1+h>>24%12, 1+h>>28%28, h>>32%50, h>>40%10)
}

func eventJSON(users int) func(w *bufio.Writer, i int, h uint64) {
	span := uint64(users + users/10)
	return func(w *bufio.Writer, i int, h uint64) {
		fmt.Fprintf(w, `{"event_id":%d,"user_id":%d,"amount":%d,"ts":"2024-06-%02dT%02d:%02d:00Z","kind":"k%d","meta":{"device":"d%d","ms":%d}}`+"\n",
			i, h%span, h>>8%1000, 1+h>>18%28, h>>23%24, h>>28%60, h>>34%20, h>>40%8, h>>44%5000)
	}
}

func eventCSV(users int) func(w *bufio.Writer, i int, h uint64) {
	span := uint64(users + users/10)
	return func(w *bufio.Writer, i int, h uint64) {
		if i < 0 {
			fmt.Fprintln(w, "event_id,user_id,amount,ts,kind,device,ms")
			return
		}
		fmt.Fprintf(w, "%d,%d,%d,2024-06-%02dT%02d:%02d:00Z,k%d,d%d,%d\n",
			i, h%span, h>>8%1000, 1+h>>18%28, h>>23%24, h>>28%60, h>>34%20, h>>40%8, h>>44%5000)
	}
}

// Query is one benchmark query over the users and events files of one format.
type Query struct {
	Name   string
	Format string // "jsonl" or "csv"
	KQL    string // over @Users and @Events
	// SQL is DuckDB's twin; %[1]s is the users file and %[2]s the events file. Both answer one row n, s1, s2.
	SQL string
}

// Queries are the benchmark's queries: the join with top-level columns only, in both formats, and the same
// join reading nested fields by path (JSON lines only: CSV has no nesting).
var Queries = []Query{
	{
		Name: "flat", Format: "jsonl",
		KQL: `@Events | join kind=inner (@Users) on user_id | summarize n=count(), s1=sum(amount), s2=sum(age)`,
		SQL: `select count(*) as n, sum(amount) as s1, sum(age) as s2 from read_json_auto('%[2]s') e join read_json_auto('%[1]s') u on e.user_id = u.user_id`,
	},
	{
		Name: "nested", Format: "jsonl",
		KQL: `@Events | join kind=inner (@Users) on user_id | where profile.level > 3 | summarize n=count(), s1=sum(meta.ms), s2=sum(profile.level)`,
		SQL: `select count(*) as n, sum(e.meta.ms) as s1, sum(u.profile.level) as s2 from read_json_auto('%[2]s') e join read_json_auto('%[1]s') u on e.user_id = u.user_id where u.profile.level > 3`,
	},
	{
		Name: "flat", Format: "csv",
		KQL: `@Events | join kind=inner (@Users) on user_id | summarize n=count(), s1=sum(amount), s2=sum(age)`,
		SQL: `select count(*) as n, sum(amount) as s1, sum(age) as s2 from read_csv('%[2]s') e join read_csv('%[1]s') u on e.user_id = u.user_id`,
	},
}
