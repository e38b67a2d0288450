package clock

import (
	"context"
	"testing"
	"time"

	"github.com/joinlab/joinlab/engine/connector"
)

func TestVirtualAdvanceAndSleep(t *testing.T) {
	c := New()
	c.Advance(300 * time.Millisecond)
	c.Advance(-time.Second) // time never goes back by Advance
	if err := c.Sleep(context.Background(), 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if c.Now() != 500*time.Millisecond {
		t.Fatalf("now %s, want 500ms", c.Now())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Sleep(ctx, time.Second); err == nil || c.Now() != 500*time.Millisecond {
		t.Fatalf("a cancelled sleep: %v, now %s; want an error and no time passed", err, c.Now())
	}
}

// SetNow moves the clock to a lane's time, back or forth.
func TestVirtualSetNow(t *testing.T) {
	c := New()
	c.Advance(time.Second)
	c.SetNow(200 * time.Millisecond)
	if c.Now() != 200*time.Millisecond {
		t.Fatalf("now %s after SetNow(200ms)", c.Now())
	}
	c.SetNow(3 * time.Second)
	if c.Now() != 3*time.Second {
		t.Fatalf("now %s after SetNow(3s)", c.Now())
	}
}

// sleeper is a connector whose every answer takes the latency its request's Limit names, in milliseconds, on
// the virtual clock, as a simulated service's does.
type sleeper struct{ c *Virtual }

func (s sleeper) Caps() connector.Caps { return connector.Caps{Concurrent: 4} }

func (s sleeper) Query(ctx context.Context, req connector.Request) (connector.Page, error) {
	s.c.Advance(time.Duration(req.Limit) * time.Millisecond)
	return connector.Page{}, nil
}

// A group of requests overlapped on the virtual clock starts from one time and ends at the latest end: four
// requests of 100–400 ms in flight at once cost 400 ms after the group's start, not the 1 s of their sum.
func TestVirtualOverlappedGroupEndsAtTheLatest(t *testing.T) {
	c := New()
	c.Advance(50 * time.Millisecond)
	conn := sleeper{c}
	r := connector.NewRetrier(conn, "S", "test", connector.Options{Clock: c, Seed: 1}, nil, nil)
	lat := []int{200, 400, 100, 300}
	var starts []time.Duration
	_, err := connector.Overlap(context.Background(), c, conn.Caps().Concurrent, len(lat), func(ctx context.Context, i int) (struct{}, error) {
		starts = append(starts, c.Now())
		_, err := r.Send(ctx, connector.Request{Table: "T", Limit: lat[i]}, "")
		return struct{}{}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range starts {
		if s != 50*time.Millisecond {
			t.Errorf("request %d started at %s, want the group's start, 50ms", i, s)
		}
	}
	if c.Now() != 450*time.Millisecond {
		t.Fatalf("the group ended at %s, want 450ms", c.Now())
	}
}
