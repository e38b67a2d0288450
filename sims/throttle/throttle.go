// Package throttle models what a remote service does to a client besides answering: a token-bucket rate limit
// that answers 429 with a retry-after, latency that grows with the response, and injected faults. Every random
// choice comes from a seeded generator, drawn in a fixed order per request, so a run replays exactly.
package throttle

import (
	"math/rand/v2"
	"time"

	"github.com/joinlab/joinlab/engine/connector"
)

// Bucket is a token bucket on virtual time: Burst tokens at most, refilled at Requests per Window. A request
// takes one token; with none left it is refused with the time until the next token. It is the engine's
// connector.TokenBucket, so the engine's pacing of overlapped requests (connector.Pacer) and the services'
// rate limits compute the same times.
type Bucket = connector.TokenBucket

// NewBucket returns a full bucket; requests <= 0 means no limit.
func NewBucket(requests int, window time.Duration, burst int) *Bucket {
	return connector.NewTokenBucket(requests, window, burst)
}

// Latency is the time one response takes: Base, plus PerKB for every 1,024 bytes of body, plus a seeded
// jitter uniform in [0, Jitter).
type Latency struct {
	Base, PerKB, Jitter time.Duration
}

// Of is the latency of a response of n bytes.
func (l Latency) Of(n int64, rng *rand.Rand) time.Duration {
	d := l.Base + time.Duration(float64(l.PerKB)*float64(n)/1024)
	if l.Jitter > 0 {
		d += time.Duration(rng.Int64N(int64(l.Jitter)))
	}
	return d
}

// Faults are injected failures, each a probability per request.
type Faults struct {
	// Transient is the rate of 503 answers.
	Transient float64
	// Timeout is the rate of requests that never answer; the client gives up after TimeoutAfter.
	Timeout      float64
	TimeoutAfter time.Duration
	// Truncate is the rate of pages cut short (to a random non-empty prefix) and flagged truncated.
	Truncate float64
}

// Fault is what happens to one request.
type Fault uint8

const (
	None Fault = iota
	Unavailable
	TimedOut
	Truncated
)

// Draw picks the fault of one request. It always draws once, so faults do not shift the rest of the run's
// random sequence when rates change from zero.
func (f Faults) Draw(rng *rand.Rand) Fault {
	x := rng.Float64()
	switch {
	case x < f.Transient:
		return Unavailable
	case x < f.Transient+f.Timeout:
		return TimedOut
	case x < f.Transient+f.Timeout+f.Truncate:
		return Truncated
	}
	return None
}
