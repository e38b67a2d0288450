package connector

import (
	"errors"
	"fmt"
	"time"
)

// ResultTooLargeError says the answer exceeds the rows or bytes one response may carry. The engine asks for
// less: a smaller Limit, or a narrower window. Rows and Bytes are what the source counted (at least one past
// the cap, when it stopped counting there).
type ResultTooLargeError struct {
	Rows, MaxRows   int64
	Bytes, MaxBytes int64
}

func (e *ResultTooLargeError) Error() string {
	if e.MaxBytes > 0 && e.Bytes > e.MaxBytes {
		return fmt.Sprintf("result too large: %d bytes, more than the %d bytes a response may carry", e.Bytes, e.MaxBytes)
	}
	return fmt.Sprintf("result too large: %d rows, more than the %d rows a response may carry", e.Rows, e.MaxRows)
}

// FilterTooLargeError says the request's filter does not fit: an IN list longer than Caps.MaxInValues, or a
// rendered query longer than Caps.MaxQueryBytes. The engine splits the filter into requests that fit.
type FilterTooLargeError struct {
	Values, MaxValues int
	Bytes, MaxBytes   int
}

func (e *FilterTooLargeError) Error() string {
	if e.MaxValues > 0 && e.Values > e.MaxValues {
		return fmt.Sprintf("filter too large: an IN list of %d values, more than the %d allowed", e.Values, e.MaxValues)
	}
	return fmt.Sprintf("filter too large: a query of %d bytes, more than the %d allowed", e.Bytes, e.MaxBytes)
}

// ThrottledError is a rate limit (HTTP 429): the request was not run; send it again after RetryAfter.
type ThrottledError struct {
	RetryAfter time.Duration
}

func (e *ThrottledError) Error() string {
	return fmt.Sprintf("throttled: retry after %s", e.RetryAfter)
}

// TransientError is a failure that may not recur (a 5xx, a timeout, a dropped connection): the request
// returned no rows and may be sent again after a backoff.
type TransientError struct {
	// Status is the HTTP-like status (503, 504…); 0 for a timeout with no answer.
	Status int
	Reason string
}

func (e *TransientError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("transient failure: %d %s", e.Status, e.Reason)
	}
	return "transient failure: " + e.Reason
}

// InvalidRequestError is a request the source will never accept (a limit over MaxRows, an unknown column,
// an order the source cannot produce). Retrying it is pointless.
type InvalidRequestError struct {
	Reason string
}

func (e *InvalidRequestError) Error() string { return "invalid request: " + e.Reason }

// Retryable reports whether err is a throttle or a transient failure: sending the same request again may
// succeed. It unwraps.
func Retryable(err error) bool {
	var th *ThrottledError
	var tr *TransientError
	return errors.As(err, &th) || errors.As(err, &tr)
}
