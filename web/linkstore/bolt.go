//go:build !js

package linkstore

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// bucket holds every key; one bucket suffices, since the keys carry their own prefixes.
var bucket = []byte("joinlab")

// boltOpenTimeout bounds the wait for the file lock: a second server on the same file fails fast rather than
// hanging.
const boltOpenTimeout = 2 * time.Second

// Bolt is a Store in a bbolt database file. Each value is stored behind an 8-byte big-endian expiry in Unix
// nanoseconds (0: never); expired values read as missing and are deleted when next written over. Every Put is a
// committed, fsynced transaction, so a value survives a crash once Put returns.
type Bolt struct {
	db  *bolt.DB
	now func() time.Time // a test knob: the clock that decides expiry
}

var _ Store = (*Bolt)(nil)

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
		raw := tx.Bucket(bucket).Get([]byte(key))
		if len(raw) < 8 {
			return ErrNotFound
		}
		if exp := int64(binary.BigEndian.Uint64(raw)); exp != 0 && b.now().UnixNano() >= exp {
			return ErrNotFound
		}
		// raw is valid only inside the transaction.
		value = append([]byte(nil), raw[8:]...)
		return nil
	})
	if err != nil && err != ErrNotFound {
		return nil, fmt.Errorf("linkstore: get %s: %w", key, err)
	}
	return value, err
}

// Put implements Store.
func (b *Bolt) Put(_ context.Context, key string, value []byte, ttl time.Duration) error {
	var exp int64
	if ttl = roundTTL(ttl); ttl > 0 {
		exp = b.now().Add(ttl).UnixNano()
	}
	raw := make([]byte, 8+len(value))
	binary.BigEndian.PutUint64(raw, uint64(exp))
	copy(raw[8:], value)
	err := b.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucket).Put([]byte(key), raw)
	})
	if err != nil {
		return fmt.Errorf("linkstore: put %s: %w", key, err)
	}
	return nil
}
