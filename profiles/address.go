package profiles

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"

	"myco/internal/atomicfile"
)

// Address is address.json: where the profile's server listened last and
// the token it took. A restart reuses both, so a tab left open reconnects
// by itself and a bookmark keeps working. The token opens the agent's
// shell: the file is 0600, like server.json, and lives in the profile
// folder, which the agent's tools never read.
type Address struct {
	Addr  string `json:"addr"`  // host:port, a loopback address
	Token string `json:"token"` // hex, as newToken makes it
}

// AddressPath returns the path of the profile's address.json.
func (p *Profile) AddressPath() string { return filepath.Join(p.Dir, "address.json") }

// ReadAddress reads address.json at path. An absent file gives the zero
// Address and no error; a file that is not a loopback address and a hex
// token of 32 bytes or more is an error (the caller starts afresh).
func ReadAddress(path string) (Address, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Address{}, nil
	}
	if err != nil {
		return Address{}, fmt.Errorf("read address: %w", err)
	}
	var a Address
	if err := json.Unmarshal(data, &a); err != nil {
		return Address{}, fmt.Errorf("address %s is malformed: %w", path, err)
	}
	if err := a.check(); err != nil {
		return Address{}, fmt.Errorf("address %s: %w", path, err)
	}
	return a, nil
}

func (a Address) check() error {
	host, _, err := net.SplitHostPort(a.Addr)
	if err != nil {
		return fmt.Errorf("addr %q: %w", a.Addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("addr %q is not a loopback address", a.Addr)
	}
	if b, err := hex.DecodeString(a.Token); err != nil || len(b) < 32 {
		return errors.New("token must be at least 32 bytes in hex")
	}
	return nil
}

// WriteAddress writes a to path atomically with mode 0600.
func WriteAddress(path string, a Address) error {
	if err := a.check(); err != nil {
		return fmt.Errorf("write address: %w", err)
	}
	data, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return fmt.Errorf("write address: %w", err)
	}
	if err := atomicfile.Write(path, append(data, '\n'), atomicfile.Options{Perm: fileMode}); err != nil {
		return fmt.Errorf("write address %s: %w", path, err)
	}
	return nil
}
