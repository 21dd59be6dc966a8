// The MCP Streamable HTTP transport (server side), relaying to sessions inside a page.
//
// One endpoint (default /mcp) on a loopback address:
//   POST    one JSON-RPC message or a batch. Requests are answered with application/json when the
//           answer is the first thing the page sends back, or with a text/event-stream (SSE) as
//           soon as the page sends something first (a notification, a server-to-client request);
//           a body of notifications and responses only gets 202 Accepted.
//   GET     the session's standalone SSE stream for server messages unrelated to any request.
//   DELETE  ends the session (its page session is closed and what still runs there cancelled).
//
// Two eras, told apart per request:
//   handshake (2024-11-05 … 2025-11-25): `initialize` opens a session and a page session; the
//     answer carries `Mcp-Session-Id`, which every later request must repeat (unknown id → 404,
//     missing → 400). `MCP-Protocol-Version`, when sent, must name a supported version (else 400).
//   stateless (2026-07-28): no session id; each request names its version in
//     `_meta["io.modelcontextprotocol/protocolVersion"]` and in the `MCP-Protocol-Version` header.
//     Each POST gets a page session of its own, closed when the answer has gone (a
//     `subscriptions/listen` stream stays open until the client goes). A header that disagrees
//     with `_meta` is -32020 (HeaderMismatch); JSON-RPC errors map to HTTP statuses (-32601 → 404;
//     -32700, -32600, -32602, -32020, -32021, -32022 → 400).
// Every request must come with a localhost Host and, when present, a localhost Origin (DNS
// rebinding protection) — else 403.

import http from 'node:http';
import { randomUUID } from 'node:crypto';

export const HANDSHAKE_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];
export const STATELESS_VERSIONS = ['2026-07-28'];
const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const MAX_BODY_BYTES = 8 * 1024 * 1024;

const HTTP_STATUS_OF_ERROR = new Map([
  [-32700, 400],
  [-32600, 400],
  [-32602, 400],
  [-32601, 404],
  [-32020, 400],
  [-32021, 400],
  [-32022, 400],
]);

const isRequest = (m) => m && typeof m === 'object' && typeof m.method === 'string' && m.id !== undefined && m.id !== null;
const isResponse = (m) => m && typeof m === 'object' && m.method === undefined && ('result' in m || 'error' in m);
const key = (id) => JSON.stringify(id);

function localHostname(hostname) {
  const h = hostname.toLowerCase();
  return h === 'localhost' || h === '127.0.0.1' || h === '[::1]' || h === '::1';
}

function hostOk(host) {
  if (!host) return false;
  try {
    return localHostname(new URL(`http://${host}`).hostname);
  } catch {
    return false;
  }
}

function originOk(origin) {
  if (origin === undefined) return true;
  try {
    return localHostname(new URL(origin).hostname);
  } catch {
    return false;
  }
}

function errorBody(code, message, id = null, data) {
  const error = { code, message };
  if (data !== undefined) error.data = data;
  return { jsonrpc: '2.0', id, error };
}

