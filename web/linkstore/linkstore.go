// Package linkstore is where the Worker keeps short share links and the counters that rate-limit their creation.
// Links go in a small key-value interface, Store; counters in Limiter, whose one operation is atomic. Natively a
// bbolt database file is both (bolt.go), so that links made with `go run mage.go serve` survive a restart; in
// workerd (js/wasm only) links are in Workers KV (kv.go) and counters in a Durable Object (durable.go), since
// KV is eventually consistent and has no atomic update.
package linkstore

import (
	"context"
	"errors"
	"time"
)

// ErrNotFound is returned by Get for a key that was never put or whose time to live has passed.
var ErrNotFound = errors.New("linkstore: not found")

// Store is a key-value store with optional expiry.
//
// Keys are short ASCII strings and values are small (the Worker stores at most a share state, 16 KiB).
// Implementations are safe for concurrent use. Neither operation is atomic with another: a Get followed by a Put
// can lose a concurrent Put (Workers KV offers nothing stronger: it is eventually consistent across locations,
// with about a minute of delay). Counting is Limiter's job.
//
// Errors other than ErrNotFound mean the store could not be reached or read; callers answer 500 and retry
// nothing themselves.
type Store interface {
	// Get returns the value stored under key, or ErrNotFound.
	Get(ctx context.Context, key string) ([]byte, error)
	// Put stores value under key, replacing any value there. A ttl of 0 keeps it forever; a positive ttl is a
	// lower bound on how long it lives (Workers KV rounds it up to MinTTL), after which Get reports ErrNotFound.
	Put(ctx context.Context, key string, value []byte, ttl time.Duration) error
}

// Limiter keeps counters that only a limited number of callers may increment.
//
// Take is atomic with respect to every other Take of the same key, in every process and location that shares
// the limiter: of any number of concurrent calls on a counter at n, exactly max(0, limit-n) report true. That
// is what makes a rate limit hold under concurrency, where a Get then a Put of a count lets every concurrent
// caller see the same count. Implementations are safe for concurrent use; an error means the count is unknown
// (callers answer 500, and the call may or may not have counted).
type Limiter interface {
	// Take adds one to the counter named key and reports true if the counter was below limit; otherwise it
	// changes nothing and reports false. A counter lasts ttl (rounded up to MinTTL) from the Take that
	// created it, then starts again at 0: name counters after their window, and let ttl outlast it.
	Take(ctx context.Context, key string, limit int, ttl time.Duration) (bool, error)
}

// MinTTL is the shortest expiry Workers KV accepts; both implementations round a shorter positive ttl up to it,
// so that they behave alike.
const MinTTL = 60 * time.Second

func roundTTL(ttl time.Duration) time.Duration {
	if ttl > 0 && ttl < MinTTL {
		return MinTTL
	}
	return ttl
}
