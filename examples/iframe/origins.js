// The demo server (make demo) answers on two origins, http://localhost:PORT and
// http://127.0.0.1:PORT. The host page and the embedded app each run on one and trust the other.
export function otherOrigin(origin = location.origin) {
  const url = new URL(origin);
  if (url.hostname === 'localhost') url.hostname = '127.0.0.1';
  else if (url.hostname === '127.0.0.1') url.hostname = 'localhost';
  else throw new Error(`open this example on localhost or 127.0.0.1 (not ${url.hostname})`);
  return url.origin;
}
