// Package mycotest drives a real myco binary from the outside, as a
// person's browser and tools would: it builds and starts the binary on a
// temporary home, reads the URL and token it prints, talks to its HTTP API
// with the token and reads its event streams. e2e/load measures with it;
// e2e/crash kills it.
//
// It imports nothing of myco: the server is a black box here.
package mycotest
