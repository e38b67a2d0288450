// Package linkstore is where the Worker keeps short share links and the counters that rate-limit their creation:
// a small key-value interface with two implementations, Cloudflare Workers KV when the Worker runs in workerd
// (kv.go, js/wasm only) and a bbolt database file when it runs natively (bolt.go), so that links made with
// `go run mage.go serve` survive a restart.
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
// can lose a concurrent Put, which is why the Worker's rate limit is approximate (Workers KV offers nothing
// stronger: it is eventually consistent across locations, with about a minute of delay).
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

// MinTTL is the shortest expiry Workers KV accepts; both implementations round a shorter positive ttl up to it,
// so that they behave alike.
const MinTTL = 60 * time.Second

func roundTTL(ttl time.Duration) time.Duration {
	if ttl > 0 && ttl < MinTTL {
		return MinTTL
	}
	return ttl
}
