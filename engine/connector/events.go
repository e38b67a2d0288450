package connector

import "github.com/joinlab/joinlab/engine/trace"

// Trace event kinds of requests to connectors. Every event carries the virtual time (Event.At) and, as Op,
// "scan@Source" (or the operator that sent it). Attributes:
const (
	// RequestSent: source, table, request (sequence number in the operator), attempt (1 for the first
	// send), native (the rendered query text), query_bytes, in_values, limit, and the connector's caps they
	// are held to: max_query_bytes, max_in_values, max_rows (0: no cap). See SentAttrs. An overlapped request
	// that waited for the source's published rate first (Pacer) also carries paced_ns, the wait.
	RequestSent trace.Kind = "request_sent"
	// RequestThrottled: request, retry_after_ns.
	RequestThrottled trace.Kind = "request_throttled"
	// RequestFailed: source, request, error, retryable.
	RequestFailed trace.Kind = "request_failed"
	// RequestRetried: request, attempt (the one about to be sent), wait_ns.
	RequestRetried trace.Kind = "request_retried"
	// PageReturned: source, request, rows, bytes, truncated, latency_ns. A request is in flight from its
	// RequestSent to its PageReturned or RequestFailed (matched by op, source and request); requests to one
	// source overlap up to its Caps.Concurrent (see Overlap).
	PageReturned trace.Kind = "page_returned"
	// PageResized: from, to, reason — the scan asked for fewer rows after a too-large result.
	PageResized trace.Kind = "page_resized"
)

// Detail keys the scan adds to a run's details (integers, summed over every scan).
const (
	DetailRequests     = "requests"
	DetailBytesShipped = "bytes_shipped"
	DetailRowsScanned  = "rows_scanned"
	DetailRetries      = "retries"
	// DetailPacedWaits counts the overlapped requests that waited for the source's published rate (Pacer).
	DetailPacedWaits = "paced_waits"
	// DetailRequestsOf + source name counts one source's requests.
	DetailRequestsOf = "requests@"
)

// SentAttrs are the attributes of a RequestSent event: what was sent (the request, its rendered text native,
// its sequence number and attempt) beside the caps of the connector it went to, so a reader sees each size
// against its limit.
func SentAttrs(source string, req Request, seq, attempt int, native string, caps Caps) map[string]any {
	return map[string]any{
		"source": source, "table": req.Table, "request": seq, "attempt": attempt,
		"native": native, "query_bytes": len(native), "in_values": InValues(req.Where), "limit": req.Limit,
		"max_query_bytes": caps.MaxQueryBytes, "max_in_values": caps.MaxInValues, "max_rows": caps.MaxRows,
	}
}
