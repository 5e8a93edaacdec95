// Package crash holds the crash test of issue 9: a real myco under a
// scripted load (answers streaming, tools running, queued messages and
// steers, title and scratchpad changes, archive and restore, and the hold
// cases of issue 18: a certificate, a private key and pytest's dots
// streaming) is killed with SIGKILL at random moments and restarted on the
// same home; after each restart every rule of "a crash loses at most a
// second" is checked for every session. TestSteerSurvivesKill kills myco
// right after a steer's 202.
//
//	go test ./e2e/crash                                 # 20 kills
//	MYCO_CRASH_KILLS=200 go test -v -timeout 30m ./e2e/crash
//	MYCO_CRASH_SEED=42 go test ./e2e/crash              # replay a seed
//	MYCO_CRASH_BIN=bin/myco go test ./e2e/crash         # a built binary
//
// The package is tests only; this file carries its documentation.
package crash
