//go:build !unix

package importer

const syscallNonblock = 0
