//go:build !js

package spill

func platformStore(dir string) (Store, error) { return NewFileStore(dir) }
