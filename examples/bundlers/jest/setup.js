// Jest's jsdom environment leaves out TextEncoder and TextDecoder, which the polyfill's core needs:
// Node's, before any test file loads.
import { TextEncoder, TextDecoder } from 'node:util';

Object.assign(globalThis, { TextEncoder, TextDecoder });
