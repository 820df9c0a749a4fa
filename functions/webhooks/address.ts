import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * Which addresses a webhook may connect to: public unicast only. Refused: private, loopback,
 * link-local, multicast, unspecified, shared (CGNAT), benchmarking, documentation and reserved
 * ranges; the cloud metadata addresses; and IPv6 forms carrying an IPv4 address (mapped,
 * compatible, 6to4, NAT64), judged by the address they carry.
 */
const REFUSED_V4 = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const;

const REFUSED_V6 = [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['2001::', 23],
  ['100::', 64],
] as const;

function blockList(type: 'ipv4' | 'ipv6', subnets: readonly (readonly [string, number])[]) {
  const list = new BlockList();
  for (const [net, bits] of subnets) list.addSubnet(net, bits, type);
  return list;
}

// Built on the first check, not at import: most functions that import this never make one, and
// each would pay for building them in its cold start.
let lists: { v4: BlockList; v6: BlockList; loopbackV4: BlockList } | undefined;

/** The 16 bytes of an IPv6 address (any textual form Node accepts). */
function bytesOf(address: string): Buffer {
  const [head = '', tail] = address.split('::');
  const groups = (part: string) => {
    if (part === '') return [] as number[];
    const out: number[] = [];
    for (const piece of part.split(':')) {
      if (piece.includes('.')) {
        const [a = 0, b = 0, c = 0, d = 0] = piece.split('.').map(Number);
        out.push((a << 8) | b, (c << 8) | d);
      } else out.push(Number.parseInt(piece, 16));
    }
    return out;
  };
  const h = groups(head);
  const t = tail === undefined ? [] : groups(tail);
  const all = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill(0), ...t];
  const bytes = Buffer.alloc(16);
  for (const [i, g] of all.entries()) bytes.writeUInt16BE(g, i * 2);
  return bytes;
}

const dotted = (b: Buffer) => `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;

/** The IPv4 address an IPv6 one carries, if it is of a form that carries one. */
function embeddedV4(address: string): string | undefined {
  const b = bytesOf(address);
  const zeros = (from: number, to: number) => b.subarray(from, to).every((x) => x === 0);
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated)
  if (zeros(0, 10) && ((b[10] === 0xff && b[11] === 0xff) || (b[10] === 0 && b[11] === 0)))
    return dotted(b.subarray(12));
  // 64:ff9b::/96 (NAT64) and 64:ff9b:1::/48 (local NAT64)
  if (b.readUInt16BE(0) === 0x64 && b.readUInt16BE(2) === 0xff9b) return dotted(b.subarray(12));
  // 2002::/16 (6to4): the IPv4 address in bytes 2..5
  if (b.readUInt16BE(0) === 0x2002) return dotted(b.subarray(2, 6));
  return undefined;
}

/**
 * Why `address` may not be connected to, or undefined when it may. `allowLoopback`: the local
 * server's and the tests' setting, for a receiver on 127.0.0.0/8 or ::1 (only those, and only
 * written as such: a loopback address dressed as IPv6 is still refused).
 */
export function refusal(address: string, allowLoopback: boolean): string | undefined {
  const refused = `${address} is not a public address`;
  lists ??= {
    v4: blockList('ipv4', REFUSED_V4),
    v6: blockList('ipv6', REFUSED_V6),
    loopbackV4: blockList('ipv4', [['127.0.0.0', 8]]),
  };
  const { v4, v6, loopbackV4 } = lists;
  if (isIPv4(address)) {
    if (allowLoopback && loopbackV4.check(address, 'ipv4')) return undefined;
    return v4.check(address, 'ipv4') ? refused : undefined;
  }
  if (isIPv6(address)) {
    const plain = address.toLowerCase().split('%')[0] as string;
    if (allowLoopback && bytesOf(plain).equals(bytesOf('::1'))) return undefined;
    const inner = embeddedV4(plain);
    if (inner !== undefined) return v4.check(inner, 'ipv4') || inner === '0.0.0.0' ? refused : undefined;
    // fd00:ec2::254 (AWS's IPv6 metadata) lies in fc00::/7 already.
    return v6.check(plain, 'ipv6') ? refused : undefined;
  }
  return `${address} is not an IP address`;
}
