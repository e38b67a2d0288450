// Package fulltest lets an exhaustive test run a seeded sample of its cases by default and all of them when
// asked. A sweep over every combination of sizes, keys, limits and shapes finds a bug in the first run that
// has it, but run on every `go test` it is minutes of one core (TestTopBoundIsExact: 3,584 query pairs,
// about two minutes); a sample that still reaches every value of every dimension keeps the default run short,
// and the full sweep stays one variable away.
//
// JOINLAB_FULL_TESTS=1 runs every case. JOINLAB_TEST_SEED=N draws another sample; each test logs its seed, so
// a failing sample can be replayed. It is an environment variable, not a test flag, because `go test ./...`
// hands a flag to every package's test binary and one that does not define it fails.
package fulltest

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

const (
	// FullEnv, set to 1, runs every case.
	FullEnv = "JOINLAB_FULL_TESTS"
	// SeedEnv picks the sample; defaultSeed makes the default run the same on every machine.
	SeedEnv     = "JOINLAB_TEST_SEED"
	defaultSeed = 1
)

// Full reports whether every case is to run.
func Full() bool { return os.Getenv(FullEnv) == "1" }

// Sampler picks the cases of one test run.
type Sampler struct {
	full bool
	rng  *rand.Rand
}

// New returns the test's sampler and logs how it samples, with the seed to replay it.
func New(t testing.TB) *Sampler {
	t.Helper()
	if Full() {
		t.Logf("%s=1: every case", FullEnv)
		return &Sampler{full: true}
	}
	seed := uint64(defaultSeed)
	if v := os.Getenv(SeedEnv); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", SeedEnv, v, err)
		}
		seed = n
	}
	t.Logf("a sample of the cases, seed %d (%s=%d replays it; %s=1 runs every case)", seed, SeedEnv, seed, FullEnv)
	return &Sampler{rng: rand.New(rand.NewPCG(seed, seed))}
}

// Full reports whether the sampler keeps every case.
func (s *Sampler) Full() bool { return s.full }

// Pick returns the values of one dimension to try at this point of a sweep: all of them in a full run, else
// one drawn from the sample's seed. A sweep that Picks its inner dimensions and ranges over its outer ones in
// full tries every outer combination once, with the inner values varying from one to the next.
func Pick[T any](s *Sampler, all []T) []T {
	if s.full || len(all) <= 1 {
		return all
	}
	return []T{all[s.rng.IntN(len(all))]}
}
