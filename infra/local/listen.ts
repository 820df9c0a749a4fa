import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The bound address as a URL host: a wildcard becomes loopback, an IPv6 address is bracketed. */
const urlHost = ({ address, family }: AddressInfo) => {
  if (address === '0.0.0.0') return '127.0.0.1';
  if (address === '::') return '[::1]';
  return family === 'IPv6' ? `[${address}]` : address;
};

/** Listens on `port` (0: any free one) and `host` (default 127.0.0.1); the URL it can be reached at. */
export async function listen(server: Server, port = 0, host = '127.0.0.1'): Promise<string> {
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      done();
    });
  });
  const address = server.address() as AddressInfo;
  return `http://${urlHost(address)}:${address.port}`;
}
