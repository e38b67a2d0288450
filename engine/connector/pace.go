package connector

import (
	"sync"
	"time"
)

// Pacer spaces the requests a source's overlapped tasks send (Overlap) to the rate the source publishes
// (Caps.Requests per Window, bursts of Burst), so that sending several at once does not just earn throttles:
// it counts the source's tokens with the source's own arithmetic (TokenBucket), and an overlapped request that
// would find none waits on its lane until one is free, instead of being sent, refused and retried after a
// jittered retry-after.
//
// Every request to the source is counted, paced or not, so the count follows the source's; requests sent one
// at a time are never held back (their traces are those of an engine without pacing: a throttle is retried as
// it always was). A throttle the source answers anyway (a request the pacer did not see, another client)
// resets the count to what the source said (TokenBucket.Refused) and is retried as usual. One Pacer serves a
// Source and every copy of it (With, Push) and every strategy that sends its own requests through it (the paged
// join), so the requests of one query to one source share it. Cost: a few float operations a send. Safe for
// concurrent use.
type Pacer struct {
	mu     sync.Mutex
	bucket *TokenBucket
}

// NewPacer paces to caps' published rate; nil (no pacing) when caps publish none.
func NewPacer(caps Caps) *Pacer {
	if caps.Requests <= 0 || caps.Window <= 0 {
		return nil
	}
	return &Pacer{bucket: NewTokenBucket(caps.Requests, caps.Window, caps.Burst)}
}

// take counts a request about to be sent at now: it takes a token if one is free. A paced request that finds
// none is told how long until one is (wait > 0: it must wait and ask again); one that is not paced is sent
// anyway, as it would be without a pacer.
func (p *Pacer) take(now time.Duration, paced bool) (wait time.Duration) {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if ok, after := p.bucket.Take(now); !ok && paced {
		return after
	}
	return 0
}

// refused tells the pacer the source throttled a request sent at sent, asking for retryAfter.
func (p *Pacer) refused(sent, retryAfter time.Duration) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bucket.Refused(sent, retryAfter)
}