function sendJson(res, status, body, headers = {}) {
  if (res.headersSent || res.writableEnded) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/**
 * The body value a request's `Mcp-Name` header must repeat, if the method has one: the name or
 * URI (SEP-2243), or for tasks/get, tasks/update and tasks/cancel the `taskId` (SEP-2663
 * "Streamable HTTP: Routing Headers").
 */
function nameOf(msg) {
  const p = msg.params;
  if (msg.method === 'tools/call' || msg.method === 'prompts/get') return typeof p?.name === 'string' ? p.name : undefined;
  if (msg.method === 'resources/read') return typeof p?.uri === 'string' ? p.uri : undefined;
  if (msg.method === 'tasks/get' || msg.method === 'tasks/update' || msg.method === 'tasks/cancel') return typeof p?.taskId === 'string' ? p.taskId : undefined;
  return undefined;
}

/**
 * 2026-07-28 (SEP-2243): a request carries `Mcp-Method` (its method) and, for tools/call,
 * prompts/get and resources/read, `Mcp-Name` (its name or URI; for the tasks methods the task
 * id); header names are
 * case-insensitive, values are compared exactly after trimming surrounding whitespace.
 * Returns what disagrees, or null.
 */
function standardHeaderMismatch(req, msg) {
  if (!isRequest(msg)) return null;
  const method = req.headers['mcp-method'];
  if (method === undefined) return `the Mcp-Method header is missing (the body's method is ${JSON.stringify(msg.method)})`;
  if (method.trim() !== msg.method) return `Mcp-Method is ${JSON.stringify(method.trim())} but the body's method is ${JSON.stringify(msg.method)}`;
  const name = nameOf(msg);
  if (name === undefined) return null;
  const header = req.headers['mcp-name'];
  if (header === undefined) return `the Mcp-Name header is missing (the body names ${JSON.stringify(name)})`;
  if (header.trim() !== name) return `Mcp-Name is ${JSON.stringify(header.trim())} but the body names ${JSON.stringify(name)}`;
  return null;
}

/** An `Mcp-Param-*` value: `=?base64?<data>?=` is strict standard Base64 (null when invalid), anything else is literal. */
function decodeParamHeader(v) {
  const m = /^=\?base64\?(.*)\?=$/.exec(v);
  if (!m) return v;
  const data = m[1];
  if (data.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) return null;
  const bytes = Buffer.from(data, 'base64');
  if (bytes.toString('base64') !== data) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(Object.assign(new Error('body too large'), { status: 413 }));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function accepts(req) {
  const a = String(req.headers.accept ?? '').toLowerCase();
  const any = a === '' || a.includes('*/*');
  return { json: any || a.includes('application/json'), sse: a.includes('text/event-stream') };
}

/**
 * The answer to one POST that carried requests: waits for the page's response(s), relaying what
 * comes first over SSE when the client accepts it.
 */
class Reply {
  constructor(res, { ids, sse, json, stateless, batch, headers, onDone }) {
    this.res = res;
    this.pending = new Set(ids.map(key));
    this.canSse = sse;
    this.canJson = json;
    this.stateless = stateless;
    this.batch = batch;
    this.headers = headers;
    this.onDone = onDone;
    this.mode = null; // null until the first write: 'json' | 'sse'
    this.collected = [];
    this.done = false;
    this.started = Date.now();
    res.on('close', () => this.finish(true));
  }

  get active() {
    return !this.done;
  }

  /** Whether a server message unrelated to the answer (notification, request) can go here. */
  get streams() {
    return !this.done && this.canSse;
  }

  waits(id) {
    return this.pending.has(key(id));
  }

  /** A message from the page for this POST. */
  deliver(msg) {
    if (this.done) return false;
    const responses = Array.isArray(msg) ? msg : isResponse(msg) ? [msg] : [];
    for (const r of responses) this.pending.delete(key(r.id));
    if (responses.length) {
      if (this.mode === 'sse') {
        this.event(msg);
        if (!this.pending.size) this.end();
        return true;
      }
      this.collected.push(...responses);
      if (!this.pending.size) {
        const body = this.batch ? this.collected : this.collected[0];
        let status = 200;
        if (this.stateless && !this.batch && body && body.error) status = HTTP_STATUS_OF_ERROR.get(body.error.code) ?? 200;
        sendJson(this.res, status, body, this.headers);
        this.finish(false);
      }
      return true;
    }
    // A notification or a server-to-client request before the answer.
    if (!this.canSse) return false;
    if (this.mode !== 'sse') this.startSse();
    this.event(msg);
    return true;
  }

  startSse() {
    this.mode = 'sse';
    this.res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      ...this.headers,
    });
    this.res.flushHeaders?.();
    // Responses collected before the stream started (batches) go first.
    for (const r of this.collected.splice(0)) this.event(r);
  }

  event(msg) {
    if (!this.res.writableEnded) this.res.write(`event: message\ndata: ${JSON.stringify(msg)}\n\n`);
  }

  end() {
    if (!this.res.writableEnded) this.res.end();
    this.finish(false);
  }

  finish(clientGone) {
    if (this.done) return;
    this.done = true;
    const abandoned = clientGone ? [...this.pending].map((k) => JSON.parse(k)) : [];
    this.onDone?.(abandoned);
  }
}

/** A handshake-era session: one page session, the POSTs in flight on it, the GET stream. */
class HandshakeSession {
  constructor(id, log) {
    this.id = id;
    this.log = log;
    this.page = null;
    this.version = null;
    this.replies = [];
    this.standalone = null;
    this.progress = new Map(); // progressToken key → Reply
    this.initializeId = null;
  }

