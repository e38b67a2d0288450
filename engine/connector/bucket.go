package connector

import "time"

// TokenBucket is a token bucket on virtual time: Burst tokens at most, refilled at Requests per Window. A
// request takes one token; with none left it is refused with the time until the next token. It is the rate
// limit a source publishes (Caps.Requests, Window, Burst) as arithmetic: the simulated services enforce it
// with one (sims/throttle), and the engine paces its overlapped requests with another (Pacer), so the two
// agree to the nanosecond on when a token is free. Not safe for concurrent use.
type TokenBucket struct {
	Requests int
	Window   time.Duration
	Burst    int

	tokens float64
	last   time.Duration
	primed bool
}

// NewTokenBucket returns a full bucket; requests <= 0 means no limit.
func NewTokenBucket(requests int, window time.Duration, burst int) *TokenBucket {
	if burst <= 0 {
		burst = max(1, requests)
	}
	return &TokenBucket{Requests: requests, Window: window, Burst: burst}
}

// Take takes a token at virtual time now, or reports how long until one is available (rounded up to whole
// milliseconds, never zero, as services round their retry-after).
func (b *TokenBucket) Take(now time.Duration) (ok bool, retryAfter time.Duration) {
	if b == nil || b.Requests <= 0 || b.Window <= 0 {
		return true, 0
	}
	if !b.primed {
		b.tokens, b.last, b.primed = float64(b.Burst), now, true
	}
	perToken := float64(b.Window) / float64(b.Requests)
	b.tokens = min(float64(b.Burst), b.tokens+float64(now-b.last)/perToken)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	wait := time.Duration((1 - b.tokens) * perToken)
	// Services round retry-after up to whole milliseconds at least; never answer zero.
	wait = max(time.Millisecond, wait.Round(time.Millisecond))
	if wait < time.Duration((1-b.tokens)*perToken) {
		wait += time.Millisecond
	}
	return false, wait
}

// Refused brings the bucket in step with a source that refused a request sent at now, saying its next token
// is retryAfter away: a source shared with requests this bucket never saw has fewer tokens than it counted.
// now must not be earlier than the bucket's last Take.
func (b *TokenBucket) Refused(now, retryAfter time.Duration) {
	if b == nil || b.Requests <= 0 || b.Window <= 0 {
		return
	}
	perToken := float64(b.Window) / float64(b.Requests)
	b.tokens, b.last, b.primed = min(b.tokens, 1-float64(retryAfter)/perToken), now, true
}
