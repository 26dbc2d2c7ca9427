// Package cidr parses the network lists Agentry's flags take (--trusted-proxies, the chat's
// agent allow-list, the operator's --runtime-trusted-proxies): one parser, so every flag
// accepts the same inputs.
package cidr

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// Parse parses CIDRs or single addresses ("127.0.0.0/8", "::1", "10.96.0.0/12"); blank entries
// are skipped. A single address is its own /32 or /128, and a CIDR is masked to its network.
func Parse(list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, raw := range list {
		raw = strings.TrimSpace(raw)
		if raw == "" {
			continue
		}
		if !strings.Contains(raw, "/") {
			a, err := netip.ParseAddr(raw)
			if err != nil {
				return nil, fmt.Errorf("failed to parse network %q: not an IP address or CIDR", raw)
			}
			a = a.Unmap()
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(raw)
		if err != nil {
			return nil, fmt.Errorf("failed to parse network %q: %w", raw, err)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// IPNets converts prefixes to the net.IPNet form some libraries take (echo's trust options).
func IPNets(list []netip.Prefix) []*net.IPNet {
	out := make([]*net.IPNet, 0, len(list))
	for _, p := range list {
		out = append(out, &net.IPNet{IP: net.IP(p.Addr().AsSlice()), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())})
	}
	return out
}
