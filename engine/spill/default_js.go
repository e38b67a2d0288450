//go:build js

package spill

// In the browser there is no disk: pages stay in memory, counted the same way.
func platformStore(string) (Store, error) { return NewMemStore(), nil }

// onDisk says whether a Space makes file stores.
const onDisk = false
