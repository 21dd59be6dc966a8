// Parcel 2, no configuration: `npx parcel build index.html` emits the three wasm files beside the
// bundles and rewrites their URLs.
import 'modelcontext-polyfill';
import '../../shared/app.js'; // uses document.modelContext as soon as it runs
