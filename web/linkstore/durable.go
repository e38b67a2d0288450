//go:build js && wasm

package linkstore

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/syumai/workers/cloudflare"
)

// maxTakeAnswer bounds the limiter object's answer, {"taken": true}, read into memory.
const maxTakeAnswer = 1 << 10

// DurableLimiter is a Limiter whose counters are Durable Objects: one object per counter, named by its key, of
// the class LinkLimiter that the Worker's JavaScript entry exports (web/deploy). A Durable Object runs
// single-threaded in one place, and its Take reads, checks and writes its count in SQLite storage with no
// await in between, so no other request on the same counter can interleave: Take is atomic wherever in the
// world the callers are. Each call is one request to the object (in wrangler dev, a local call; on Cloudflare,
// a round trip to wherever the object lives). The object deletes its storage when the counter's ttl ends.
type DurableLimiter struct {
	binding string
}

var _ Limiter = (*DurableLimiter)(nil)

// NewDurableLimiter returns a Limiter over the Durable Object namespace bound to the Worker as binding
// (durable_objects in wrangler.jsonc). Like KV, the namespace is looked up on each call.
func NewDurableLimiter(binding string) *DurableLimiter { return &DurableLimiter{binding: binding} }

// Take implements Limiter.
func (l *DurableLimiter) Take(ctx context.Context, key string, limit int, ttl time.Duration) (bool, error) {
	ns, err := cloudflare.NewDurableObjectNamespace(l.binding)
	if err != nil {
		return false, fmt.Errorf("linkstore: Durable Object binding %s: %w", l.binding, err)
	}
	stub, err := ns.Get(ns.IdFromName(key))
	if err != nil {
		return false, fmt.Errorf("linkstore: Durable Object %s: %w", key, err)
	}
	// The object's host is never resolved: a stub delivers every request to its object.
	q := url.Values{
		"limit":   {strconv.Itoa(limit)},
		"expires": {strconv.FormatInt(time.Now().Add(roundTTL(ttl)).UnixMilli(), 10)},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://limiter/take?"+q.Encode(), nil)
	if err != nil {
		return false, fmt.Errorf("linkstore: take %s: %w", key, err)
	}
	resp, err := stub.Fetch(req)
	if err != nil {
		return false, fmt.Errorf("linkstore: take %s: %w", key, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTakeAnswer))
	if err != nil {
		return false, fmt.Errorf("linkstore: take %s: %w", key, err)
	}
	var answer struct {
		Taken *bool `json:"taken"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &answer) != nil || answer.Taken == nil {
		return false, fmt.Errorf("linkstore: take %s: the limiter answered %d %q", key, resp.StatusCode, body)
	}
	return *answer.Taken, nil
}
