//go:build !js

package linkstore

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

func TestBoltSurvivesReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "links.db")
	b, err := OpenBolt(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Put(ctx, "link:a", []byte(`{"seed":1}`), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get(ctx, "link:missing"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of a missing key = %v, want ErrNotFound", err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	b, err = OpenBolt(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got, err := b.Get(ctx, "link:a")
	if err != nil || string(got) != `{"seed":1}` {
		t.Fatalf("after reopening, Get = %q, %v", got, err)
	}
}

func TestBoltExpiry(t *testing.T) {
	ctx := context.Background()
	b, err := OpenBolt(filepath.Join(t.TempDir(), "links.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	now := time.Unix(1_000_000, 0)
	b.now = func() time.Time { return now }
	// A 1 s ttl is rounded up to MinTTL, as Workers KV does.
	if err := b.Put(ctx, "rate:x", []byte("3"), time.Second); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		after time.Duration
		want  error
	}{{0, nil}, {MinTTL - time.Nanosecond, nil}, {MinTTL, ErrNotFound}} {
		now = time.Unix(1_000_000, 0).Add(tc.after)
		if _, err := b.Get(ctx, "rate:x"); !errors.Is(err, tc.want) {
			t.Errorf("Get %v after Put = %v, want %v", tc.after, err, tc.want)
		}
	}
}

func TestBoltSecondOpenFailsFast(t *testing.T) {
	path := filepath.Join(t.TempDir(), "links.db")
	b, err := OpenBolt(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b2, err := OpenBolt(path); err == nil {
		b2.Close()
		t.Fatal("a second OpenBolt of a locked file succeeded")
	}
}
