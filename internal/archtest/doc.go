// Package archtest holds no code, only the test that keeps myco's packages
// in their layers (layers_test.go): the rule is written there, once, and
// ARCHITECTURE.md at the repository root explains it.
package archtest
