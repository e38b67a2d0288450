package filebench

import (
	"context"
	"fmt"
	"testing"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/query"
	"github.com/joinlab/joinlab/engine/source"
)

// TestQueriesMatchTheGenerator runs every benchmark query through the engine on small generated files and
// checks the answer against one computed from the generator's hashes directly, so the files say what the
// benchmark assumes and the CSV and JSON lines forms hold the same data.
func TestQueriesMatchTheGenerator(t *testing.T) {
	const users, seed = 300, 7
	files, err := Write(t.TempDir(), users, seed)
	if err != nil {
		t.Fatal(err)
	}
	s := uint64(seed)
	hash := func(i int) uint64 { return mix(uint64(i) ^ s*0x9e3779b97f4a7c15) }
	want := map[string][3]int64{}
	span := uint64(users + users/10)
	for j := range users * EventsPerUser {
		h := hash(j)
		u := int(h % span)
		if u >= users {
			continue
		}
		hu := hash(u)
		age, level := int64(18+hu%60), int64(hu>>40%10)
		flat := want["flat"]
		want["flat"] = [3]int64{flat[0] + 1, flat[1] + int64(h>>8%1000), flat[2] + age}
		if level > 3 {
			nested := want["nested"]
			want["nested"] = [3]int64{nested[0] + 1, nested[1] + int64(h>>44%5000), nested[2] + level}
		}
	}
	if want["flat"][0] == 0 || want["nested"][0] == 0 || want["nested"][0] == want["flat"][0] {
		t.Fatalf("the generated data does not exercise the queries: %v", want)
	}
	for _, q := range Queries {
		u, e := files.UsersJSONL, files.EventsJSONL
		if q.Format == "csv" {
			u, e = files.UsersCSV, files.EventsCSV
		}
		t.Run(q.Name+"/"+q.Format, func(t *testing.T) {
			sources := map[string]source.Source{}
			for name, path := range map[string]string{"Users": u, "Events": e} {
				src, err := source.Open(name, path)
				if err != nil {
					t.Fatal(err)
				}
				sources[name] = src
			}
			p, err := query.Prepare(context.Background(), q.KQL, sources, query.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			if _, err := p.Run(context.Background(), func(b *column.Batch) error {
				for _, c := range b.Cols {
					got = append(got, c.Value(0).Int)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if w := want[q.Name]; fmt.Sprint(got) != fmt.Sprint(w[:]) {
				t.Errorf("n, s1, s2 = %v, want %v", got, want[q.Name])
			}
		})
	}
}

// TestKeyPairJoins joins the two files of WriteKeyPair as docs/files.md's --mem table does and checks the
// answer against one computed from the generator's hashes: every line of b meets one line of a.
func TestKeyPairJoins(t *testing.T) {
	const rows, seed = 1000, 3
	a, b, err := WriteKeyPair(t.TempDir(), rows, seed)
	if err != nil {
		t.Fatal(err)
	}
	hash := func(i int, seed uint64) uint64 { return mix(uint64(i) ^ seed*0x9e3779b97f4a7c15) }
	var s, w int64
	for j := range rows {
		h := hash(j, seed+1)
		s += int64(hash(int(h%rows), seed) % 1000)
		w += int64(h >> 32 % 1000)
	}
	sources := map[string]source.Source{}
	for name, path := range map[string]string{"A": a, "B": b} {
		if sources[name], err = source.Open(name, path); err != nil {
			t.Fatal(err)
		}
	}
	p, err := query.Prepare(context.Background(), `@A | join kind=inner (@B) on k | summarize n=count(), s=sum(v), t=sum(w)`, sources, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	if _, err := p.Run(context.Background(), func(b *column.Batch) error {
		for _, c := range b.Cols {
			got = append(got, c.Value(0).Int)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := []int64{rows, s, w}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("n, s, t = %v, want %v", got, want)
	}
}
