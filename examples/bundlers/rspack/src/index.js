// Rspack, no configuration: `npx rspack build` bundles src/index.js into dist/main.js and emits
// the three wasm files beside it (asset modules for new URL('./file.wasm', import.meta.url)).
import 'modelcontext-polyfill';
import '../../shared/app.js'; // uses document.modelContext as soon as it runs
