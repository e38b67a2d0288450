//go:build !js

package spill

func platformStore(dir string) (Store, error) { return NewFileStore(dir) }

// onDisk says whether a Space makes file stores.
const onDisk = true
