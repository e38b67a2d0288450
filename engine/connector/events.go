package connector

import "github.com/joinlab/joinlab/engine/connector/connevent"

// The trace events of requests (RequestSent, PageReturned…) are declared in engine/connector/connevent, which
// the page imports without the engine.

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

// sentEvent is the RequestSent event of one send: what was sent (the request, its rendered text native, its
// sequence number and attempt) beside the caps of the connector it went to.
func sentEvent(source string, req Request, seq, attempt int, native string, caps Caps) connevent.RequestSent {
	return connevent.RequestSent{
		Source: source, Table: req.Table, Request: seq, Attempt: attempt,
		Native: native, QueryBytes: len(native), InValues: InValues(req.Where), Limit: req.Limit,
		MaxQueryBytes: caps.MaxQueryBytes, MaxInValues: caps.MaxInValues, MaxRows: caps.MaxRows,
	}
}
