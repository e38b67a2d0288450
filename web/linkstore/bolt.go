//go:build !js

package linkstore

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"
)

// bucket holds every key; one bucket suffices, since the keys carry their own prefixes.
var bucket = []byte("joinlab")

// boltOpenTimeout bounds the wait for the file lock: a second server on the same file fails fast rather than
// hanging.
const boltOpenTimeout = 2 * time.Second

// Bolt is a Store in a bbolt database file. Each value is stored behind an 8-byte big-endian expiry in Unix
// nanoseconds (0: never); expired values read as missing and are deleted when next written over. Every Put and
// Take is a committed, fsynced transaction, so a value survives a crash once the call returns. bbolt runs one
// writing transaction at a time, which is what makes Take atomic; its cost is an fsync per call.
type Bolt struct {
	db  *bolt.DB
	now func() time.Time // a test knob: the clock that decides expiry
}

var (
	_ Store   = (*Bolt)(nil)
	_ Limiter = (*Bolt)(nil)
)

// OpenBolt opens (creating if needed) the database file at path. Close releases it.
func OpenBolt(path string) (*Bolt, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: boltOpenTimeout})
	if err != nil {
		return nil, fmt.Errorf("linkstore: open %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucket)
		return err
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("linkstore: create bucket in %s: %w", path, err)
	}
	return &Bolt{db: db, now: time.Now}, nil
}

// Close closes the database file.
func (b *Bolt) Close() error { return b.db.Close() }

// Get implements Store.
func (b *Bolt) Get(_ context.Context, key string) ([]byte, error) {
	var value []byte
	err := b.db.View(func(tx *bolt.Tx) error {
		raw, ok := b.live(tx.Bucket(bucket).Get([]byte(key)))
		if !ok {
			return ErrNotFound
		}
		// raw is valid only inside the transaction.
		value = append([]byte(nil), raw...)
		return nil
	})
	if err != nil && err != ErrNotFound {
		return nil, fmt.Errorf("linkstore: get %s: %w", key, err)
	}
	return value, err
}

// Put implements Store.
func (b *Bolt) Put(_ context.Context, key string, value []byte, ttl time.Duration) error {
	raw := encode(b.expiry(ttl), value)
	err := b.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucket).Put([]byte(key), raw)
	})
	if err != nil {
		return fmt.Errorf("linkstore: put %s: %w", key, err)
	}
	return nil
}

// Take implements Limiter: the read, the check and the increment are one writing transaction. The counter is
// a decimal number; it keeps the expiry of the Take that created it.
func (b *Bolt) Take(_ context.Context, key string, limit int, ttl time.Duration) (bool, error) {
	taken := false
	err := b.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucket)
		n, exp := 0, b.expiry(ttl)
		if raw := bk.Get([]byte(key)); raw != nil {
			if v, ok := b.live(raw); ok {
				n, _ = strconv.Atoi(string(v)) // an unreadable counter restarts at 0
				exp = int64(binary.BigEndian.Uint64(raw))
			}
		}
		if n >= limit {
			return nil
		}
		taken = true
		return bk.Put([]byte(key), encode(exp, []byte(strconv.Itoa(n+1))))
	})
	if err != nil {
		return false, fmt.Errorf("linkstore: take %s: %w", key, err)
	}
	return taken, nil
}

// expiry is the stored expiry of a value put now with ttl.
func (b *Bolt) expiry(ttl time.Duration) int64 {
	if ttl = roundTTL(ttl); ttl > 0 {
		return b.now().Add(ttl).UnixNano()
	}
	return 0
}

// live returns the value in a stored record and whether it is there and unexpired.
func (b *Bolt) live(raw []byte) ([]byte, bool) {
	if len(raw) < 8 {
		return nil, false
	}
	if exp := int64(binary.BigEndian.Uint64(raw)); exp != 0 && b.now().UnixNano() >= exp {
		return nil, false
	}
	return raw[8:], true
}

func encode(exp int64, value []byte) []byte {
	raw := make([]byte, 8+len(value))
	binary.BigEndian.PutUint64(raw, uint64(exp))
	copy(raw[8:], value)
	return raw
}
