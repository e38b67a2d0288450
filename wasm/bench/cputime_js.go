//go:build js

package main

import (
	"syscall/js"
	"time"
)

// processCPU is the CPU time (user and system) node's process.cpuUsage reports, so that the js/wasm test
// binary run under node gives CPU figures as the native one does: on a machine shared with other work they move
// far less than wall time. They count every thread of node (its collector's and compiler's too), as getrusage
// counts the Go collector's. A browser has no such clock, and the figures read 0 there.
func processCPU() time.Duration {
	process := js.Global().Get("process")
	if process.Type() != js.TypeObject {
		return 0
	}
	usage := process.Get("cpuUsage")
	if usage.Type() != js.TypeFunction {
		return 0
	}
	u := process.Call("cpuUsage")
	return time.Duration(u.Get("user").Float()+u.Get("system").Float()) * time.Microsecond
}
