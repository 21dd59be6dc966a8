// Rollup copies no files it meets as new URL('./file.wasm', import.meta.url) without a plugin:
// the `inline` entry carries the three wasm modules inside, so nothing needs copying.
import 'modelcontext-polyfill/inline';
import '../../shared/app.js'; // uses document.modelContext as soon as it runs
