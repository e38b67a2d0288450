// Package connevent declares the trace events of requests to connectors (engine/connector's retrying sender
// and scan emit them). It imports nothing but engine/trace, so the page decodes these events without carrying
// the engine.
//
// Every event carries the virtual time (trace.Event.At) and, as Op, "scan@Source" or the operator that sent
// the request. A request is in flight from its RequestSent to its PageReturned or RequestFailed (matched by
// Op, Source and Request); requests to one source overlap up to its Caps.Concurrent.
package connevent

import "github.com/joinlab/joinlab/engine/trace"

// RequestSent is one send of a request: what was sent beside the caps of the connector it went to, so a reader
// sees each size against its limit.
type RequestSent struct {
	Source  string `json:"source"`
	Table   string `json:"table"`
	Request int    `json:"request"` // sequence number in the operator
	Attempt int    `json:"attempt"` // 1 for the first send
	// Native is the request rendered in the source's dialect; QueryBytes its length.
	Native        string `json:"native"`
	QueryBytes    int    `json:"query_bytes"`
	InValues      int    `json:"in_values"`
	Limit         int    `json:"limit"`
	MaxQueryBytes int    `json:"max_query_bytes"` // 0: no cap
	MaxInValues   int    `json:"max_in_values"`   // 0: no cap
	MaxRows       int    `json:"max_rows"`        // 0: no cap
	// Purpose says why the paged join sent it: wide, thin, probe or refetch ("" for a plain scan).
	Purpose string `json:"purpose,omitempty"`
	// PacedNanos is the wait an overlapped request spent for the source's published rate first (Pacer).
	PacedNanos int64 `json:"paced_ns,omitempty"`
}

// RequestThrottled is a request the source refused for now (429), with the wait it asked for.
type RequestThrottled struct {
	Request         int   `json:"request"`
	RetryAfterNanos int64 `json:"retry_after_ns"`
}

// RequestFailed is a send that failed, and whether the sender will try again.
type RequestFailed struct {
	Source    string `json:"source"`
	Request   int    `json:"request"`
	Error     string `json:"error"`
	Retryable bool   `json:"retryable"`
}

// RequestRetried is a request about to be sent again, after a wait.
type RequestRetried struct {
	Request   int   `json:"request"`
	Attempt   int   `json:"attempt"` // the attempt about to be sent
	WaitNanos int64 `json:"wait_ns"`
}

// PageReturned is a request's answer.
type PageReturned struct {
	Source       string `json:"source"`
	Request      int    `json:"request"`
	Rows         int    `json:"rows"`
	Bytes        int64  `json:"bytes"`
	Truncated    bool   `json:"truncated"`
	LatencyNanos int64  `json:"latency_ns"`
	Purpose      string `json:"purpose,omitempty"` // as RequestSent's
}

// PageResized is a scan asking for fewer rows after a result too large: From rows, now To, and the source's
// reason.
type PageResized struct {
	From   int    `json:"from"`
	To     int    `json:"to"`
	Reason string `json:"reason"`
}

// The kinds of these events.
const (
	KindRequestSent      trace.Kind = "request_sent"
	KindRequestThrottled trace.Kind = "request_throttled"
	KindRequestFailed    trace.Kind = "request_failed"
	KindRequestRetried   trace.Kind = "request_retried"
	KindPageReturned     trace.Kind = "page_returned"
	KindPageResized      trace.Kind = "page_resized"
)

func (RequestSent) Kind() trace.Kind      { return KindRequestSent }
func (RequestThrottled) Kind() trace.Kind { return KindRequestThrottled }
func (RequestFailed) Kind() trace.Kind    { return KindRequestFailed }
func (RequestRetried) Kind() trace.Kind   { return KindRequestRetried }
func (PageReturned) Kind() trace.Kind     { return KindPageReturned }
func (PageResized) Kind() trace.Kind      { return KindPageResized }
