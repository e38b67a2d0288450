//go:build unix

package spill

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// selfStart is this process's start time as procStat reads it, 0 where the platform does not tell it.
var selfStart = func() uint64 {
	_, start, _ := procStat(os.Getpid())
	return start
}()

// ownerGone says whether the process that named a spill folder pid and start has ended. Signal 0 asks the
// kernel whether pid exists without disturbing it (EPERM: it exists, under another user). A pid that exists
// may have been reused by a new process after the owner died: where /proc tells start times (Linux), a
// different start time, or a zombie, is a gone owner. Anything unclear counts as alive, so a live run's
// folder is never removed.
func ownerGone(pid int, start uint64) bool {
	err := syscall.Kill(pid, 0)
	if errors.Is(err, syscall.ESRCH) {
		return true
	}
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	state, now, ok := procStat(pid)
	if !ok {
		return false
	}
	return state == 'Z' || (start != 0 && now != start)
}

// procStat reads a process's state and start time (clock ticks since boot) from /proc/PID/stat; ok is false
// where there is no /proc (every unix but Linux) or the process is gone.
func procStat(pid int) (state byte, start uint64, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// "PID (COMM) STATE PPID …": COMM may hold spaces and parentheses, so the fields start after the last ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	// STATE is field 3 of proc(5) and starttime field 22: f[0] and f[19].
	const startField = 22 - 3
	if len(f) <= startField || len(f[0]) != 1 {
		return 0, 0, false
	}
	start, err = strconv.ParseUint(f[startField], 10, 64)
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], start, true
}
