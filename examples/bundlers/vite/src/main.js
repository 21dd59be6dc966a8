// Vite, no configuration: `npx vite` (dev) or `npx vite build` (dist/). Vite emits the three wasm
// files and rewrites their URLs.
import 'modelcontext-polyfill';
import '../../shared/app.js'; // uses document.modelContext as soon as it runs
