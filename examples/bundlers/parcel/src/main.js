// Parcel 2, no configuration: `npx parcel build index.html` emits both wasm files beside the
// bundles and rewrites their URLs.
import 'modelcontext-polyfill';
import { run } from '../../shared/app.js';

run();