  onMessage(msg) {
    if (Array.isArray(msg)) {
      const first = msg.find(isResponse);
      const reply = first && this.replies.find((r) => r.waits(first.id));
      if (reply) reply.deliver(msg);
      return;
    }
    if (isResponse(msg)) {
      if (this.initializeId !== null && key(msg.id) === key(this.initializeId) && msg.result) {
        this.version = msg.result.protocolVersion ?? null;
        this.initializeId = null;
      }
      const reply = this.replies.find((r) => r.waits(msg.id));
      if (reply) reply.deliver(msg);
      else this.log(`session ${this.id}: dropped an answer to ${JSON.stringify(msg.id)} (no request waits for it)`);
      return;
    }
    if (msg.method === 'notifications/progress') {
      const reply = this.progress.get(key(msg.params?.progressToken));
      if (reply && reply.deliver(msg)) return;
    }
    // Everything else goes on the newest POST stream that can carry it, else the GET stream.
    for (let i = this.replies.length - 1; i >= 0; i--) {
      if (this.replies[i].streams && this.replies[i].deliver(msg)) return;
    }
    if (this.standalone && !this.standalone.writableEnded) {
      this.standalone.write(`event: message\ndata: ${JSON.stringify(msg)}\n\n`);
      return;
    }
    if (isRequest(msg)) {
      // Nobody can hear it: fail it inside the page rather than leave the handler waiting.
      this.page?.send(errorBody(-32603, `The client has no open stream to receive ${msg.method}`, msg.id));
    }
  }

  addReply(reply, requests) {
    this.replies.push(reply);
    for (const r of requests) {
      const token = r.params?._meta?.progressToken;
      if (token !== undefined) this.progress.set(key(token), reply);
    }
  }

  removeReply(reply) {
    this.replies = this.replies.filter((r) => r !== reply);
    for (const [k, r] of this.progress) if (r === reply) this.progress.delete(k);
  }

  async close() {
    for (const r of this.replies) r.end();
    this.replies = [];
    if (this.standalone && !this.standalone.writableEnded) this.standalone.end();
    await this.page?.close();
  }
}

/**
 * Starts the HTTP transport.
 * @param {object} options
 * @param {{ openSession(onMessage: (msg: any) => void): Promise<{ send(msg: any): Promise<void>, close(): Promise<void> }> }} options.host
 * @param {number} [options.port=0]
 * @param {string} [options.hostname='127.0.0.1']
 * @param {string} [options.path='/mcp']
 * @param {(line: string) => void} [options.log]
 */
