// A tiny static HTTP server for the demo and the page tests. Node's `http` only, no dependency.
//
//   const server = await startStaticServer({ root, port: 0 });
//   server.origin      // "http://127.0.0.1:PORT"
//   server.altOrigin   // "http://localhost:PORT"  (same server, a second origin)
//   server.url('/dist/modelcontext.js', { alt: true })
//   server.route('/x.html', { body: '<p>hi</p>' })  // an in-memory page (html by extension)
//   server.route('/api', (req, res) => { ... })     // or a handler
//   await server.close()
//
// It listens on 127.0.0.1 and, when the machine has IPv6 loopback, on [::1] with the same port,
// so `localhost` reaches it whichever address the browser tries first. Both are secure contexts
// (WebMCP is [SecureContext]). It never listens on a public interface.

import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

export const MIME_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.cjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webmanifest': 'application/manifest+json',
};

function mimeFor(file) {
  return MIME_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

function escapeHtml(s) {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function listing(urlPath, dir) {
  const entries = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => !e.name.startsWith('.'))
    .sort((a, b) => a.name.localeCompare(b.name));
  const items = entries
    .map((e) => {
      const name = e.name + (e.isDirectory() ? '/' : '');
      return `<li><a href="${escapeHtml(encodeURIComponent(e.name) + (e.isDirectory() ? '/' : ''))}">${escapeHtml(name)}</a></li>`;
    })
    .join('\n');
  return `<!doctype html><meta charset="utf-8"><title>${escapeHtml(urlPath)}</title>
<h1>${escapeHtml(urlPath)}</h1><ul>
${urlPath === '/' ? '' : '<li><a href="../">../</a></li>'}
${items}
</ul>`;
}

/**
 * Start serving `root`.
 * @param {object} [options]
 * @param {string} [options.root=process.cwd()] directory to serve
 * @param {number} [options.port=0] 0 picks an ephemeral port
 * @param {string} [options.host='127.0.0.1'] primary address
 * @param {boolean} [options.ipv6Loopback=true] also listen on [::1] with the same port
 * @param {boolean} [options.log=false] log each request to stderr
 * @param {boolean} [options.gzip=false] send files gzip-encoded (level 9) to a client that
 *   accepts it, as a production server would (each file compressed once, while unchanged)
 */
export async function startStaticServer(options = {}) {
  const root = path.resolve(options.root ?? process.cwd());
  const host = options.host ?? '127.0.0.1';
  const routes = new Map();
  const log = options.log ?? false;
  const gzip = options.gzip ?? false;
  /** file → { mtimeMs, size, body }: each file compressed once while it is unchanged. */
  const gzipped = new Map();

  function handler(req, res) {
    let urlPath;
    try {
      urlPath = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    } catch {
      res.writeHead(400).end('bad request');
      return;
    }
    if (log) process.stderr.write(`${req.method} ${req.url}\n`);
    res.setHeader('Cache-Control', 'no-store');

    const route = routes.get(urlPath);
    if (route) {
      if (typeof route === 'function') return route(req, res);
      res.writeHead(route.status ?? 200, {
        'Content-Type': route.type ?? mimeFor(urlPath),
        ...(route.headers ?? {}),
      });
      res.end(req.method === 'HEAD' ? undefined : route.body);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' }).end('method not allowed');
      return;
    }

    const file = path.join(root, urlPath);
    if (file !== root && !file.startsWith(root + path.sep)) {
      res.writeHead(403).end('forbidden');
      return;
    }
    let stat;
    try {
      stat = fs.statSync(file);
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`not found: ${urlPath}`);
      return;
    }
    if (stat.isDirectory()) {
      if (!urlPath.endsWith('/')) {
        res.writeHead(301, { Location: urlPath + '/' }).end();
        return;
      }
      const index = path.join(file, 'index.html');
      if (fs.existsSync(index)) return sendFile(req, res, index);
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(req.method === 'HEAD' ? undefined : listing(urlPath, file));
      return;
    }
    sendFile(req, res, file);
  }

  function sendFile(req, res, file) {
    const stat = fs.statSync(file);
    if (gzip && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
      let z = gzipped.get(file);
      if (!z || z.mtimeMs !== stat.mtimeMs || z.size !== stat.size) {
        z = { mtimeMs: stat.mtimeMs, size: stat.size, body: zlib.gzipSync(fs.readFileSync(file), { level: 9 }) };
        gzipped.set(file, z);
      }
      res.writeHead(200, { 'Content-Type': mimeFor(file), 'Content-Encoding': 'gzip', 'Content-Length': z.body.length, Vary: 'Accept-Encoding' });
      return res.end(req.method === 'HEAD' ? undefined : z.body);
    }
    res.writeHead(200, { 'Content-Type': mimeFor(file), 'Content-Length': stat.size });
    if (req.method === 'HEAD') return res.end();
    fs.createReadStream(file).pipe(res);
  }

  const servers = [];
  const sockets = new Set();
  function listen(address, port) {
    return new Promise((resolve, reject) => {
      const s = http.createServer(handler);
      s.on('connection', (sock) => {
        sockets.add(sock);
        sock.on('close', () => sockets.delete(sock));
      });
      s.once('error', reject);
      s.listen(port, address, () => {
        s.off('error', reject);
        servers.push(s);
        resolve(s.address().port);
      });
    });
  }

  const port = await listen(host, options.port ?? 0);
  if ((options.ipv6Loopback ?? true) && host === '127.0.0.1') {
    // Best effort: without IPv6 loopback, browsers fall back to 127.0.0.1 for `localhost`.
    await listen('::1', port).catch(() => {});
  }

  const origin = `http://127.0.0.1:${port}`;
  const altOrigin = `http://localhost:${port}`;
  return {
    root,
    port,
    origin,
    altOrigin,
    /** Absolute URL of `p` (a path beginning with `/`) on the primary or the alternate origin. */
    url(p, { alt = false } = {}) {
      return (alt ? altOrigin : origin) + p;
    },
    /** Serve `spec` at exact `urlPath`: `{ body, type?, status?, headers? }` or `(req, res) => void`. */
    route(urlPath, spec) {
      routes.set(urlPath, spec);
      return () => routes.delete(urlPath);
    },
    /** Let the process exit even while the server is listening. */
    unref() {
      for (const s of servers) s.unref();
    },
    async close() {
      for (const sock of sockets) sock.destroy();
      await Promise.all(servers.map((s) => new Promise((r) => s.close(() => r()))));
    },
  };
}
