// A TCP port nothing listens on now, on 127.0.0.1: for a server that must be told its port
// (one that prints the port it was given rather than the one it got), or a driver's.

import net from 'node:net';

/** The number of a port nothing listens on now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}
