//go:build !unix && !js

package main

import "time"

// processCPU is not measured where the platform has no getrusage and no node clock: the CPU figures read 0.
func processCPU() time.Duration { return 0 }
