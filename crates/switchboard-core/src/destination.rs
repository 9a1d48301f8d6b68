//! Which network destinations a member's MCP server or provider may reach.
//!
//! With more than one user, a member who could point a URL at `127.0.0.1:5432` or the cloud's
//! metadata address would make this process a proxy into the host's network (server-side
//! request forgery). The guard lets members reach public addresses only, plus what the admin
//! allowed ([`DestinationRules`]). This module is the pure part: classifying an address and
//! matching the allow list. The HTTP layer applies it to every address a name resolves to,
//! at connect time, so DNS rebinding cannot slip past a check made earlier.
//!
//! The ranges are IANA's special-purpose registries (RFC 6890 and successors). The standard
//! library's `Ipv4Addr::is_global` is still unstable, hence the table here.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

/// The words every refusal by the guard's HTTP clients carries, so a refusal can be
/// recognised after a client library flattened the error into text (and is never mistaken
/// for a name that does not resolve: the guard refuses from inside the resolver).
pub const REFUSED_WORDS: &str = "destination not allowed";

/// Whether `ip` is an ordinary public unicast address. Embedded IPv4 forms (IPv4-mapped,
/// IPv4-compatible, NAT64 `64:ff9b::/96`, 6to4) are judged by the IPv4 address inside.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

/// IPv4 special-purpose blocks: (network, prefix length).
const V4_BLOCKED: [([u8; 4], u8); 17] = [
    ([0, 0, 0, 0], 8),       // "this network", unspecified
    ([10, 0, 0, 0], 8),      // private
    ([100, 64, 0, 0], 10),   // carrier-grade NAT
    ([127, 0, 0, 0], 8),     // loopback
    ([169, 254, 0, 0], 16),  // link-local (cloud metadata lives here)
    ([172, 16, 0, 0], 12),   // private
    ([192, 0, 0, 0], 24),    // IETF protocol assignments
    ([192, 0, 2, 0], 24),    // documentation (TEST-NET-1)
    ([192, 31, 196, 0], 24), // AS112
    ([192, 52, 193, 0], 24), // AMT
    ([192, 88, 99, 0], 24),  // 6to4 relay anycast
    ([192, 168, 0, 0], 16),  // private
    ([192, 175, 48, 0], 24), // direct delegation AS112
    ([198, 18, 0, 0], 15),   // benchmarking
    ([198, 51, 100, 0], 24), // documentation (TEST-NET-2)
    ([203, 0, 113, 0], 24),  // documentation (TEST-NET-3)
    ([224, 0, 0, 0], 3),     // multicast, reserved (240/4) and broadcast
];

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let bits = u32::from(ip);
    !V4_BLOCKED
        .iter()
        .any(|&(net, len)| in_prefix(bits, u32::from(Ipv4Addr::from(net)), len))
}

fn in_prefix(bits: u32, net: u32, len: u8) -> bool {
    let mask = u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0);
    bits & mask == net & mask
}

fn in_prefix_v6(bits: u128, net: u128, len: u8) -> bool {
    let mask = u128::MAX.checked_shl(128 - u32::from(len)).unwrap_or(0);
    bits & mask == net & mask
}

/// IPv6 blocks inside global unicast (2000::/3) that are not public.
const V6_BLOCKED: [(u128, u8); 3] = [
    (0x2001_0000 << 96, 23), // IETF protocol assignments (Teredo, benchmarking, ORCHID)
    (0x2001_0db8 << 96, 32), // documentation
    (0x3fff_0000 << 96, 20), // documentation (RFC 9637)
];

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let bits = u128::from(ip);
    if let Some(v4) = embedded_v4(ip) {
        return is_public_v4(v4);
    }
    // Only global unicast can be public: everything else (ULA fc00::/7, link-local fe80::/10,
    // site-local, multicast ff00::/8, loopback, unspecified, discard 100::/64, the local
    // NAT64 64:ff9b:1::/48) lies outside 2000::/3.
    in_prefix_v6(bits, 0x2000 << 112, 3)
        && !V6_BLOCKED
            .iter()
            .any(|&(net, len)| in_prefix_v6(bits, net, len))
}

