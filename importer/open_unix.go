//go:build unix

package importer

import "syscall"

// syscallNonblock keeps an open of a named pipe from waiting for a writer.
const syscallNonblock = syscall.O_NONBLOCK
