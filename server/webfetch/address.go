package webfetch

import (
	"fmt"
	"net/netip"
	"strings"

	"myco/internal/errkind"
)

// ErrBlockedAddress is an address web_fetch never connects to: one of
// this machine's, of its network, or one that is not a single public
// host's. The check is on the address dialed (Fetcher.control), so a
// name that resolves to one, a rebinding DNS answer and a redirect to one
// are all refused.
var ErrBlockedAddress = errkind.New(errkind.Forbidden, "web_fetch does not connect to local, private or special addresses")

// blockedPrefixes are the ranges refused besides what netip's own
// predicates say (loopback, private, link-local, multicast, unspecified):
// shared address space, benchmarking, documentation and reserved ranges,
// and the IPv6 ranges that carry an IPv4 address inside (NAT64, 6to4,
// Teredo), which could reach a private IPv4 host through a translator.
var blockedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // CGNAT, shared address space
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // TEST-NET-1
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // TEST-NET-2
	netip.MustParsePrefix("203.0.113.0/24"),  // TEST-NET-3
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, broadcast
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001::/32"),       // Teredo
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("2002::/16"),       // 6to4
	netip.MustParsePrefix("fc00::/7"),        // unique local (ULA)
	netip.MustParsePrefix("fec0::/10"),       // site-local, deprecated
}

// AddressError is an address refused, and what kind of address it is.
// It is ErrBlockedAddress to errors.Is.
type AddressError struct {
	Addr netip.Addr
	Why  string
}

func (e *AddressError) Error() string {
	return fmt.Sprintf("%v: %s is %s", ErrBlockedAddress, e.Addr, e.Why)
}

func (e *AddressError) Unwrap() error { return ErrBlockedAddress }

// CheckAddr refuses an address web_fetch must not connect to, saying
// which kind it is (an *AddressError); nil for a public unicast address.
func CheckAddr(a netip.Addr) error {
	why := blockedKind(a)
	if why == "" {
		return nil
	}
	return &AddressError{Addr: a, Why: why}
}

func blockedKind(a netip.Addr) string {
	switch {
	case !a.IsValid():
		return "not an address"
	case a.Is4In6():
		// ::ffff:127.0.0.1 is 127.0.0.1 to the kernel: refused whatever
		// it maps, as no public host needs to be named so.
		return "an IPv4-mapped IPv6 address"
	case a.IsLoopback():
		return "a loopback address (this machine)"
	case a.IsUnspecified():
		return "the unspecified address"
	case a.IsPrivate():
		return "a private address"
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return "a link-local address"
	case a.IsMulticast(), a.IsInterfaceLocalMulticast():
		return "a multicast address"
	}
	for _, p := range blockedPrefixes {
		if p.Contains(a.WithZone("")) {
			return "in the reserved range " + p.String()
		}
	}
	if !a.IsGlobalUnicast() {
		return "not a public unicast address"
	}
	return ""
}

// CheckHost refuses a host that is itself an address web_fetch never
// connects to ("127.0.0.1", "[::1]"), before anyone is asked to approve
// it; a name is checked when it is dialed.
func CheckHost(host string) error {
	a, err := netip.ParseAddr(strings.Trim(host, "[]"))
	if err != nil {
		return nil
	}
	return CheckAddr(a)
}
