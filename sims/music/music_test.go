package music

import (
	"fmt"
	"testing"
)

func TestGenerateIsSeededAndConsistent(t *testing.T) {
	c := Config{Users: 50, Songs: 20, Listens: 1000, Follows: 2000, HotShare: 0.3}
	a, err := Generate(7, c)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Generate(7, c)
	if fmt.Sprint(a.Listens.Cols[1].Ints) != fmt.Sprint(b.Listens.Cols[1].Ints) {
		t.Fatal("the same seed gave different listens")
	}
	hot := 0
	for i, u := range a.Listens.Cols[0].Ints {
		if u < 0 || u >= 50 || a.Listens.Cols[1].Ints[i] >= 20 {
			t.Fatalf("listen %d references user %d song %d outside the tables", i, u, a.Listens.Cols[1].Ints[i])
		}
		if u == 0 {
			hot++
		}
	}
	if hot < 250 || hot > 380 {
		t.Fatalf("user 0 has %d of 1000 listens, want about 300", hot)
	}
	followed := 0
	for i, u := range a.Follows.Cols[1].Ints {
		if f := a.Follows.Cols[0].Ints[i]; u < 0 || u >= 50 || f < 0 || f >= 50 {
			t.Fatalf("follow %d: %d follows %d, outside Users", i, f, u)
		}
		if u == 0 {
			followed++
		}
	}
	if a.Follows.N != 2000 || followed < 500 || followed > 760 {
		t.Fatalf("user 0 has %d of %d follows, want about 600 of 2000", followed, a.Follows.N)
	}
	noFollows, _ := Generate(7, Config{Users: 50, Songs: 20, Listens: 1000, HotShare: 0.3})
	if fmt.Sprint(noFollows.Listens.Cols[0].Ints) != fmt.Sprint(a.Listens.Cols[0].Ints) {
		t.Fatal("generating follows changed the listens of the same seed")
	}
	if _, err := Generate(1, Config{}); err == nil {
		t.Fatal("an empty config should be refused")
	}
}
