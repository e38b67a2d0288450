//go:build !unix

package spill

// selfStart is 0: these platforms do not tell start times here.
const selfStart uint64 = 0

// ownerGone cannot tell a dead process from a live one on these platforms (the browser has no processes and
// no disk; elsewhere no check is written yet), so it never lets removeStale remove a folder.
func ownerGone(int, uint64) bool { return false }