export async function startStreamableHttp({ host, port = 0, hostname = '127.0.0.1', path = '/mcp', log = () => {} }) {
  const sessions = new Map();
  const ephemeral = new Set();

  async function handlePost(req, res) {
    const acc = accepts(req);
    if (!acc.json && !acc.sse) {
      return sendJson(res, 406, errorBody(-32600, 'Not Acceptable: the client must accept application/json or text/event-stream'));
    }
    const ct = String(req.headers['content-type'] ?? '').toLowerCase();
    if (!ct.includes('application/json')) {
      return sendJson(res, 415, errorBody(-32600, 'Unsupported Media Type: Content-Type must be application/json'));
    }
    let text;
    try {
      text = await readBody(req);
    } catch (e) {
      return sendJson(res, e.status ?? 400, errorBody(-32600, `Could not read the request body: ${e.message}`));
    }
    let body;
    try {
      body = JSON.parse(text);
    } catch (e) {
      return sendJson(res, 400, errorBody(-32700, `Parse error: ${e.message}`));
    }
    const batch = Array.isArray(body);
    const messages = batch ? body : [body];
    if (batch && messages.length === 0) return sendJson(res, 400, errorBody(-32600, 'Invalid request: an empty batch'));
    if (messages.some((m) => m === null || typeof m !== 'object' || Array.isArray(m))) {
      return sendJson(res, 400, errorBody(-32600, 'Invalid request: every message must be a JSON-RPC object'));
    }
    const requests = messages.filter(isRequest);
    const firstRequest = requests[0];
    const sessionId = req.headers['mcp-session-id'];
    const headerVersion = req.headers['mcp-protocol-version'];
    const metaVersion = requests.map((r) => r.params?._meta?.[META_VERSION]).find((v) => v !== undefined);
    const isInitialize = messages.some((m) => m.method === 'initialize');

    const stateless =
      sessionId === undefined &&
      (metaVersion !== undefined || (headerVersion !== undefined && !HANDSHAKE_VERSIONS.includes(headerVersion)));

    if (stateless) {
      if (headerVersion !== undefined && metaVersion !== undefined && headerVersion !== metaVersion) {
        return sendJson(
          res,
          400,
          errorBody(
            -32020,
            `Header mismatch: MCP-Protocol-Version is ${JSON.stringify(headerVersion)} but _meta["${META_VERSION}"] is ${JSON.stringify(metaVersion)}`,
            firstRequest?.id ?? null,
            { header: 'MCP-Protocol-Version', headerValue: headerVersion, metaValue: metaVersion },
          ),
        );
      }
      const mismatch = standardHeaderMismatch(req, body) ?? (await customHeaderMismatch(req, body));
      if (mismatch) return sendJson(res, 400, errorBody(-32020, `Header mismatch: ${mismatch}`, firstRequest?.id ?? null));
      return relayStateless(req, res, { body, batch, requests, acc });
    }

    // The handshake era.
    if (headerVersion !== undefined && !HANDSHAKE_VERSIONS.includes(headerVersion)) {
      return sendJson(
        res,
        400,
        errorBody(-32600, `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(headerVersion)} (supported: ${[...HANDSHAKE_VERSIONS, ...STATELESS_VERSIONS].join(', ')})`, firstRequest?.id ?? null),
      );
    }
    let session;
    if (isInitialize) {
      if (batch) return sendJson(res, 400, errorBody(-32600, 'Invalid request: initialize must not be part of a batch', null));
      if (sessionId !== undefined && sessions.has(sessionId)) {
        return sendJson(res, 400, errorBody(-32600, 'Invalid request: this session is already initialized', body.id ?? null));
      }
      session = new HandshakeSession(randomUUID(), log);
      session.page = await host.openSession((m) => session.onMessage(m));
      session.initializeId = body.id ?? null;
      sessions.set(session.id, session);
    } else if (sessionId === undefined) {
      return sendJson(res, 400, errorBody(-32600, 'Bad Request: Mcp-Session-Id header is required (send initialize first)', firstRequest?.id ?? null));
    } else {
      session = sessions.get(sessionId);
      if (!session) return sendJson(res, 404, errorBody(-32001, 'Session not found', firstRequest?.id ?? null));
    }

    if (!requests.length) {
      res.writeHead(202).end();
      await session.page.send(body);
      return;
    }
    const headers = { 'Mcp-Session-Id': session.id };
    const reply = new Reply(res, {
      ids: requests.map((r) => r.id),
      sse: acc.sse,
      json: acc.json,
      stateless: false,
      batch,
      headers,
      onDone: (abandoned) => {
        session.removeReply(reply);
        // The client went away before the answer: cancel what it asked for.
        for (const id of abandoned) {
          session.page
            ?.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'The HTTP client disconnected' } })
            .catch(() => {});
        }
        if (isInitialize && !session.version) {
          // A failed initialize leaves no session behind.
          sessions.delete(session.id);
          session.close().catch(() => {});
        }
      },
    });
    session.addReply(reply, requests);
    await session.page.send(body);
  }

  /** One request to a fresh page session; resolves to its response. */
  async function askPage(msg) {
    let resolve;
    const answered = new Promise((r) => (resolve = r));
    const page = await host.openSession((m) => {
      if (isResponse(m) && key(m.id) === key(msg.id)) resolve(m);
    });
    try {
      await page.send(msg);
      return await answered;
    } finally {
      await page.close();
    }
  }

  /**
   * SEP-2243 custom headers: a tools/call argument whose schema property carries
   * `x-mcp-header: <Name>` must be repeated in `Mcp-Param-<Name>` (literally, or as
   * `=?base64?<standard base64>?=`). Returns what disagrees, or null.
   */
  async function customHeaderMismatch(req, msg) {
    if (!isRequest(msg) || msg.method !== 'tools/call' || typeof msg.params?.name !== 'string') return null;
    const meta = msg.params._meta ?? {};
    let tool;
    let cursor;
    for (let page = 0; page < 100 && !tool; page++) {
      const params = cursor === undefined ? { _meta: meta } : { _meta: meta, cursor };
      const list = await askPage({ jsonrpc: '2.0', id: `bridge-${randomUUID()}`, method: 'tools/list', params });
      tool = list.result?.tools?.find((t) => t.name === msg.params.name);
      cursor = list.result?.nextCursor;
      if (cursor === undefined) break;
    }
    const props = tool?.inputSchema?.properties ?? {};
    const args = msg.params.arguments ?? {};
    for (const [param, schema] of Object.entries(props)) {
      const name = schema && schema['x-mcp-header'];
      if (typeof name !== 'string') continue;
      const header = req.headers[`mcp-param-${name.toLowerCase()}`];
      const present = Object.prototype.hasOwnProperty.call(args, param) && args[param] !== null;
      if (!present) {
        if (header !== undefined) return `Mcp-Param-${name} is sent but the body has no argument ${JSON.stringify(param)}`;
        continue;
      }
      if (header === undefined) return `the Mcp-Param-${name} header is missing (the body has argument ${JSON.stringify(param)})`;
      const decoded = decodeParamHeader(header.trim());
      if (decoded === null) return `Mcp-Param-${name} is not valid Base64 inside =?base64?…?=`;
      if (decoded !== String(args[param])) return `Mcp-Param-${name} is ${JSON.stringify(decoded)} but argument ${JSON.stringify(param)} is ${JSON.stringify(String(args[param]))}`;
    }
    return null;
  }

  async function relayStateless(req, res, { body, batch, requests, acc }) {
    if (!requests.length) {
      // Notifications or responses without a session have nowhere to go.
      res.writeHead(202).end();
      return;
    }
    let page;
    const reply = new Reply(res, {
      ids: requests.map((r) => r.id),
      sse: acc.sse,
      json: acc.json,
      stateless: true,
      batch,
      headers: {},
      onDone: () => {
        ephemeral.delete(page);
        // Closing the page session cancels whatever still runs (a listen stream, an abandoned call).
        page?.close().catch(() => {});
      },
    });
    page = await host.openSession((m) => reply.deliver(m));
    if (reply.done) {
      await page.close();
      return;
    }
    ephemeral.add(page);
    await page.send(body);
  }

  function handleGet(req, res) {
    const sessionId = req.headers['mcp-session-id'];
    if (sessionId === undefined) {
      res.writeHead(405, { Allow: 'POST, DELETE' }).end();
      return;
    }
    const session = sessions.get(sessionId);
    if (!session) return sendJson(res, 404, errorBody(-32001, 'Session not found'));
    if (!accepts(req).sse) return sendJson(res, 406, errorBody(-32600, 'Not Acceptable: GET needs Accept: text/event-stream'));
    if (session.standalone && !session.standalone.writableEnded) {
      return sendJson(res, 409, errorBody(-32600, 'Conflict: this session already has a GET stream'));
    }
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'Mcp-Session-Id': session.id });
    res.flushHeaders?.();
    session.standalone = res;
    res.on('close', () => {
      if (session.standalone === res) session.standalone = null;
    });
  }

  async function handleDelete(req, res) {
    const sessionId = req.headers['mcp-session-id'];
    if (sessionId === undefined) return sendJson(res, 400, errorBody(-32600, 'Bad Request: Mcp-Session-Id header is required'));
    const session = sessions.get(sessionId);
    if (!session) return sendJson(res, 404, errorBody(-32001, 'Session not found'));
    sessions.delete(sessionId);
    await session.close();
    res.writeHead(200).end();
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    if (!hostOk(req.headers.host) || !originOk(req.headers.origin)) {
      log(`refused ${req.method} from Host ${req.headers.host} Origin ${req.headers.origin}`);
      return sendJson(res, 403, errorBody(-32000, 'Forbidden: Host and Origin must be localhost (DNS rebinding protection)'));
    }
    if (url.pathname !== path) return sendJson(res, 404, errorBody(-32600, `Not found: the MCP endpoint is ${path}`));
    const run = req.method === 'POST' ? handlePost : req.method === 'GET' ? handleGet : req.method === 'DELETE' ? handleDelete : null;
    if (!run) {
      res.writeHead(405, { Allow: 'GET, POST, DELETE' }).end();
      return;
    }
    Promise.resolve(run(req, res)).catch((e) => {
      log(`${req.method} failed: ${e.stack || e.message}`);
      sendJson(res, 500, errorBody(-32603, `Internal error in the bridge: ${e.message}`));
    });
  });
  server.keepAliveTimeout = 5_000;
  const sockets = new Set();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, hostname, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actualPort = server.address().port;
  const shownHost = hostname.includes(':') ? `[${hostname}]` : hostname;
  return {
    url: `http://${shownHost}:${actualPort}${path}`,
    port: actualPort,
    sessionCount: () => sessions.size,
    async close() {
      for (const s of sessions.values()) await s.close().catch(() => {});
      sessions.clear();
      for (const p of ephemeral) await p.close().catch(() => {});
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(() => r()));
    },
  };
}
