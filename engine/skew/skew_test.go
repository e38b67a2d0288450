package skew

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestExactCounts(t *testing.T) {
	c := NewCounter()
	for i := 0; i < 100; i++ {
		c.Add(fmt.Sprint(i % 10))
	}
	c.Add("hot")
	for i := 0; i < 50; i++ {
		c.Add("hot")
	}
	if !c.Exact() || c.Total() != 151 || c.ErrorBound() != 0 {
		t.Fatalf("exact=%v total=%d bound=%d", c.Exact(), c.Total(), c.ErrorBound())
	}
	got := c.Above(11)
	if len(got) != 1 || got[0] != (Item{Key: "hot", Count: 51}) {
		t.Fatalf("Above(11) = %v, want only hot with 51", got)
	}
	if n, err := c.Count("3"); n != 10 || err != 0 {
		t.Fatalf("Count(3) = %d±%d, want 10", n, err)
	}
	each := map[string]int64{}
	c.Each(func(k string, n int64) { each[k] += n })
	if len(each) != 11 || each["hot"] != 51 || each["7"] != 10 {
		t.Fatalf("Each saw %v, want 11 keys, hot 51 and 10 of each digit", each)
	}
	if e, z := c.Estimate("hot"), c.Estimate("absent"); e != 51 || z != 0 {
		t.Fatalf("exact estimates: hot %g, absent %g; want 51 and 0", e, z)
	}
}

// TestSketchKeepsHeavyKeys feeds more distinct keys than ExactKeys, with a few planted heavy keys, and checks
// the sketch's guarantees against exact counts kept beside it.
func TestSketchKeepsHeavyKeys(t *testing.T) {
	const seed = 42
	t.Logf("seed=%d", seed)
	r := rand.New(rand.NewPCG(seed, seed))
	c := NewCounter()
	truth := map[string]int64{}
	add := func(k string) { c.Add(k); truth[k]++ }
	heavy := map[string]bool{"h0": true, "h1": true, "h2": true}
	for i := 0; i < 5*ExactKeys/4; i++ {
		switch x := r.IntN(100); {
		case x < 3:
			add(fmt.Sprintf("h%d", x))
		default:
			add(fmt.Sprintf("k%d", r.IntN(16*ExactKeys)))
		}
	}
	if c.Exact() {
		t.Fatal("the sketch should have taken over")
	}
	bound := c.ErrorBound()
	if bound > c.Total()/SketchCounters {
		t.Fatalf("error bound %d exceeds total/counters = %d", bound, c.Total()/SketchCounters)
	}
	above := c.Above(c.Total() / 200)
	found := map[string]bool{}
	for _, it := range above {
		found[it.Key] = true
		if tr := truth[it.Key]; it.Count < tr || it.Count-it.Err > tr {
			t.Fatalf("%s: measured %d (err %d) but true count %d", it.Key, it.Count, it.Err, tr)
		}
	}
	for k := range heavy {
		if !found[k] {
			t.Fatalf("heavy key %s (%d rows of %d) not reported; got %v", k, truth[k], c.Total(), above)
		}
	}
	tracked := 0
	c.Each(func(k string, n int64) {
		tracked++
		if got, _ := c.Count(k); got != n {
			t.Fatalf("Each gave %s %d rows, Count %d", k, n, got)
		}
	})
	if tracked != SketchCounters {
		t.Fatalf("Each visited %d tracked keys, want %d", tracked, SketchCounters)
	}
	// Point estimates: a heavy key's lies within its bounds; a key the sketch lost (the tail here is keys of
	// about one row each) is estimated near one row.
	for k := range heavy {
		n, err := c.Count(k)
		if e := c.Estimate(k); e < float64(n-err) || e > float64(n) {
			t.Fatalf("%s: estimate %g outside [%d, %d]", k, e, n-err, n)
		}
	}
	for k, n := range truth {
		if _, tracked := c.sketch.pos[k]; !tracked && n == 1 {
			if e := c.Estimate(k); e < 0.5 || e > 2 {
				t.Fatalf("untracked %s (1 row): estimate %g, want about 1", k, e)
			}
			break
		}
	}
	for k, n := range truth {
		if n > bound {
			if got, _ := c.Count(k); got < n {
				t.Fatalf("%s has %d rows, above the bound %d, but the sketch says %d", k, n, bound, got)
			}
		}
	}
}

func TestThreshold(t *testing.T) {
	if got := Threshold(1000, 10); got != 10 {
		t.Fatalf("Threshold(1000, 10) = %d, want 10", got)
	}
	if got := Threshold(3, 64); got != minHeavyRows {
		t.Fatalf("Threshold(3, 64) = %d, want %d", got, minHeavyRows)
	}
}