/// The IPv4 address an IPv6 address stands for, in the forms that reach IPv4 hosts: mapped
/// (`::ffff:a.b.c.d`), compatible (`::a.b.c.d`, which covers `::` and `::1`), well-known NAT64
/// (`64:ff9b::a.b.c.d`) and 6to4 (`2002:aabb:ccdd::/48`).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let bits = u128::from(ip);
    let low = Ipv4Addr::from((bits & 0xffff_ffff) as u32);
    if in_prefix_v6(bits, 0xffff << 32, 96)
        || in_prefix_v6(bits, 0, 96)
        || in_prefix_v6(bits, 0x0064_ff9b << 96, 96)
    {
        return Some(low);
    }
    if in_prefix_v6(bits, 0x2002 << 112, 16) {
        return Some(Ipv4Addr::from(((bits >> 80) & 0xffff_ffff) as u32));
    }
    None
}

/// A network in CIDR notation, e.g. `10.20.0.0/16` or `fd00::/8`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    network: IpAddr,
    prefix: u8,
}

impl Cidr {
    /// Whether `ip` lies in this network. IPv4-mapped IPv6 addresses count as their IPv4
    /// address, so allowing `10.0.0.0/8` also allows `::ffff:10.1.2.3`.
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.network, ip.to_canonical()) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                in_prefix(u32::from(ip), u32::from(net), self.prefix)
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                in_prefix_v6(u128::from(ip), u128::from(net), self.prefix)
            }
            _ => false,
        }
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.network, self.prefix)
    }
}

/// One entry of the admin's allow list: a host name or a network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AllowedDestination {
    /// A host name, matched whole and without case (`mcp.internal` does not allow
    /// `x.mcp.internal`); every address it resolves to is allowed.
    Host(String),
    /// Addresses in a network; a bare address is a network of one.
    Network(Cidr),
}

/// Why an allow-list entry was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{entry}` is not a host name, an IP address or a network like 10.0.0.0/8: {reason}")]
pub struct InvalidDestination {
    entry: String,
    reason: &'static str,
}

impl FromStr for AllowedDestination {
    type Err = InvalidDestination;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let entry = text.trim();
        let invalid = |reason| InvalidDestination {
            entry: entry.to_owned(),
            reason,
        };
        if let Some((addr, prefix)) = entry.split_once('/') {
            let network: IpAddr = addr.parse().map_err(|_| invalid("bad address"))?;
            let prefix: u8 = prefix.parse().map_err(|_| invalid("bad prefix length"))?;
            let max = if network.is_ipv4() { 32 } else { 128 };
            if prefix > max {
                return Err(invalid("prefix length too long"));
            }
            return Ok(Self::Network(Cidr { network, prefix }));
        }
        let bare = entry.trim_start_matches('[').trim_end_matches(']');
        if let Ok(ip) = bare.parse::<IpAddr>() {
            let prefix = if ip.is_ipv4() { 32 } else { 128 };
            return Ok(Self::Network(Cidr {
                network: ip,
                prefix,
            }));
        }
        let host = normalise_host(entry);
        let valid = !host.is_empty()
            && host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.' || b == b'_');
        if valid {
            Ok(Self::Host(host))
        } else {
            Err(invalid("a host name has letters, digits, `-` and `.` only"))
        }
    }
}

/// A host name as compared: lower case, without the root's trailing dot.
fn normalise_host(host: &str) -> String {
    host.trim_end_matches('.').to_ascii_lowercase()
}

/// The admin's allow list: destinations members may reach although they are not public.
/// Empty by default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DestinationRules {
    pub allowed: Vec<AllowedDestination>,
}

impl DestinationRules {
    /// Rules from allow-list entries (`--allow-destination`).
    pub fn parse<S: AsRef<str>>(
        entries: impl IntoIterator<Item = S>,
    ) -> Result<Self, InvalidDestination> {
        let allowed = entries
            .into_iter()
            .filter(|e| !e.as_ref().trim().is_empty())
            .map(|e| e.as_ref().parse())
            .collect::<Result<_, _>>()?;
        Ok(Self { allowed })
    }

    /// Whether the host name `host` is on the list by name.
    pub fn allows_host(&self, host: &str) -> bool {
        let host = normalise_host(host);
        self.allowed
            .iter()
            .any(|a| matches!(a, AllowedDestination::Host(h) if *h == host))
    }

