package music

import (
	"fmt"
	"testing"
)

func TestGenerateIsSeededAndConsistent(t *testing.T) {
	c := Config{Users: 50, Songs: 20, Listens: 1000, HotShare: 0.3}
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
	if _, err := Generate(1, Config{}); err == nil {
		t.Fatal("an empty config should be refused")
	}
}
