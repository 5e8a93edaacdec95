//go:build !race

package llm

// raceEnabled: the race detector changes what escapes and allocates.
const raceEnabled = false
