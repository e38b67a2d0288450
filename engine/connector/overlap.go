package connector

import (
	"context"
	"time"
)

// LaneClock is a Clock on which requests may overlap: a virtual clock the engine can set to the time of any one
// of several requests in flight at once. Each request chain of an Overlap group keeps its own time (its lane);
// the lanes run one at a time, and before one runs the clock is set to that lane's time, so the source reads
// the lane's time when it takes a rate-limit token and adds its latency to the lane's time. After the group
// the clock is set to the latest time any lane reached.
type LaneClock interface {
	Clock
	// SetNow sets the clock to t, which may be earlier than Now: the time of the lane about to run.
	SetNow(t time.Duration)
}

// Overlap runs n independent tasks — each a chain of requests to one source, sent through a Retrier — with at
// most limit of them in flight at once (limit <= 1: one at a time), and returns their answers in task order,
// whatever order they finished in.
//
// On a LaneClock the tasks overlap in virtual time, deterministically. The first limit tasks start at the
// clock's time; each later task starts when a running one ends, at that one's end. Every task runs in a
// goroutine of its own, but only one goroutine runs at a time: a task runs until it is about to send or has
// been answered (Retrier.Send waits for its turn there), and the task let on next is always the one whose lane
// is earliest, the lowest index among equals. So the source sees its requests in the order of their start
// times, rate limits and retry waits are taken on each lane's own time, every random draw happens in the same
// order on every run, and the trace's events come in the order of their times. A group whose requests have
// latencies l₁…lₙ ≤ limit costs max lᵢ of virtual time, not Σ lᵢ. Tasks of a group started from inside another
// group's task run one after another in that task's lane, which holds one of the outer group's slots.
//
// A task that fails stops the tasks after it (by index): those not yet started never start, and those in flight
// are cancelled, as they would never have been sent one at a time. The tasks before it run to their end, and
// the error returned is that of the first failing task by index, the one a sequential run would have met.
//
// A task that panics ends the group: the other lanes are cancelled and run to their end, and the panic is raised
// again in the caller's goroutine, where a recover (the browser runner's) can see it.
//
// On any other clock (a wall clock, a test's own) the tasks run one after another in order.
func Overlap[T any](ctx context.Context, clock Clock, limit, n int, task func(ctx context.Context, i int) (T, error)) ([]T, error) {
	out := make([]T, n)
	lc, ok := clock.(LaneClock)
	if limit <= 1 || n <= 1 || !ok || laneOf(ctx) != nil {
		for i := 0; i < n; i++ {
			v, err := task(ctx, i)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	errs := make([]error, n)
	s := &lanes{back: make(chan *lane)}
	var parked []*lane // started lanes waiting for their turn, each at its own time
	started := 0
	launch := func(at time.Duration) {
		l := &lane{index: started, at: at, wake: make(chan struct{}), s: s}
		started++
		var lctx context.Context
		lctx, l.cancel = context.WithCancel(ctx)
		lctx = context.WithValue(lctx, laneKey{}, l)
		go func() {
			defer func() {
				l.panicked = recover()
				l.at, l.done = lc.Now(), true
				s.back <- l
			}()
			<-l.wake
			out[l.index], errs[l.index] = task(lctx, l.index)
		}()
		parked = append(parked, l)
	}
	for started < min(limit, n) {
		launch(lc.Now())
	}
	failed := n // the lowest index of a failed task
	latest := lc.Now()
	var panicked any // a task's panic, raised again here once every lane has ended
	for len(parked) > 0 {
		j := 0
		for k, l := range parked {
			if l.at < parked[j].at || (l.at == parked[j].at && l.index < parked[j].index) {
				j = k
			}
		}
		l := parked[j]
		parked = append(parked[:j], parked[j+1:]...)
		lc.SetNow(l.at)
		l.wake <- struct{}{}
		if l = <-s.back; !l.done {
			parked = append(parked, l)
			continue
		}
		latest = max(latest, l.at)
		l.cancel()
		if l.panicked != nil && panicked == nil {
			panicked, failed = l.panicked, -1
			for _, o := range parked {
				o.cancel()
			}
		}
		if errs[l.index] != nil && l.index < failed {
			failed = l.index
			for _, o := range parked {
				if o.index > failed {
					o.cancel()
				}
			}
		}
		if started < n && started < failed {
			launch(l.at)
		}
	}
	lc.SetNow(latest)
	if panicked != nil {
		panic(panicked) // in the caller's goroutine, where a recover can see it
	}
	if failed < n {
		return nil, errs[failed]
	}
	return out, nil
}

// lanes is one Overlap group's hand-over point: the running lane gives the turn back on back.
type lanes struct {
	back chan *lane
}

// lane is one task of an Overlap group: its own virtual time, and the channel its turn comes on.
type lane struct {
	index    int
	at       time.Duration // the lane's time when it gave its turn back
	done     bool
	panicked any // what the task panicked with, if it did
	wake     chan struct{}
	cancel   context.CancelFunc
	s        *lanes
}

type laneKey struct{}

func laneOf(ctx context.Context) *lane {
	l, _ := ctx.Value(laneKey{}).(*lane)
	return l
}

// awaitTurn, in a task of an Overlap group, gives the turn back at the clock's time (the lane's) and returns
// when the group lets the lane run again: when no other lane of the group is earlier. Outside a group it
// returns at once.
func awaitTurn(ctx context.Context, clock Clock) {
	l := laneOf(ctx)
	if l == nil {
		return
	}
	l.at = clock.Now()
	l.s.back <- l
	<-l.wake
}
