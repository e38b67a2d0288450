//go:build js && wasm

package linkstore

import (
	"context"
	"fmt"
	"time"

	"github.com/syumai/workers/cloudflare/kv"
)

// kvMissing is what the kv package returns for a missing key: it converts JavaScript's null with
// js.Value.String. No value the Worker stores (JSON objects, ids, decimal counters) can equal it.
const kvMissing = "<null>"

// KV is a Store in a Workers KV namespace. Values are stored as text (the Worker's values are UTF-8 JSON and
// decimal numbers). KV is eventually consistent: a Put is visible at once where it was made and within about a
// minute elsewhere.
type KV struct {
	binding string
}

var _ Store = (*KV)(nil)

// NewKV returns a Store over the KV namespace bound to the Worker as binding (kv_namespaces in wrangler.jsonc).
// The namespace is looked up on each call, because workerd starts a new Go instance, with a new runtime
// context, for every request.
func NewKV(binding string) *KV { return &KV{binding: binding} }

func (s *KV) namespace() (*kv.Namespace, error) {
	ns, err := kv.NewNamespace(s.binding)
	if err != nil {
		return nil, fmt.Errorf("linkstore: KV binding %s: %w", s.binding, err)
	}
	return ns, nil
}

// Get implements Store.
func (s *KV) Get(_ context.Context, key string) ([]byte, error) {
	ns, err := s.namespace()
	if err != nil {
		return nil, err
	}
	v, err := ns.GetString(key, nil)
	if err != nil {
		return nil, fmt.Errorf("linkstore: KV get %s: %w", key, err)
	}
	if v == kvMissing {
		return nil, ErrNotFound
	}
	return []byte(v), nil
}

// Put implements Store.
func (s *KV) Put(_ context.Context, key string, value []byte, ttl time.Duration) error {
	ns, err := s.namespace()
	if err != nil {
		return err
	}
	var opts *kv.PutOptions
	if ttl = roundTTL(ttl); ttl > 0 {
		// KV counts whole seconds; rounding up keeps ttl a lower bound.
		opts = &kv.PutOptions{ExpirationTTL: int((ttl + time.Second - 1) / time.Second)}
	}
	if err := ns.PutString(key, string(value), opts); err != nil {
		return fmt.Errorf("linkstore: KV put %s: %w", key, err)
	}
	return nil
}