    /// Whether a connection may go to `ip`: a public address, or one in an allowed network.
    pub fn allows_ip(&self, ip: IpAddr) -> bool {
        is_public(ip)
            || self
                .allowed
                .iter()
                .any(|a| matches!(a, AllowedDestination::Network(n) if n.contains(ip)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn special_ipv4_addresses_are_not_public() {
        for blocked in [
            "0.0.0.0",
            "0.1.2.3",
            "10.0.0.1",
            "100.64.0.1",
            "100.127.255.254",
            "127.0.0.1",
            "127.1.2.3",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.8",
            "192.0.2.1",
            "192.168.1.1",
            "198.18.0.1",
            "198.19.255.255",
            "198.51.100.7",
            "203.0.113.9",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
        ] {
            assert!(!is_public(ip(blocked)), "{blocked}");
        }
        for public in [
            "1.1.1.1",
            "8.8.8.8",
            "100.63.255.255",
            "100.128.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "198.17.255.255",
            "198.20.0.0",
            "223.255.255.255",
        ] {
            assert!(is_public(ip(public)), "{public}");
        }
    }

    #[test]
    fn special_ipv6_addresses_are_not_public() {
        for blocked in [
            "::",
            "::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "febf::1",
            "fec0::1",
            "ff02::1",
            "100::1",
            "2001:db8::1",
            "2001::1",
            "3fff::1",
            "64:ff9b:1::1",
            // IPv4 inside IPv6: mapped, compatible, NAT64, 6to4.
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "64:ff9b::127.0.0.1",
            "64:ff9b::a00:1",
            "2002:7f00:1::1",
            "2002:c0a8:101::",
        ] {
            assert!(!is_public(ip(blocked)), "{blocked}");
        }
        for public in [
            "2606:4700:4700::1111",
            "2a00:1450:4001::1",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:808:808::1",
        ] {
            assert!(is_public(ip(public)), "{public}");
        }
    }

    #[test]
    fn allow_list_entries_parse() {
        let rules =
            DestinationRules::parse(["10.20.0.0/16", "192.168.1.5", "[fd00::1]", "MCP.Internal."])
                .unwrap();
        assert!(rules.allows_ip(ip("10.20.3.4")));
        assert!(rules.allows_ip(ip("::ffff:10.20.3.4")));
        assert!(!rules.allows_ip(ip("10.21.0.1")));
        assert!(rules.allows_ip(ip("192.168.1.5")));
        assert!(!rules.allows_ip(ip("192.168.1.6")));
        assert!(rules.allows_ip(ip("fd00::1")));
        assert!(rules.allows_host("mcp.internal"));
        assert!(rules.allows_host("mcp.internal."));
        assert!(!rules.allows_host("x.mcp.internal"));
        assert!(!rules.allows_ip(ip("127.0.0.1")));
        assert!(rules.allows_ip(ip("8.8.8.8")));
        for bad in ["10.0.0.0/33", "::/129", "x/8", "exa mple", "a:b"] {
            assert!(DestinationRules::parse([bad]).is_err(), "{bad}");
        }
        assert!(
            DestinationRules::parse(["0.0.0.0/0"])
                .unwrap()
                .allows_ip(ip("127.0.0.1"))
        );
    }

    proptest::proptest! {
        /// An IPv4 address and its IPv4-mapped and NAT64 forms are judged alike.
        #[test]
        fn embedded_forms_agree(bits in proptest::num::u32::ANY) {
            let v4 = Ipv4Addr::from(bits);
            let mapped = v4.to_ipv6_mapped();
            let nat64 = Ipv6Addr::from((0x0064_ff9b_u128 << 96) | u128::from(bits));
            proptest::prop_assert_eq!(is_public(IpAddr::V4(v4)), is_public(IpAddr::V6(mapped)));
            proptest::prop_assert_eq!(is_public(IpAddr::V4(v4)), is_public(IpAddr::V6(nat64)));
        }

        /// Nothing in the private, loopback, link-local or CGNAT ranges is public.
        #[test]
        fn private_ranges_never_public(low in proptest::num::u32::ANY, pick in 0usize..5) {
            let (net, len) = [(0x0a00_0000_u32, 8u8), (0x7f00_0000, 8), (0xa9fe_0000, 16),
                (0xac10_0000, 12), (0x6440_0000, 10)][pick];
            let host = low & (u32::MAX >> len);
            proptest::prop_assert!(!is_public(IpAddr::V4(Ipv4Addr::from(net | host))));
        }

        /// Outside 2000::/3 no IPv6 address is public unless it embeds a public IPv4 one.
        #[test]
        fn ipv6_outside_global_unicast(bits in proptest::num::u128::ANY) {
            let ip = Ipv6Addr::from(bits);
            if !in_prefix_v6(bits, 0x2000 << 112, 3) && embedded_v4(ip).is_none() {
                proptest::prop_assert!(!is_public(IpAddr::V6(ip)));
            }
        }
    }
}
